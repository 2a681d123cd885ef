package walvfs_test

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/baton-dev/baton/sqlite/walvfs"
	_ "modernc.org/sqlite"
)

// dsn is path's data source name in WAL mode with the given further
// pragmas, through the VFS when vfs is set (false if it did not register).
func dsn(path string, vfs bool, pragmas ...string) (string, bool) {
	q := url.Values{}
	for _, p := range append([]string{"journal_mode(WAL)", "synchronous(NORMAL)"}, pragmas...) {
		q.Add("_pragma", p)
	}
	if vfs {
		if !walvfs.Register() {
			return "", false
		}
		q.Set("vfs", walvfs.Name)
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode(), true
}

// open opens path in WAL mode without checkpoints, through the VFS when
// vfs is set.
func open(t *testing.T, path string, vfs bool) *sql.DB {
	t.Helper()
	name, ok := dsn(path, vfs, "wal_autocheckpoint(0)")
	if !ok {
		t.Fatal("the VFS did not register")
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func run(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// frames is how many frames the log at path holds: its size past the
// 32-byte header over the size of a frame of pageSize.
func frames(t *testing.T, path string, pageSize int64) int64 {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return (fi.Size() - 32) / (24 + pageSize)
}

// TestFramesWrittenWhole writes transactions through the VFS and checks
// that every frame of the log went out in one write, that the log is the
// one the plain VFS writes for the same transactions (byte for byte apart
// from its salts, which are random, and the checksums that depend on
// them), and that a connection without the VFS reads what was committed.
func TestFramesWrittenWhole(t *testing.T) {
	dir := t.TempDir()
	logs := map[bool][]byte{}
	for _, vfs := range []bool{false, true} {
		path := filepath.Join(dir, fmt.Sprintf("vfs-%v.db", vfs))
		db := open(t, path, vfs)
		db.SetMaxOpenConns(1)
		run(t, db, `PRAGMA page_size = 4096`)
		run(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)`)
		before := walvfs.Coalesced()
		for i := range 50 {
			run(t, db, `INSERT INTO t (body) VALUES (?)`, strings.Repeat(fmt.Sprint(i), 300))
		}
		written := walvfs.Coalesced() - before
		n := frames(t, path, 4096)
		if vfs {
			// The CREATE's frames came before the count began.
			if written == 0 || written > n {
				t.Fatalf("frames written whole: %d of the log's %d", written, n)
			}
		} else if written != 0 {
			t.Fatalf("the plain VFS wrote %d frames through this one", written)
		}
		b, err := os.ReadFile(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		logs[vfs] = b

		// Another connection, without the VFS, reads every row.
		other := open(t, path, false)
		var count int
		if err := other.QueryRow(`SELECT count(*) FROM t`).Scan(&count); err != nil || count != 50 {
			t.Fatalf("rows seen by a plain connection: %d, %v", count, err)
		}
	}
	plain, shimmed := logs[false], logs[true]
	if len(plain) != len(shimmed) {
		t.Fatalf("log sizes differ: %d plain, %d through the VFS", len(plain), len(shimmed))
	}
	// Frame by frame, the page numbers, commit sizes and pages agree.
	for off := 32; off+24+4096 <= len(plain); off += 24 + 4096 {
		if string(plain[off:off+8]) != string(shimmed[off:off+8]) || string(plain[off+24:off+24+4096]) != string(shimmed[off+24:off+24+4096]) {
			t.Fatalf("the frame at %d differs", off)
		}
	}
}

// TestCommittedSurvivesACrash copies the database and its log while the
// writing connection is still open, as a process killed after its commit
// leaves them, and opens the copy: every committed row is there and the
// database is intact.
func TestCommittedSurvivesACrash(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "live.db")
	db := open(t, path, true)
	db.SetMaxOpenConns(1)
	run(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)`)
	for i := range 200 {
		run(t, db, `INSERT INTO t (body) VALUES (?)`, strings.Repeat("x", i*20))
	}
	copyFile := func(from, to string) {
		in, err := os.Open(from)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		out, err := os.Create(to)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
	}
	crashed := filepath.Join(dir, "crashed.db")
	copyFile(path, crashed)
	copyFile(path+"-wal", crashed+"-wal")

	again := open(t, crashed, true)
	var count int
	var check string
	if err := again.QueryRow(`SELECT count(*) FROM t`).Scan(&count); err != nil || count != 200 {
		t.Fatalf("rows after the crash: %d, %v", count, err)
	}
	if err := again.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
}

// TestCheckpointAndRestart checkpoints a log written through the VFS and
// writes on, so that the log restarts from its beginning (its header is
// rewritten, frames overwrite old ones), then checks the database.
func TestCheckpointAndRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ck.db")
	db := open(t, path, true)
	db.SetMaxOpenConns(1)
	run(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)`)
	for round := range 3 {
		for i := range 40 {
			run(t, db, `INSERT INTO t (body) VALUES (?)`, strings.Repeat(fmt.Sprint(round, i), 100))
		}
		run(t, db, `PRAGMA wal_checkpoint(RESTART)`)
	}
	run(t, db, `UPDATE t SET body = body || 'y'`)
	var count int
	var check string
	if err := db.QueryRow(`SELECT count(*) FROM t WHERE body LIKE '%y'`).Scan(&count); err != nil || count != 120 {
		t.Fatalf("rows updated: %d, %v", count, err)
	}
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	plain := open(t, path, false)
	if err := plain.QueryRow(`SELECT count(*) FROM t`).Scan(&count); err != nil || count != 120 {
		t.Fatalf("rows after closing: %d, %v", count, err)
	}
}

// TestMain runs the writer of TestKilledWriterLosesNothing when the test
// binary is started as that writer.
func TestMain(m *testing.M) {
	if path := os.Getenv("WALVFS_WRITER"); path != "" {
		writeUntilKilled(path)
		return
	}
	os.Exit(m.Run())
}

// writeUntilKilled inserts rows through the VFS, one transaction each,
// and prints each row's id once its COMMIT has returned.
func writeUntilKilled(path string) {
	name, ok := dsn(path, true)
	if !ok {
		panic("the VFS did not register")
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, body TEXT)`); err != nil {
		panic(err)
	}
	fmt.Println("ready")
	for i := 0; ; i++ {
		res, err := db.Exec(`INSERT INTO t (body) VALUES (?)`, strings.Repeat("b", 100+i%3000))
		if err != nil {
			panic(err)
		}
		id, _ := res.LastInsertId()
		fmt.Println(id)
	}
}

// TestKilledWriterLosesNothing kills (SIGKILL) a process writing through
// the VFS in the middle of its writes, three times over one database:
// every row whose commit the process acknowledged is there afterwards,
// and the database is intact.
func TestKilledWriterLosesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "killed.db")
	acked := map[int64]bool{}
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run", "^$")
		cmd.Env = append(os.Environ(), "WALVFS_WRITER="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		if !lines.Scan() || lines.Text() != "ready" {
			t.Fatalf("round %d: the writer did not start: %q", round, lines.Text())
		}
		for n := 0; n < 300 && lines.Scan(); n++ {
			id, err := strconv.ParseInt(lines.Text(), 10, 64)
			if err != nil {
				t.Fatalf("round %d: %q", round, lines.Text())
			}
			acked[id] = true
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
	}
	db := open(t, path, false)
	rows, err := db.Query(`SELECT id FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	present := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		present[id] = true
	}
	rows.Close()
	for id := range acked {
		if !present[id] {
			t.Fatalf("row %d was acknowledged and is gone (%d acknowledged, %d present)", id, len(acked), len(present))
		}
	}
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
	if len(acked) < 900 {
		t.Fatalf("only %d writes acknowledged", len(acked))
	}
}
