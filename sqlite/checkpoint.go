package sqlite

import (
	"database/sql"
	"database/sql/driver"
	"sync"
	"sync/atomic"
	"time"
)

// The writer's own checkpoint (wal_autocheckpoint, see DSN) copies every
// page the log holds into the database file and syncs both files, all
// while it holds the writer: at the bench's paced 2,000 calls/s that was a
// 14–25 ms stall about five times a second, every write queued behind it,
// and the run's p99 latency. The checkpointer copies the log in the
// background instead, on a connection of its own, beside the writer and
// the readers (a PASSIVE checkpoint takes no lock either waits for). When the
// writer's checkpoint comes due it finds all but the last few pages
// copied, and its work shrinks to those and the two syncs.
//
// The writer's checkpoint stays: the log starts again from its beginning
// only when a write transaction begins with every page copied, which the
// background checkpoint, racing a writer that keeps committing, never
// leaves behind; without the writer's the log would grow without end. It
// is also the fallback should the checkpointer fall behind or fail.

// Defaults of the checkpointer.
const (
	// checkpointEvery is how many writes committed start a background
	// checkpoint. Alone a write adds about ten pages to the log, and fewer
	// in a batch (the batch's writes share pages), so the log holds a few
	// hundred pages not yet copied when the writer's checkpoint
	// (WALCheckpointPages) comes due.
	checkpointEvery = 64
	// checkpointGap is the least time between two: each syncs both files,
	// and a hot page copied once serves all its changes since.
	checkpointGap = 50 * time.Millisecond
)

// checkpointer runs PASSIVE checkpoints on its own connection each time the
// writer has committed checkpointEvery more writes. Its goroutine and
// connection start at the first checkpoint: a process that writes little
// (`baton mcp` starting, a CLI command) never pays for them.
type checkpointer struct {
	connector driver.Connector // a reader's: a checkpoint changes no data
	db        *sql.DB          // opened by loop, closed by close after it
	writes    atomic.Int64
	kick      chan struct{} // one slot: kicks while one runs fold into one
	stop      chan struct{}
	done      chan struct{}
	started   sync.Once // loop running, or never to run
	stopped   sync.Once
	// runs counts the checkpoints that copied what the log held when they
	// began (tests).
	runs atomic.Int64
}

func newCheckpointer(connector driver.Connector) *checkpointer {
	return &checkpointer{connector: connector, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// committed counts a commit of n writes; it never blocks.
func (c *checkpointer) committed(n int) {
	after := c.writes.Add(int64(n))
	if (after-int64(n))/checkpointEvery == after/checkpointEvery {
		return
	}
	c.started.Do(func() { go c.loop() })
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) loop() {
	defer close(c.done)
	c.db = sql.OpenDB(c.connector)
	c.db.SetMaxOpenConns(1)
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
		}
		// busy is 1 when another checkpoint (the writer's, another
		// process's) holds the log; the next kick tries again. An error
		// leaves the writer's own checkpoint to do the work.
		var busy, log, copied int
		if err := c.db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &copied); err == nil && busy == 0 && copied == log {
			c.runs.Add(1)
		}
		select {
		case <-c.stop:
			return
		case <-time.After(checkpointGap):
		}
	}
}

// close stops the loop, waiting for a checkpoint under way, and closes the
// connection; a loop not started by then never starts.
func (c *checkpointer) close() error {
	c.stopped.Do(func() { close(c.stop) })
	c.started.Do(func() { close(c.done) })
	<-c.done
	if c.db == nil {
		return nil
	}
	return c.db.Close()
}
