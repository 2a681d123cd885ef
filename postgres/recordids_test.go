package postgres_test

import (
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/storetest"
)

func TestRecordIDs(t *testing.T) {
	t.Parallel()
	storetest.RecordIDs(t, func(t *testing.T) baton.Store { return testkit.OpenPostgres(t, nil) })
}
