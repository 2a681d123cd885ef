package tool_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

type recIn struct {
	TaskID string         `json:"task_id,omitempty" jsonschema:"An item."`
	Text   string         `json:"text" jsonschema:"Some text."`
	Meta   map[string]any `json:"meta,omitempty" jsonschema:"Free metadata."`
	Move   string         `json:"move,omitempty" jsonschema:"A project to move the item to."`
	Create string         `json:"create,omitempty" jsonschema:"A project to create an item in."`
	Fail   bool           `json:"fail,omitempty" jsonschema:"Fail after writing."`
}

type recOut struct {
	TaskID string         `json:"task_id" jsonschema:"An item."`
	Text   string         `json:"text" jsonschema:"Some text."`
	Big    int64          `json:"big" jsonschema:"A large number."`
	Ratio  float64        `json:"ratio" jsonschema:"A fraction."`
	Meta   map[string]any `json:"meta" jsonschema:"Free metadata."`
}

// recTool writes through the pipeline as real tools do: it creates or
// moves an item when asked, and names an item in its output.
func recTool(seen *recIn) tool.Tool {
	return tool.New(tool.Definition[recIn, recOut]{
		Name: "rec", Toolset: "test", Description: "A tool that writes.", Event: "test.rec",
		Execute: func(ctx context.Context, c *tool.Call, in recIn) (recOut, error) {
			*seen = in
			out := recOut{TaskID: in.TaskID, Text: in.Text + " <&> ✓ \u2028", Big: 1 << 60, Ratio: 0.1, Meta: in.Meta}
			if out.Meta == nil {
				out.Meta = map[string]any{}
			}
			switch {
			case in.Create != "":
				it := &baton.Item{Project: in.Create, Title: in.Text, Status: baton.StatusBacklog, CreatedBy: c.Principal.Agent}
				if err := c.Tx.CreateItem(ctx, it); err != nil {
					return recOut{}, err
				}
				out.TaskID = it.ID
			case in.Move != "":
				if _, err := c.Tx.Item(ctx, in.TaskID); err != nil {
					return recOut{}, err
				}
				moved, err := c.Tx.MoveItem(ctx, in.TaskID, in.Move)
				if err != nil {
					return recOut{}, err
				}
				out.TaskID = moved.ID
			}
			if in.Fail {
				return recOut{}, baton.Errorf(baton.ErrConflict, "asked to fail")
			}
			return out, nil
		},
	})
}

func lastAction(t *testing.T, k *testkit.Kit) *baton.Action {
	t.Helper()
	var as []*baton.Action
	if err := k.Store.View(context.Background(), func(tx baton.Tx) (err error) {
		as, err = tx.RecentActions(context.Background(), "", 1)
		return err
	}); err != nil || len(as) != 1 {
		t.Fatalf("actions: %v, %v", as, err)
	}
	return as[0]
}

func lastEvent(t *testing.T, k *testkit.Kit, project string) *baton.Event {
	t.Helper()
	var es []*baton.Event
	if err := k.Store.View(context.Background(), func(tx baton.Tx) (err error) {
		es, err = tx.Events(context.Background(), project, 0, 0)
		return err
	}); err != nil || len(es) == 0 {
		t.Fatalf("events of %q: %v, %v", project, es, err)
	}
	return es[len(es)-1]
}

// TestRecordUsesOneEncoding: the output is marshalled once, and what the
// action log, the event and the caller get from those bytes is what each
// got when it marshalled the values itself: the digests are audit.Digest
// of the typed input and output, the event's data and the result's JSON
// are json.Marshal of the output.
func TestRecordUsesOneEncoding(t *testing.T) {
	k := testkit.New(t)
	ctx := context.Background()
	var seen recIn
	reg := tool.NewRegistry(recTool(&seen))
	id := k.OK("task_create", map[string]any{"title": "subject", "project": testkit.Project})["task_id"].(string)
	args := `{"task_id":"` + id + `","text":"héllo <b> & \"q\"","meta":{"n":12345678901234567890,"f":1.50,"z":[true,null,{}],"a":"\u2029"}}`
	res := reg.Call(ctx, k.Env, k.Principal, "rec", json.RawMessage(args))
	if res.Err != nil {
		t.Fatal(res.Text)
	}
	out := res.Output.(recOut)
	want, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.JSON) != string(want) || res.Text != string(want) {
		t.Errorf("result JSON %s, text %s; want %s", res.JSON, res.Text, want)
	}
	a := lastAction(t, k)
	inDigest, _ := audit.Digest(seen)
	outDigest, _ := audit.Digest(out)
	if a.Tool != "rec" || a.Subject != id || a.InputDigest != inDigest || a.ResultDigest != outDigest {
		t.Errorf("action %+v; want subject %s, digests %s %s", a, id, inDigest, outDigest)
	}
	e := lastEvent(t, k, testkit.Project)
	if e.Type != "test.rec" || e.Subject != id || string(e.Data) != string(want) {
		t.Errorf("event %s %s %s; want test.rec %s %s", e.Type, e.Subject, e.Data, id, want)
	}
	// The chain still verifies with the digests written this way.
	var links []audit.Link
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		as, err := tx.Actions(ctx, 0, 0)
		for _, a := range as {
			links = append(links, audit.Link{Position: a.Position, Stored: a.Hash, PreviousHash: a.PreviousHash, Computed: audit.ActionOf(a).Hash()})
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if broken := audit.Verify(links); len(broken) > 0 || len(links) < 2 {
		t.Errorf("chain of %d: %+v", len(links), broken)
	}
}

// TestEventProjectOfSubject: a call's event joins its subject's project
// whether the call created the item (remembered), moved it (forgotten:
// the move changed its project), never read it (read for the event) or
// claimed it (remembered).
func TestEventProjectOfSubject(t *testing.T) {
	k := testkit.New(t)
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: "other", Prefix: "OTH"})
	}); err != nil {
		t.Fatal(err)
	}
	var seen recIn
	reg := tool.NewRegistry(recTool(&seen))
	call := func(args string) recOut {
		t.Helper()
		res := reg.Call(ctx, k.Env, k.Principal, "rec", json.RawMessage(args))
		if res.Err != nil {
			t.Fatal(res.Text)
		}
		return res.Output.(recOut)
	}

	created := call(`{"text":"new","create":"other"}`).TaskID
	if e := lastEvent(t, k, "other"); e.Subject != created {
		t.Errorf("the create's event is %q in other, want %q", e.Subject, created)
	}

	id := k.OK("task_create", map[string]any{"title": "mover", "project": testkit.Project})["task_id"].(string)
	moved := call(`{"task_id":"` + id + `","text":"move","move":"other"}`).TaskID
	// The input names the old id, which now leads to the item in other.
	if e := lastEvent(t, k, "other"); e.Subject != id || e.Type != "test.rec" {
		t.Errorf("the move's event is %s %q in other, want test.rec %q (now %s)", e.Type, e.Subject, id, moved)
	}

	call(`{"task_id":"` + created + `","text":"untouched"}`)
	if e := lastEvent(t, k, "other"); e.Subject != created || !json.Valid(e.Data) {
		t.Errorf("the event of a call that never read its item is %q in other, want %q", e.Subject, created)
	}

	// A claim remembers the item it claimed: its event joins that item's
	// project, not the session's.
	ready := k.StoreItem(&baton.Item{Project: "other", Title: "ready"})
	if got := k.OK("claim_next", map[string]any{"project": "other"}); got["item_id"] != ready {
		t.Fatalf("claim_next in other: %v, want %s", got, ready)
	}
	if e := lastEvent(t, k, "other"); e.Subject != ready {
		t.Errorf("the claim's event is %s %q in other, want %q", e.Type, e.Subject, ready)
	}
}

// TestPresenceWithinWindow: a write records its agent (first and last
// seen); further writes within the window leave last_seen where it was,
// one after it moves it on; a write that rolled back is not taken as
// having recorded anything.
func TestPresenceWithinWindow(t *testing.T) {
	k := testkit.New(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := k.UseClock(testkit.NewClock(t0, 0))
	var seen recIn
	reg := tool.NewRegistry(recTool(&seen))
	agent := func(name string) *baton.AgentState {
		t.Helper()
		var a *baton.AgentState
		if err := k.Store.View(ctx, func(tx baton.Tx) (err error) { a, err = tx.Agent(ctx, name); return err }); err != nil {
			t.Fatalf("agent %s: %v", name, err)
		}
		return a
	}
	call := func(p baton.Principal, args string) *baton.Error {
		return reg.Call(ctx, k.Env, p, "rec", json.RawMessage(args)).Err
	}
	bob := baton.Principal{Agent: "agent-bob", Source: baton.SourceTest}
	if err := call(bob, `{"text":"x"}`); err != nil {
		t.Fatal(err)
	}
	if a := agent("agent-bob"); !a.FirstSeen.Equal(t0) || !a.LastSeen.Equal(t0) {
		t.Fatalf("first/last seen %v/%v, want %v", a.FirstSeen, a.LastSeen, t0)
	}
	clock.Advance(time.Second)
	if err := call(bob, `{"text":"x"}`); err != nil {
		t.Fatal(err)
	}
	if a := agent("agent-bob"); !a.LastSeen.Equal(t0) {
		t.Errorf("last seen %v within the window, want it left at %v", a.LastSeen, t0)
	}
	later := clock.Advance(5 * time.Second)
	if err := call(bob, `{"text":"x"}`); err != nil {
		t.Fatal(err)
	}
	if a := agent("agent-bob"); !a.LastSeen.Equal(later) || !a.FirstSeen.Equal(t0) {
		t.Errorf("first/last seen %v/%v after the window, want %v/%v", a.FirstSeen, a.LastSeen, t0, later)
	}

	// carol's first write fails: nothing of it stays, and her next write
	// records her.
	carol := baton.Principal{Agent: "agent-carol", Source: baton.SourceTest}
	if err := call(carol, `{"text":"x","create":"`+testkit.Project+`","fail":true}`); err == nil {
		t.Fatal("the failing call succeeded")
	}
	if err := call(carol, `{"text":"x"}`); err != nil {
		t.Fatal(err)
	}
	if a := agent("agent-carol"); !a.LastSeen.Equal(later) {
		t.Errorf("carol last seen %v, want %v", a.LastSeen, later)
	}
}
