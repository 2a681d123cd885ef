package claims_test

import (
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

func TestValidation(t *testing.T) {
	k, _ := newKit(t)
	id := task(k, nil)
	long := strings.Repeat("x", 129)

	// ttl_seconds bounds, on both tools that take it.
	for name, base := range map[string]map[string]any{"claim_item": {"item_id": id}, "claim_next": {}} {
		for ttl, rule := range map[any]string{29: "minimum", 86401: "maximum", 0: "minimum", -30: "minimum", 60.5: "type", "60": "type"} {
			args := map[string]any{"ttl_seconds": ttl}
			for key, v := range base {
				args[key] = v
			}
			invalid(k, name, args, "ttl_seconds", rule)
		}
	}
	// claim_next picks its own item.
	invalid(k, "claim_next", map[string]any{"item_id": id}, "item_id", "additionalProperties")

	for _, name := range []string{"claim_item", "renew_claim", "release_claim"} {
		invalid(k, name, map[string]any{}, "item_id", "required")
		invalid(k, name, map[string]any{"item_id": ""}, "item_id", "minLength")
		invalid(k, name, map[string]any{"item_id": long}, "item_id", "maxLength")
		invalid(k, name, map[string]any{"item_id": 7}, "item_id", "type")
		// 128 characters pass validation and reach the store.
		fail(k, name, map[string]any{"item_id": long[:128]}, baton.ErrTaskNotFound)
	}
	invalid(k, "renew_claim", map[string]any{"item_id": id, "ttl_seconds": 60}, "ttl_seconds", "additionalProperties")

	invalid(k, "claim_next", map[string]any{"kind": "story"}, "kind", "enum")
	invalid(k, "claim_next", map[string]any{"kind": "Task"}, "kind", "enum")
	invalid(k, "claim_next", map[string]any{"kind": ""}, "kind", "enum")
	invalid(k, "claim_next", map[string]any{"label": ""}, "label", "minLength")
	invalid(k, "claim_next", map[string]any{"label": "  "}, "label", "pattern")
	invalid(k, "claim_next", map[string]any{"label": strings.Repeat("l", 65)}, "label", "maxLength")
	invalid(k, "claim_next", map[string]any{"project": strings.Repeat("p", 64)}, "project", "maxLength")

	// Nothing invalid was claimed.
	if c := claimOf(k, id); c != nil {
		t.Fatalf("a refused call left a claim: %+v", c)
	}

	// The bounds themselves are accepted.
	for _, ttl := range []int{30, 86400} {
		out := k.OK("claim_item", map[string]any{"item_id": id, "ttl_seconds": ttl})
		if out["item_id"] != id {
			t.Errorf("ttl_seconds %d: %v", ttl, out)
		}
		k.OK("release_claim", map[string]any{"item_id": id})
	}
	for _, kind := range []string{"task", "bug", "epic", "feature", "chore"} {
		if out := k.OK("claim_next", map[string]any{"kind": kind, "ttl_seconds": 30}); kind != "task" && out["claimed"] != false {
			t.Errorf("kind %s claimed %v", kind, out)
		}
	}
	k.OK("claim_next", map[string]any{"ttl_seconds": 86400})
}

func TestSchemas(t *testing.T) {
	k, _ := newKit(t)
	for _, name := range []string{"claim_item", "claim_next", "renew_claim", "release_claim"} {
		tl, ok := k.Registry.Get(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		s := tl.Spec()
		if s.Toolset != "claims" || len(s.Profiles) == 0 || s.Description == "" {
			t.Errorf("%s: toolset %q, profiles %v", name, s.Toolset, s.Profiles)
		}
		in := s.InputSchema()
		if ttl, ok := in.Properties["ttl_seconds"]; ok {
			if ttl.Type != "integer" || *ttl.Minimum != 30 || *ttl.Maximum != 86400 {
				t.Errorf("%s ttl_seconds schema = %+v", name, ttl)
			}
			// The default is the server's, which may be configured, so the
			// schema must not promise a fixed one.
			if len(ttl.Default) > 0 {
				t.Errorf("%s ttl_seconds has a schema default %s", name, ttl.Default)
			}
		}
		if _, ok := in.Properties["holder"]; ok {
			t.Errorf("%s takes a holder argument", name)
		}
	}
}
