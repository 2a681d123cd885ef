package tasks_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

func TestConcurrentCreates(t *testing.T) {
	k := testkit.New(t)
	const n = 32
	results := make([]tool.Result, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			agent := fmt.Sprintf("agent-%02d", i)
			results[i] = k.As(agent).Call("task_create", fmt.Sprintf(`{"title": "task of %s", "project": "colibri"}`, agent))
		}()
	}
	start.Done()
	done.Wait()

	ids := map[string]int{}
	var seqs []int
	for i, res := range results {
		if res.Err != nil {
			t.Fatalf("call %d failed: %s", i, res.Text)
		}
		out := testkit.Decode(t, res.Output)
		id, seq := out["task_id"].(string), num(t, out["sequence"])
		if want := fmt.Sprintf("COL-%d", seq); id != want {
			t.Errorf("task_id %s does not match sequence %d", id, seq)
		}
		if want := fmt.Sprintf("agent-%02d", i); out["created_by"] != want {
			t.Errorf("call %d: created_by = %v, want %s", i, out["created_by"], want)
		}
		ids[id]++
		seqs = append(seqs, seq)
	}
	if len(ids) != n {
		t.Errorf("%d distinct task ids from %d creates: %v", len(ids), n, ids)
	}
	slices.Sort(seqs)
	for i, s := range seqs {
		if s != i+1 {
			t.Fatalf("sequences = %v, want 1..%d", seqs, n)
		}
	}
	// Every create is stored, each with its own creator.
	out := k.OK("task_list", map[string]any{"limit": 500})
	if num(t, out["total_count"]) != n {
		t.Errorf("total_count = %v, want %d", out["total_count"], n)
	}
	for id := range ids {
		got := get(k, id)
		if got["title"] != "task of "+got["created_by"].(string) {
			t.Errorf("%s: title %v does not belong to its creator %v", id, got["title"], got["created_by"])
		}
	}
	if next := create(k, nil); next != fmt.Sprintf("COL-%d", n+1) {
		t.Errorf("next create = %s, want COL-%d", next, n+1)
	}
}
