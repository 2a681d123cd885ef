package web

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// The item page: one work item with everything recorded about it
// (findings, learnings, comments, runs, its thought trail, PRs), its claim,
// its place among other items (parent, subtasks, dependencies), and the
// operator's actions on it: comment, change the status, force a claim's
// release.

// Bounds of what one item page shows; each list says when it was cut.
const (
	itemIDMax     = 128 // the tools' bound on an item id
	itemRefsCap   = 100 // subtasks, dependencies, dependents
	itemListCap   = 100 // findings, learnings, thoughts
	itemCommentsN = 200 // the latest comments
	itemRunsCap   = 20
	itemPRsCap    = 50
)

var itemPage = &pageDef{
	Pattern: "/items/{id}", Name: "item", Title: "Item", Nav: "board",
	// Everything that can be about an item: app.js cannot tell whose
	// event it is, so any of these refreshes the page.
	Live: []string{"issue.", "task.", "bead.", "item.", "claim.", "phase.", "pr.", "dependency.", "comment.",
		"finding.", "learning.", "thought.", "run.", "test_health.", "worktree.", "reservation."},
	Load: loadItem,
}

func init() { register(itemPage) }

// itemRef is another item named on the page, read for its title and
// status.
type itemRef struct {
	ID      string
	Title   string
	Status  baton.Status
	Missing bool // the id leads nowhere (a dangling reference)
}

// itemPR is a PR record with the badge class of its status.
type itemPR struct {
	*baton.PR
	Class string
}

func itemPRClass(s baton.PRStatus) string {
	switch s {
	case baton.PROpen:
		return "review"
	case baton.PRApproved, baton.PRMerged:
		return "ok"
	case baton.PRRejected:
		return "fail"
	}
	return ""
}

type itemData struct {
	Item *baton.Item
	// Asked is the id in the URL when it led to the item under another
	// id (a moved item, or T-0042 for T-42).
	Asked  string
	Phase  string   // of the phase:* label, "" without one
	Labels []string // the other labels
	Claim  *baton.Claim
	// Files are the active file reservations taken for the item, oldest
	// first, at most itemReservationsShown (MoreFiles: there were more);
	// FilesExpire is when the first lapses (no event says so: the page
	// refreshes itself then), FilesExpireInMS that from now.
	Files           []reservationRow
	MoreFiles       bool
	FilesExpire     time.Time
	FilesExpireInMS int64
	Parent          *itemRef
	// Subtasks and DependsOn are this item's children and what it
	// depends on; WaitedOnBy the items waiting to start (todo, blocked)
	// that depend on it.
	Subtasks, DependsOn, WaitedOnBy []itemRef
	MoreSubtasks, MoreDeps          bool
	Findings                        []*baton.Finding
	MoreFindings                    bool
	Learnings                       []*baton.Learning
	MoreLearnings                   int
	Comments                        []*baton.Comment
	EarlierComments                 int
	Runs                            []runRow // as the runs pages show them
	Thoughts                        []*baton.ThoughtRecord
	MoreThoughts                    bool
	PRs                             []itemPR
	MorePRs                         bool
	Next                            []baton.Status // where the status may move
	ListCap, RunsCap                int
}

// Estimate is the estimate in hours, "" when there is none.
func (d *itemData) Estimate() string {
	if d.Item.EstimateHours == nil {
		return ""
	}
	return strconv.FormatFloat(*d.Item.EstimateHours, 'f', -1, 64) + " h"
}

func loadItem(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	id := r.PathValue("id")
	if n := utf8.RuneCountInString(id); n == 0 || n > itemIDMax || !utf8.ValidString(id) {
		return nil, baton.Errorf(baton.ErrInvalidInput, "an item id has 1 to %d characters", itemIDMax).
			WithDetails("field", "id", "constraint", "max_length", "limit", itemIDMax).
			WithHint("open the item from the board (/board); ids look like PREFIX-NUMBER")
	}
	d := &itemData{ListCap: itemListCap, RunsCap: itemRunsCap}
	err := s.view(ctx, func(tx baton.Tx) error {
		it, err := baton.ResolveItem(ctx, tx, id)
		if err != nil {
			if e := baton.AsError(err); e.Code == baton.ErrTaskNotFound {
				return e.WithHint("check the id on the board (/board); ids look like PREFIX-NUMBER")
			}
			return err
		}
		d.Item = it
		if it.ID != id {
			d.Asked = id
		}
		d.Labels = slices.DeleteFunc(slices.Clone(it.Labels), baton.IsPhaseLabel)
		if slices.ContainsFunc(it.Labels, baton.IsPhaseLabel) {
			d.Phase = string(it.Phase())
		}
		d.Next = it.Status.Next()
		if d.Claim, err = tx.ClaimOf(ctx, it.ID); err != nil {
			return err
		}
		if d.Files, d.MoreFiles, err = activeReservationsOf(ctx, tx, it.ID, s.now()); err != nil {
			return err
		}
		if err := itemLinks(ctx, tx, d); err != nil {
			return err
		}
		return itemRecords(ctx, tx, d, s.now())
	})
	if err != nil {
		return nil, err
	}
	d.FilesExpire, d.FilesExpireInMS = nextExpiry(d.Files, s.now())
	return d, nil
}

// itemLinks reads the items this one is tied to.
func itemLinks(ctx context.Context, tx baton.Tx, d *itemData) error {
	it := d.Item
	if it.ParentID != "" {
		p, err := itemRefOf(ctx, tx, it.ParentID)
		if err != nil {
			return err
		}
		d.Parent = &p
	}
	kids, err := tx.Children(ctx, it.ID)
	if err != nil {
		return err
	}
	if d.Subtasks, d.MoreSubtasks, err = itemRefsOf(ctx, tx, kids); err != nil {
		return err
	}
	deps, err := tx.Dependencies(ctx, it.ID)
	if err != nil {
		return err
	}
	if d.DependsOn, d.MoreDeps, err = itemRefsOf(ctx, tx, deps); err != nil {
		return err
	}
	// What waits on this item: its unfinished dependents, read through
	// the reverse index, never the project's whole queue.
	if it.Status.Terminal() {
		return nil
	}
	dependents, err := tx.Dependents(ctx, it.ID)
	if err != nil {
		return err
	}
	for _, id := range dependents {
		if len(d.WaitedOnBy) == itemRefsCap {
			break
		}
		ref, err := itemRefOf(ctx, tx, id)
		if err != nil {
			return err
		}
		if ref.Status == baton.StatusTodo || ref.Status == baton.StatusBlocked {
			d.WaitedOnBy = append(d.WaitedOnBy, ref)
		}
	}
	return nil
}

// itemRefsOf reads up to itemRefsCap of ids, reporting whether there
// were more.
func itemRefsOf(ctx context.Context, tx baton.Tx, ids []string) ([]itemRef, bool, error) {
	more := len(ids) > itemRefsCap
	if more {
		ids = ids[:itemRefsCap]
	}
	out := make([]itemRef, 0, len(ids))
	for _, id := range ids {
		ref, err := itemRefOf(ctx, tx, id)
		if err != nil {
			return nil, false, err
		}
		out = append(out, ref)
	}
	return out, more, nil
}

func itemRefOf(ctx context.Context, tx baton.Tx, id string) (itemRef, error) {
	it, err := tx.Item(ctx, id)
	if baton.ErrorCode(err) == baton.ErrTaskNotFound {
		return itemRef{ID: id, Missing: true}, nil
	}
	if err != nil {
		return itemRef{}, err
	}
	return itemRef{ID: it.ID, Title: it.Title, Status: it.Status}, nil
}

// itemRecords reads what agents recorded on the item, each list bounded;
// now is when a running run's time so far is counted to.
func itemRecords(ctx context.Context, tx baton.Tx, d *itemData, now time.Time) error {
	id := d.Item.ID
	var err error
	// The newest findings first; one more than shown tells whether there
	// are more.
	if d.Findings, err = tx.Findings(ctx, id, itemListCap+1); err != nil {
		return err
	}
	if len(d.Findings) > itemListCap {
		d.Findings, d.MoreFindings = d.Findings[:itemListCap], true
	}
	if d.Learnings, err = tx.Learnings(ctx, id); err != nil {
		return err
	}
	if n := len(d.Learnings); n > itemListCap {
		d.Learnings, d.MoreLearnings = d.Learnings[:itemListCap], n-itemListCap
	}
	// Comments read as a conversation, oldest first: the latest ones.
	if d.Comments, err = tx.Comments(ctx, id); err != nil {
		return err
	}
	if n := len(d.Comments); n > itemCommentsN {
		d.Comments, d.EarlierComments = d.Comments[n-itemCommentsN:], n-itemCommentsN
	}
	runs, err := tx.Runs(ctx, id, itemRunsCap)
	if err != nil {
		return err
	}
	for _, r := range runs {
		d.Runs = append(d.Runs, newRunRow(r, now))
	}
	// The chain in its order, from its start.
	if d.Thoughts, err = tx.Thoughts(ctx, baton.ThoughtFilter{TaskID: id, Limit: itemListCap + 1}); err != nil {
		return err
	}
	if len(d.Thoughts) > itemListCap {
		d.Thoughts, d.MoreThoughts = d.Thoughts[:itemListCap], true
	}
	prs, err := tx.PRs(ctx, baton.PRFilter{ItemID: id, Limit: itemPRsCap + 1})
	if err != nil {
		return err
	}
	if len(prs) > itemPRsCap {
		prs, d.MorePRs = prs[:itemPRsCap], true
	}
	for _, p := range prs {
		d.PRs = append(d.PRs, itemPR{PR: p, Class: itemPRClass(p.Status)})
	}
	return nil
}

// PageTitle names the page after the item.
func (d *itemData) PageTitle() string { return d.Item.ID + " " + d.Item.Title }
