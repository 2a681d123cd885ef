package orchestrator

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/baton-dev/baton"
)

// promote copies an approved artifact (artifact, under root) to promoteTo
// in the project's docs tree: under the project's root, or under root for
// a project without one. The copy is written whole (a temporary file
// renamed into place) and undone if the tick's transaction does not
// commit: the file it replaced comes back, or the new file and the folders
// made for it go. It returns promoteTo as written, relative to the root.
func (a *apply) promote(root, artifact, promoteTo string) (string, error) {
	base := a.proj.Root
	if base == "" {
		base = root
	}
	rel := path.Clean(promoteTo)
	if path.IsAbs(rel) || !strings.HasPrefix(rel, "docs/") {
		return "", baton.Errorf(baton.ErrInvalidInput, "promote_to %q is not inside docs/", promoteTo)
	}
	src := filepath.Join(root, filepath.FromSlash(artifact))
	dst := filepath.Join(base, filepath.FromSlash(rel))
	failed := func(err error) error {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the server's paths stay out of messages
		}
		return baton.Errorf(baton.ErrInternal, "promoting %s to %s failed: %v", artifact, rel, err).
			WithHint("nothing was changed; the next tick tries again")
	}
	content, err := os.ReadFile(src)
	if err != nil {
		return "", failed(err)
	}
	// The folders that do not exist yet, from the top one down: made now,
	// removed by the undo.
	top := ""
	for d := filepath.Dir(dst); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) || d == filepath.Clean(base) {
			break
		}
		top = d
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", failed(err)
	}
	if err := insideReal(base, filepath.Dir(dst)); err != nil {
		if top != "" {
			os.RemoveAll(top)
		}
		return "", baton.Errorf(baton.ErrInvalidInput, "promote_to %s leads outside the project", rel)
	}
	// The operator's files are never overwritten: promote_to is the
	// agent's choice. Only a file this issue promoted there itself, on an
	// earlier approval, may be replaced.
	if _, err := os.Lstat(dst); err == nil {
		again, err := a.promotedBefore(rel)
		if err != nil {
			return "", err
		}
		if !again {
			if top != "" {
				os.RemoveAll(top)
			}
			return "", baton.Errorf(baton.ErrConflict, "promote_to %s exists already in the project, and %s did not promote it there: it is not overwritten", rel, a.it.ID).
				WithType("promote_exists").WithDetails("promote_to", rel).
				WithHint("complete the phase again with a promote_to path that does not exist yet, or without promote_to")
		}
	}
	old, oldErr := os.ReadFile(dst)
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".promote-*")
	if err == nil {
		_, err = tmp.Write(content)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), dst)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		if top != "" {
			os.RemoveAll(top)
		}
		return "", failed(err)
	}
	prev := a.undo
	a.undo = func() {
		switch {
		case oldErr == nil:
			_ = os.WriteFile(dst, old, 0o644)
		case top != "":
			os.RemoveAll(top)
		default:
			os.Remove(dst)
		}
		if prev != nil {
			prev()
		}
	}
	return rel, nil
}

// promotedBefore reports whether an earlier approval of the issue
// promoted an artifact to rel: a verdict the tick advanced on whose claim
// named rel as promote_to.
func (a *apply) promotedBefore(rel string) (bool, error) {
	fs, err := a.tx.Findings(a.ctx, a.it.ID, 0)
	if err != nil {
		return false, err
	}
	marks, err := a.tx.PhaseMarks(a.ctx, a.it.ID)
	if err != nil {
		return false, err
	}
	advanced := map[string]bool{}
	for _, m := range marks {
		if m.Outcome == baton.OutcomeAdvanced {
			advanced[m.FindingID] = true
		}
	}
	for _, f := range fs {
		if f.Category != baton.CategoryPhaseVerdict || !advanced[f.ID] {
			continue
		}
		v, err := baton.VerdictOf(f)
		if err != nil {
			continue
		}
		for _, c := range fs {
			if c.ID != v.ClaimID || c.Category != baton.CategoryPhaseCompletion {
				continue
			}
			if body, err := baton.CompletionOf(c); err == nil && body.PromoteTo != nil && path.Clean(*body.PromoteTo) == rel {
				return true, nil
			}
		}
	}
	return false, nil
}

// insideReal reports an error when dir, symbolic links resolved, is not
// inside base.
func insideReal(base, dir string) error {
	rb, err := filepath.EvalSymlinks(base)
	if err != nil {
		return err
	}
	rd, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	r, err := filepath.Rel(rb, rd)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return errors.New("outside")
	}
	return nil
}
