// Package walvfs holds a SQLite VFS that writes each frame of a
// write-ahead log in one system call instead of two.
//
// SQLite writes a frame as two writes at adjacent offsets: its 24-byte
// header, then its page. On the load harness's mix the log's writes were
// the largest single cost of baton's server (a tenth of its CPU, nearly
// all of it in pwrite), and a pwrite of header and page together costs
// little more than either alone. The VFS wraps the process's default VFS
// and, for log files only, holds a 24-byte write back until the next
// operation on the file: when that is the write of the bytes right after
// it (the frame's page), the two go out as one write; anything else
// writes the held header first, so every read, size, sync or truncation
// sees the file exactly as the plain VFS would have left it. Nothing is
// held once a frame's page is written, so a commit's frames are all in
// the file when SQLite goes on to update the log's index, as before.
//
// The VFS is written against modernc.org/sqlite's C ABI, as its own page
// cache hooks are: SQLite's structures live in memory its allocator owns,
// and Go functions are handed to SQLite as function values.
package walvfs

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Name is the VFS's name, the value of a DSN's vfs parameter.
const Name = "baton-wal"

// headerSize is the size of a log frame's header.
const headerSize = 24

// Register makes the VFS known to SQLite, once per process; a DSN then
// names it. It reports false if SQLite would not take it (out of
// memory), and the DSN should then leave the default VFS in place.
func Register() bool {
	once.Do(register)
	return registered
}

// Coalesced is how many frames the process has written in one call.
func Coalesced() int64 { return coalesced.Load() }

var (
	once       sync.Once
	registered bool
	coalesced  atomic.Int64

	// base is the VFS this one wraps (the process's default at
	// registration), extra the offset of a file's shim state after the
	// base VFS's own file structure.
	base  uintptr
	extra uintptr

	// wrapped maps the io methods of a log file opened by the base VFS
	// to the methods this VFS gives the file instead.
	mu      sync.Mutex
	wrapped = map[uintptr]uintptr{}
)

// shim is what the VFS keeps in a log file's structure, after the base
// VFS's part.
type shim struct {
	methods uintptr // the base VFS's io methods for the file
	held    int32   // a header is held back
	_       int32
	off     int64 // the held header's offset
	header  [headerSize]byte
	buf     uintptr // header and page, assembled for one write
	bufSize int64
}

func register() {
	tls := libc.NewTLS()
	defer tls.Close()
	base = sqlite3.Xsqlite3_vfs_find(tls, 0)
	if base == 0 {
		return
	}
	b := (*sqlite3.Tsqlite3_vfs)(ptr(base))
	extra = (uintptr(b.FszOsFile) + 7) &^ 7
	size := unsafe.Sizeof(sqlite3.Tsqlite3_vfs{})
	v := sqlite3.Xsqlite3_malloc64(tls, uint64(size)+uint64(len(Name))+1)
	if v == 0 {
		return
	}
	vfs := (*sqlite3.Tsqlite3_vfs)(ptr(v))
	*vfs = *b
	vfs.FpNext = 0
	vfs.FszOsFile = int32(extra + unsafe.Sizeof(shim{}))
	vfs.FzName = v + size
	copy(unsafe.Slice((*byte)(ptr(vfs.FzName)), len(Name)+1), Name+"\x00")
	vfs.FxOpen = cFunc(xOpen)
	if sqlite3.Xsqlite3_vfs_register(tls, v, 0) != sqlite3.SQLITE_OK {
		sqlite3.Xsqlite3_free(tls, v)
		return
	}
	registered = true
}

// xOpen opens the file through the base VFS and, for a log file, takes
// over the methods that write, read or size it.
func xOpen(tls *libc.TLS, _ uintptr, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	rc := callOpen(tls, (*sqlite3.Tsqlite3_vfs)(ptr(base)).FxOpen, base, zName, pFile, flags, pOutFlags)
	f := (*sqlite3.Tsqlite3_file)(ptr(pFile))
	if rc != sqlite3.SQLITE_OK || flags&sqlite3.SQLITE_OPEN_WAL == 0 || f.FpMethods == 0 {
		return rc
	}
	m := methodsFor(tls, f.FpMethods)
	if m == 0 {
		return rc // out of memory: the file keeps the base VFS's methods
	}
	*stateOf(pFile) = shim{methods: f.FpMethods}
	f.FpMethods = m
	return rc
}

// methodsFor is this VFS's copy of the base VFS's io methods at bm, with
// the methods that touch the file's bytes wrapped.
func methodsFor(tls *libc.TLS, bm uintptr) uintptr {
	mu.Lock()
	defer mu.Unlock()
	if m, ok := wrapped[bm]; ok {
		return m
	}
	m := sqlite3.Xsqlite3_malloc64(tls, uint64(unsafe.Sizeof(sqlite3.Tsqlite3_io_methods{})))
	if m == 0 {
		return 0
	}
	w := (*sqlite3.Tsqlite3_io_methods)(ptr(m))
	*w = *(*sqlite3.Tsqlite3_io_methods)(ptr(bm))
	w.FxClose = cFunc(xClose)
	w.FxRead = cFunc(xRead)
	w.FxWrite = cFunc(xWrite)
	w.FxTruncate = cFunc(xTruncate)
	w.FxSync = cFunc(xSync)
	w.FxFileSize = cFunc(xFileSize)
	w.FxFileControl = cFunc(xFileControl)
	if w.FiVersion >= 3 && w.FxFetch != 0 {
		w.FxFetch = cFunc(xFetch)
	}
	wrapped[bm] = m
	return m
}

func stateOf(pFile uintptr) *shim { return (*shim)(ptr(pFile + extra)) }

func baseMethods(pFile uintptr) *sqlite3.Tsqlite3_io_methods {
	return (*sqlite3.Tsqlite3_io_methods)(ptr(stateOf(pFile).methods))
}

// flush writes a held header.
func flush(tls *libc.TLS, pFile uintptr) int32 {
	s := stateOf(pFile)
	if s.held == 0 {
		return sqlite3.SQLITE_OK
	}
	s.held = 0
	return callReadWrite(tls, baseMethods(pFile).FxWrite, pFile, uintptr(unsafe.Pointer(&s.header[0])), headerSize, s.off)
}

func xWrite(tls *libc.TLS, pFile, buf uintptr, amt int32, off int64) int32 {
	s := stateOf(pFile)
	if s.held != 0 && off == s.off+headerSize && assemble(tls, s, buf, amt) {
		s.held = 0
		coalesced.Add(1)
		return callReadWrite(tls, baseMethods(pFile).FxWrite, pFile, s.buf, headerSize+amt, s.off)
	}
	// A held header no page follows (or no room to assemble the frame):
	// the header goes out first, as SQLite wrote it.
	if rc := flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	if amt == headerSize {
		s.header = *(*[headerSize]byte)(ptr(buf))
		s.off, s.held = off, 1
		return sqlite3.SQLITE_OK
	}
	return callReadWrite(tls, baseMethods(pFile).FxWrite, pFile, buf, amt, off)
}

// assemble puts the held header and the amt bytes at buf after it in
// s.buf, growing it as needed; false if it cannot grow.
func assemble(tls *libc.TLS, s *shim, buf uintptr, amt int32) bool {
	n := int64(headerSize) + int64(amt)
	if s.bufSize < n {
		p := sqlite3.Xsqlite3_realloc64(tls, s.buf, uint64(n))
		if p == 0 {
			return false
		}
		s.buf, s.bufSize = p, n
	}
	frame := unsafe.Slice((*byte)(ptr(s.buf)), n)
	copy(frame, s.header[:])
	copy(frame[headerSize:], unsafe.Slice((*byte)(ptr(buf)), amt))
	return true
}

func xClose(tls *libc.TLS, pFile uintptr) int32 {
	rc := flush(tls, pFile)
	s := stateOf(pFile)
	m := baseMethods(pFile)
	if s.buf != 0 {
		sqlite3.Xsqlite3_free(tls, s.buf)
		s.buf, s.bufSize = 0, 0
	}
	// The base VFS closes the file whatever happened to the header; its
	// error, if any, is the one SQLite hears.
	if crc := callFile(tls, m.FxClose, pFile); crc != sqlite3.SQLITE_OK {
		return crc
	}
	return rc
}

func xRead(tls *libc.TLS, pFile, buf uintptr, amt int32, off int64) int32 {
	if rc := flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return callReadWrite(tls, baseMethods(pFile).FxRead, pFile, buf, amt, off)
}

func xTruncate(tls *libc.TLS, pFile uintptr, size int64) int32 {
	if rc := flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return callTruncate(tls, baseMethods(pFile).FxTruncate, pFile, size)
}

func xSync(tls *libc.TLS, pFile uintptr, flags int32) int32 {
	if rc := flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return callFileInt(tls, baseMethods(pFile).FxSync, pFile, flags)
}

func xFileSize(tls *libc.TLS, pFile, pSize uintptr) int32 {
	if rc := flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return callFilePtr(tls, baseMethods(pFile).FxFileSize, pFile, pSize)
}

func xFileControl(tls *libc.TLS, pFile uintptr, op int32, pArg uintptr) int32 {
	if rc := flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return callFileControl(tls, baseMethods(pFile).FxFileControl, pFile, op, pArg)
}

func xFetch(tls *libc.TLS, pFile uintptr, off int64, amt int32, pp uintptr) int32 {
	if rc := flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return callFetch(tls, baseMethods(pFile).FxFetch, pFile, off, amt, pp)
}

// ptr is the memory at address a: memory SQLite's allocator owns, which
// Go's collector neither moves nor frees. (Read through a pointer to a
// so that vet's check of integer-to-pointer conversions, meant for Go
// memory, does not apply.)
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// cFunc is f as SQLite's C ABI holds a function pointer: the Go function
// value itself, as modernc.org/sqlite hands its own hooks over. f must be
// a top-level function, whose value does not move.
func cFunc[T any](f T) uintptr { return *(*uintptr)(unsafe.Pointer(&struct{ f T }{f})) }

// The call* helpers call a function pointer SQLite holds, with its
// signature.

func callOpen(tls *libc.TLS, fp, vfs, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	return (*(*func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32)(unsafe.Pointer(&fp)))(tls, vfs, zName, pFile, flags, pOutFlags)
}

func callFile(tls *libc.TLS, fp, pFile uintptr) int32 {
	return (*(*func(*libc.TLS, uintptr) int32)(unsafe.Pointer(&fp)))(tls, pFile)
}

func callReadWrite(tls *libc.TLS, fp, pFile, buf uintptr, amt int32, off int64) int32 {
	return (*(*func(*libc.TLS, uintptr, uintptr, int32, int64) int32)(unsafe.Pointer(&fp)))(tls, pFile, buf, amt, off)
}

func callTruncate(tls *libc.TLS, fp, pFile uintptr, size int64) int32 {
	return (*(*func(*libc.TLS, uintptr, int64) int32)(unsafe.Pointer(&fp)))(tls, pFile, size)
}

func callFileInt(tls *libc.TLS, fp, pFile uintptr, n int32) int32 {
	return (*(*func(*libc.TLS, uintptr, int32) int32)(unsafe.Pointer(&fp)))(tls, pFile, n)
}

func callFilePtr(tls *libc.TLS, fp, pFile, p uintptr) int32 {
	return (*(*func(*libc.TLS, uintptr, uintptr) int32)(unsafe.Pointer(&fp)))(tls, pFile, p)
}

func callFileControl(tls *libc.TLS, fp, pFile uintptr, op int32, pArg uintptr) int32 {
	return (*(*func(*libc.TLS, uintptr, int32, uintptr) int32)(unsafe.Pointer(&fp)))(tls, pFile, op, pArg)
}

func callFetch(tls *libc.TLS, fp, pFile uintptr, off int64, amt int32, pp uintptr) int32 {
	return (*(*func(*libc.TLS, uintptr, int64, int32, uintptr) int32)(unsafe.Pointer(&fp)))(tls, pFile, off, amt, pp)
}
