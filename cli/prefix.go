package cli

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// maxCandidates caps the ids an ambiguous prefix lists: enough to pick
// from, short enough to read.
const maxCandidates = 20

// resolveID is the id that id names among candidates, as git takes a
// commit: the id itself when it is one, else the only candidate it is the
// start of. A prefix of several is ERR_INVALID_INPUT listing them
// (details.candidates); a prefix of none is ERR_NOT_FOUND. kind names the
// ids in messages ("proposal"); list says how to see them.
func resolveID(kind, id string, candidates []string, list string) (string, error) {
	if id == "" {
		return "", baton.Errorf(baton.ErrInvalidInput, "the %s id is empty", kind).
			WithDetails("field", kind, "constraint", "required").WithHint("%s", list)
	}
	var matches []string
	for _, c := range candidates {
		if c == id {
			return c, nil
		}
		if strings.HasPrefix(c, id) && !slices.Contains(matches, c) {
			matches = append(matches, c)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", baton.Errorf(baton.ErrNotFound, "no %s id is or starts with %q", kind, id).
			WithDetails(kind, id).WithHint("%s", list)
	}
	slices.Sort(matches)
	shown := matches
	if len(shown) > maxCandidates {
		shown = shown[:maxCandidates]
	}
	e := baton.Errorf(baton.ErrInvalidInput, "%q is the start of %d %s ids: give more of the id", id, len(matches), kind).
		WithDetails("field", kind, "constraint", "ambiguous", "prefix", id, "candidates", shown).
		WithHint("type enough of the id to tell them apart: %s", strings.Join(shortPrefixes(shown, matches), ", "))
	if len(matches) > len(shown) {
		e.WithDetails("more", len(matches)-len(shown))
	}
	return "", e
}

// shortPrefixes are the shortest prefixes of shown that name one id among
// all, e.g. "3f2a…" for 3f2a91..., so the hint says how much to type.
func shortPrefixes(shown, all []string) []string {
	out := make([]string, len(shown))
	for i, id := range shown {
		n := 0
		for n < len(id) {
			_, size := utf8.DecodeRuneInString(id[n:])
			n += size // whole characters only
			unique := true
			for _, other := range all {
				if other != id && strings.HasPrefix(other, id[:n]) {
					unique = false
					break
				}
			}
			if unique {
				break
			}
		}
		if n < len(id) {
			out[i] = id[:n] + "…"
		} else {
			out[i] = id
		}
	}
	return out
}

// resolveToken is what `baton agent revoke WHO` revokes: an agent's
// tokens when who is an agent's name, else the token whose id who is or
// uniquely starts (tok_3f2a for tok_3f2a91c0d4e5).
func resolveToken(toks []*baton.AgentToken, who string) (string, error) {
	ids := make([]string, 0, len(toks))
	for _, t := range toks {
		if t.Agent == who {
			return who, nil
		}
		ids = append(ids, t.ID)
	}
	id, err := resolveID("token", who, ids, "see the tokens with `baton agent list`")
	if e := baton.AsError(err); e != nil && e.Code == baton.ErrNotFound {
		return "", baton.Errorf(baton.ErrNotFound, "no token has id or agent %q", who).
			WithDetails("who", who).WithHint("see the tokens with `baton agent list`")
	}
	return id, err
}
