package audit

import (
	"context"
	"log/slog"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tlog"
)

// DefaultPoll is how often a Checkpointer looks at the log's size.
const DefaultPoll = 5 * time.Second

// Checkpointer signs a checkpoint of the action log while baton serve
// runs: every Every when the log grew, and as soon as Records new records
// are in, each handed to the Witness. Several replicas can each run one:
// a checkpoint of a size stored already is kept, and Ed25519 signs the
// same size and root into the same note.
type Checkpointer struct {
	Store   baton.Store
	Key     *tlog.Key
	Every   time.Duration
	Records int
	Witness tlog.Witness
	Poll    time.Duration
	Clock   func() time.Time
	Log     *slog.Logger
}

// Run checkpoints until ctx ends.
func (c *Checkpointer) Run(ctx context.Context) {
	poll := c.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	var size int64 = -1 // unknown until the first look
	var at time.Time
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		head, err := c.head(ctx)
		now := c.now()
		switch {
		case err != nil:
			if ctx.Err() == nil {
				c.log().Warn("audit checkpoint: reading the log's size", "err", err)
			}
		case size < 0 && head == 0:
			size, at = 0, now // nothing to sign yet
		case size < 0 || head-size >= int64(c.Records) || (head > size && now.Sub(at) >= c.Every):
			if cp, _, err := c.Once(ctx); err != nil {
				if ctx.Err() == nil {
					c.log().Error("audit checkpoint", "err", err)
				}
				size, at = head, now // try again after as many records, or as long
			} else {
				size, at = cp.Size, now
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Once signs a checkpoint of the log as it is now (unless the latest
// covers it) and gives a new one to the witness.
func (c *Checkpointer) Once(ctx context.Context) (*baton.Checkpoint, bool, error) {
	cp, made, err := MakeCheckpoint(ctx, c.Store, c.Key, c.now())
	if err != nil || !c.Witness.Enabled() {
		return cp, made, err
	}
	// The latest checkpoint goes to the witness even when it is not new:
	// one whose witness write failed gets there on the next try (Add
	// skips a note the witness holds already).
	return cp, made, GiveWitness(ctx, c.Witness, cp.Note)
}

// GiveWitness gives a signed checkpoint note to the witness; a failure is
// the [audit] configuration's to fix.
func GiveWitness(ctx context.Context, w tlog.Witness, note string) error {
	parsed, err := tlog.Parse([]byte(note))
	if err != nil {
		return err
	}
	if err := w.Add(ctx, parsed); err != nil {
		return baton.Errorf(baton.ErrConfigInvalid, "the checkpoint is signed and stored, but the witness did not take it: %v", err).
			WithHint("fix witness_file or witness_git in [audit] of baton.toml (the directory must be writable); the next checkpoint gives the witness this one too")
	}
	return nil
}

func (c *Checkpointer) head(ctx context.Context) (int64, error) {
	var head int64
	err := c.Store.View(ctx, func(tx baton.Tx) error {
		acts, err := tx.RecentActions(ctx, "", 1)
		if err == nil && len(acts) == 1 {
			head = acts[0].Position
		}
		return err
	})
	return head, err
}

func (c *Checkpointer) now() time.Time {
	if c.Clock != nil {
		return c.Clock()
	}
	return time.Now()
}

func (c *Checkpointer) log() *slog.Logger {
	if c.Log != nil {
		return c.Log
	}
	return slog.Default()
}
