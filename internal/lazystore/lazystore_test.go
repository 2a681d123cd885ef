package lazystore_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/lazystore"
	"github.com/baton-dev/baton/sqlite"
)

// Calls wait for the store to open; Info does not, and says whether it is.
func TestCallsWaitForTheStore(t *testing.T) {
	path := t.TempDir() + "/lazy.db"
	release := make(chan struct{})
	l := lazystore.Open(baton.StoreInfo{Driver: "sqlite", Path: path}, func() (baton.Store, error) {
		<-release
		return sqlite.Open(context.Background(), path, sqlite.Options{})
	})
	var opened sync.Once
	open := func() { opened.Do(func() { close(release) }) }
	defer l.Close()
	defer open() // before Close, which waits for the opening: a failed check must not hang the test
	if info := l.Info(context.Background()); info.Open || info.Driver != "sqlite" || info.Path != path {
		t.Fatalf("info while opening: %+v", info)
	}
	// A call whose deadline passes first gets the retryable busy error, as
	// one that waited for the writer would.
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := l.View(short, func(baton.Tx) error { return nil })
	if baton.ErrorCode(err) != baton.ErrRateLimited {
		t.Fatalf("view before open: %v (code %s), want %s", err, baton.ErrorCode(err), baton.ErrRateLimited)
	}
	done := make(chan error, 1)
	go func() {
		done <- l.Update(context.Background(), func(tx baton.Tx) error {
			return tx.CreateProject(context.Background(), &baton.Project{Slug: "p", Name: "P", Prefix: "P"})
		})
	}()
	select {
	case err := <-done:
		t.Fatalf("update ran before the store opened: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	open()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := l.View(context.Background(), func(tx baton.Tx) error {
		_, err := tx.Project(context.Background(), "p")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if info := l.Info(context.Background()); !info.Open {
		t.Errorf("info once open: %+v", info)
	}
}

// A store that fails to open fails every call with that error, structured.
func TestOpenErrorReachesCalls(t *testing.T) {
	l := lazystore.Open(baton.StoreInfo{Driver: "sqlite", Path: "x"}, func() (baton.Store, error) {
		return nil, errors.New("disk on fire")
	})
	err := l.Update(context.Background(), func(baton.Tx) error { return nil })
	if e := baton.AsError(err); e.Code != baton.ErrInitFailed || e.Message != "the database did not open: disk on fire" {
		t.Fatalf("update: %v", err)
	}
	mine := baton.Errorf(baton.ErrConfigInvalid, "bad path")
	l = lazystore.Open(baton.StoreInfo{}, func() (baton.Store, error) { return nil, mine })
	if err := l.View(context.Background(), func(baton.Tx) error { return nil }); !errors.Is(err, mine) {
		t.Fatalf("view: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}
