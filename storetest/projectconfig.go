package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// The project configuration group (baton.ProjectConfigTx) and the phase
// model as the store keeps it: one phase label per item, pre-ready items
// out of ClaimNext.

var projectConfigCases = []testCase{
	{"DefaultsBeforeConfigured", testConfigDefaults},
	{"VersionsAppend", testConfigVersions},
	{"RoundTrip", testConfigRoundTrip},
	{"PerProject", testConfigPerProject},
	{"UnknownProject", testConfigUnknownProject},
	{"InvalidRefusedAndNothingStored", testConfigInvalid},
	{"FailedTxChangesNothing", testConfigTxRollsBack},
	{"ConcurrentPutsGetEveryVersion", testConfigConcurrent},
}

var phaseCases = []testCase{
	{"OnePhaseLabelPerItem", testPhaseOneLabel},
	{"ClaimNextSkipsPreReady", testPhaseClaimNext},
	{"ClaimNextByPhaseLabel", testPhaseClaimNextByLabel},
}

func (e *env) config(project string) *baton.ProjectConfig {
	e.t.Helper()
	var c *baton.ProjectConfig
	e.view(func(tx baton.Tx) (err error) { c, err = tx.ProjectConfig(e.ctx, project); return err })
	return c
}

func (e *env) history(project string) []*baton.ProjectConfig {
	e.t.Helper()
	var cs []*baton.ProjectConfig
	e.view(func(tx baton.Tx) (err error) { cs, err = tx.ProjectConfigHistory(e.ctx, project); return err })
	return cs
}

func (e *env) putConfig(c *baton.ProjectConfig) *baton.ProjectConfig {
	e.t.Helper()
	var stored baton.ProjectConfig
	e.update(func(tx baton.Tx) error {
		cp := c.Clone()
		if err := tx.PutProjectConfig(e.ctx, cp); err != nil {
			return err
		}
		stored = *cp
		return nil
	})
	return &stored
}

func testConfigDefaults(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	got := e.config("alpha")
	want := baton.DefaultProjectConfig("alpha")
	if got.Version != 0 || !got.SameSettings(want) || got.Project != "alpha" || !got.UpdatedAt.IsZero() {
		t.Fatalf("config of a project never configured = %+v, want the defaults", got)
	}
	if h := e.history("alpha"); len(h) != 0 || h == nil {
		t.Errorf("history = %#v, want empty", h)
	}
}

func testConfigVersions(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	c := baton.DefaultProjectConfig("alpha")
	c.UpdatedBy, c.UpdatedAt = "user", at(1)
	c.WorkerInstructions = "first"
	if s := e.putConfig(c); s.Version != 1 {
		t.Fatalf("first version = %d", s.Version)
	}
	c.WorkerInstructions, c.UpdatedAt = "second", at(2)
	if s := e.putConfig(c); s.Version != 2 {
		t.Fatalf("second version = %d", s.Version)
	}
	if got := e.config("alpha"); got.Version != 2 || got.WorkerInstructions != "second" || !got.UpdatedAt.Equal(at(2)) {
		t.Errorf("latest = %+v", got)
	}
	h := e.history("alpha")
	if len(h) != 2 || h[0].Version != 2 || h[1].Version != 1 || h[1].WorkerInstructions != "first" {
		t.Errorf("history = %+v", h)
	}
}

func testConfigRoundTrip(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	c := &baton.ProjectConfig{Project: "alpha", ProjectSettings: baton.ProjectSettings{
		Gates:              []baton.Gate{{Command: "go test ./...", Label: "Tests", Required: true}, {Command: "golangci-lint run", Label: "Lint"}},
		SensitivePaths:     []string{"server/database/*", ".env*"},
		RiskThresholds:     baton.RiskThresholds{LowLines: 50, HighLines: 500, LowFiles: 3, HighFiles: 15},
		WorkerInstructions: "Run the tests — all of them.\nTwice.", JudgeInstructions: "Be strict about \"naming\".",
	}, UpdatedBy: "agent-alice", UpdatedAt: at(7).Add(123 * time.Millisecond)}
	e.putConfig(c)
	got := e.config("alpha")
	if !got.SameSettings(c) || got.UpdatedBy != "agent-alice" || !got.UpdatedAt.Equal(c.UpdatedAt) || got.Version != 1 {
		t.Fatalf("round trip = %+v, want %+v", got, c)
	}
	// A configuration with empty lists keeps them empty, not defaults.
	c.Gates, c.SensitivePaths = nil, []string{}
	e.putConfig(c)
	got = e.config("alpha")
	if got.Gates == nil || len(got.Gates) != 0 || got.SensitivePaths == nil || len(got.SensitivePaths) != 0 {
		t.Errorf("cleared lists = %#v, %#v", got.Gates, got.SensitivePaths)
	}
	// PutProjectConfig stamps the time when the caller leaves it out.
	c.UpdatedAt = time.Time{}
	c.JudgeInstructions = "third"
	if s := e.putConfig(c); s.UpdatedAt.IsZero() || s.Version != 3 {
		t.Errorf("stamped = %+v", s)
	}
}

func testConfigPerProject(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.project("beta", "BET")
	c := baton.DefaultProjectConfig("alpha")
	c.JudgeInstructions = "alpha only"
	e.putConfig(c)
	e.putConfig(c)
	if b := e.config("beta"); b.Version != 0 || b.JudgeInstructions != "" {
		t.Errorf("beta = %+v, want untouched defaults", b)
	}
	c = baton.DefaultProjectConfig("beta")
	if s := e.putConfig(c); s.Version != 1 {
		t.Errorf("beta's first version = %d, want 1: versions count per project", s.Version)
	}
}

func testConfigUnknownProject(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	for name, fn := range map[string]func(tx baton.Tx) error{
		"ProjectConfig":        func(tx baton.Tx) error { _, err := tx.ProjectConfig(e.ctx, "nope"); return err },
		"ProjectConfigHistory": func(tx baton.Tx) error { _, err := tx.ProjectConfigHistory(e.ctx, "nope"); return err },
		"PutProjectConfig":     func(tx baton.Tx) error { return tx.PutProjectConfig(e.ctx, baton.DefaultProjectConfig("nope")) },
	} {
		if err := e.tryUpdate(fn); baton.ErrorCode(err) != baton.ErrProjectNotFound {
			t.Errorf("%s(nope) = %v, want %s", name, err, baton.ErrProjectNotFound)
		}
	}
}

func testConfigInvalid(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	c := baton.DefaultProjectConfig("alpha")
	c.RiskThresholds.LowLines = 200
	err := e.tryUpdate(func(tx baton.Tx) error { return tx.PutProjectConfig(e.ctx, c.Clone()) })
	if baton.ErrorCode(err) != baton.ErrConfigInvalid {
		t.Fatalf("PutProjectConfig(lowLines > highLines) = %v, want %s", err, baton.ErrConfigInvalid)
	}
	if got := e.config("alpha"); got.Version != 0 {
		t.Errorf("a refused configuration was stored: %+v", got)
	}
}

func testConfigTxRollsBack(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	err := e.tryUpdate(func(tx baton.Tx) error {
		if err := tx.PutProjectConfig(e.ctx, baton.DefaultProjectConfig("alpha")); err != nil {
			return err
		}
		return errBoom
	})
	if err == nil {
		t.Fatal("the failing transaction succeeded")
	}
	if h := e.history("alpha"); len(h) != 0 {
		t.Errorf("history after a rolled-back put = %+v", h)
	}
}

// Writers racing to configure one project each get their own version,
// numbered without gaps.
func testConfigConcurrent(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	const n = 8
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := baton.DefaultProjectConfig("alpha")
			c.WorkerInstructions = fmt.Sprintf("writer %d", i)
			errs <- e.s.Update(e.ctx, func(tx baton.Tx) error { return tx.PutProjectConfig(e.ctx, c.Clone()) })
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent PutProjectConfig: %v", err)
		}
	}
	h := e.history("alpha")
	seen := map[string]bool{}
	for i, c := range h {
		if c.Version != int64(n-i) {
			t.Errorf("history[%d].Version = %d, want %d", i, c.Version, n-i)
		}
		seen[c.WorkerInstructions] = true
	}
	if len(h) != n || len(seen) != n {
		t.Errorf("history holds %d versions from %d writers, want %d", len(h), len(seen), n)
	}
}

// No write leaves an item in two phases, whichever way it comes.
func testPhaseOneLabel(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	it := newItem("alpha", "two phases")
	it.Labels = []string{"phase:research", "phase:ready"}
	if err := e.tryCreate(it); baton.ErrorCode(err) != baton.ErrInvalidInput {
		t.Fatalf("CreateItem with two phase labels = %v, want %s", err, baton.ErrInvalidInput)
	}
	it = newItem("alpha", "one phase")
	it.Labels = []string{"phase:research", "x", "phase:research"}
	e.create(it)
	if got := e.get(it.ID).Labels; !slices.Equal(got, []string{"phase:research", "x"}) {
		t.Errorf("labels = %v", got)
	}
	bad := e.get(it.ID)
	bad.Labels = append(bad.Labels, "phase:grooming")
	if err := e.tryUpdate(func(tx baton.Tx) error { return tx.UpdateItem(e.ctx, bad) }); baton.ErrorCode(err) != baton.ErrInvalidInput {
		t.Fatalf("UpdateItem adding a second phase = %v, want %s", err, baton.ErrInvalidInput)
	}
	// Swapping the phase label (what the orchestrator does) is one write.
	next := e.get(it.ID)
	next.Labels = baton.WithPhase(next.Labels, baton.PhaseArchitecture)
	e.put(next)
	if got := e.get(it.ID); got.Phase() != baton.PhaseArchitecture || !slices.Equal(got.Labels, []string{"phase:architecture", "x"}) {
		t.Errorf("after the swap: %v", got.Labels)
	}
}

// Items in a phase before ready are not claimed as ready work and are not
// Ready in the queue; an item without a phase label, or in phase:ready, is.
func testPhaseClaimNext(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	var ids []string
	for i, labels := range [][]string{{"phase:research"}, {"phase:architecture"}, {"phase:grooming"}, {"phase:custom"},
		{"phase:ready", "ui"}, nil} {
		it := newItem("alpha", "item")
		it.Priority = baton.PriorityCritical // the pre-ready ones are the most urgent and oldest
		it.Labels = labels
		it.CreatedAt = at(i)
		ids = append(ids, e.create(it).ID)
	}
	ready := map[string]bool{}
	for _, r := range e.queue("alpha") {
		ready[r.Item.ID] = r.Ready()
	}
	for i, id := range ids {
		if want := i >= 4; ready[id] != want {
			t.Errorf("%s (%d): Ready() = %v, want %v", id, i, ready[id], want)
		}
	}
	var got []string
	for range 3 {
		var c *baton.Claim
		e.update(func(tx baton.Tx) (err error) {
			c, _, err = tx.ClaimNext(e.ctx, "agent-bob", baton.ClaimNextFilter{Project: "alpha"}, time.Minute, base)
			return err
		})
		if c == nil {
			break
		}
		got = append(got, c.ItemID)
	}
	if !slices.Equal(got, ids[4:]) {
		t.Errorf("ClaimNext took %v, want only %v", got, ids[4:])
	}
	// phase:ready as the label filter is ordinary ready work.
	e.update(func(tx baton.Tx) error {
		c, _, err := tx.ClaimNext(e.ctx, "agent-carol", baton.ClaimNextFilter{Project: "alpha", Label: "phase:ready"}, time.Minute, base)
		if c != nil {
			t.Errorf("phase:ready claimed %s after the ready work was taken", c.ItemID)
		}
		return err
	})
}

// Naming a pre-ready phase's label asks for that phase's work.
func testPhaseClaimNextByLabel(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	research := newItem("alpha", "research me")
	research.Labels = []string{"phase:research"}
	e.create(research)
	grooming := newItem("alpha", "groom me")
	grooming.Labels = []string{"phase:grooming"}
	e.create(grooming)
	var c *baton.Claim
	e.update(func(tx baton.Tx) (err error) {
		c, _, err = tx.ClaimNext(e.ctx, "researcher-1", baton.ClaimNextFilter{Project: "alpha", Label: "phase:research"}, time.Minute, base)
		return err
	})
	if c == nil || c.ItemID != research.ID {
		t.Fatalf("ClaimNext(phase:research) = %+v, want %s", c, research.ID)
	}
	e.update(func(tx baton.Tx) (err error) {
		c, _, err = tx.ClaimNext(e.ctx, "researcher-1", baton.ClaimNextFilter{Project: "alpha", Label: "phase:research"}, time.Minute, base)
		return err
	})
	if c != nil {
		t.Errorf("a second ClaimNext(phase:research) took %s", c.ItemID)
	}
}
