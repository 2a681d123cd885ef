package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/storetest"
)

func TestRecordIDs(t *testing.T) {
	storetest.RecordIDs(t, func(t *testing.T) baton.Store { return open(t, filepath.Join(t.TempDir(), "baton.db")) })
}
