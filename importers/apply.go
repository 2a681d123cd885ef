package importers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
)

// ApplyOptions tune Apply.
type ApplyOptions struct {
	// DryRun does the whole import in its transaction, then rolls it
	// back: nothing is written, and the report is the one the import
	// would give, baton ids included.
	DryRun bool
	// By is who imports (the CLI's person, "user"): the action's agent in
	// the audit log, and the author of what the file attributes to nobody.
	// Defaults to baton.User.
	By string
	// Now is the import's time; defaults to time.Now.
	Now func() time.Time
	// Progress, if set, hears how many of the plan's items are done.
	Progress func(done, total int)
}

// Tool and event of the audit action an import records.
const (
	AuditTool  = "import"
	AuditEvent = "items.imported"
)

var errDryRun = errors.New("dry run")

// Apply creates the plan's items in project, in one transaction of s:
// each item through CreateItem (so ids, sequences, counts and search
// indexes are the store's own), then the parents' sub-task blocking,
// dependencies (AddDependency, which refuses cycles) and comments
// (AddComment), and one action for the whole import in the audit log
// (tool "import", with an items.imported event in the project's stream).
// An item whose provenance label is already on an item of the project
// was imported before: it is reported as already imported and left as it
// is, with its comments and the dependencies between such items. A
// dependency that would close a cycle is skipped and reported. Any other
// failure rolls everything back. The plan itself is not changed, so it
// can be applied again (a dry run first, then for real).
func Apply(ctx context.Context, s baton.Store, project string, p *Plan, opts ApplyOptions) (*Report, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(project) == "" {
		return nil, baton.Errorf(baton.ErrInvalidInput, "no project to import into").
			WithDetails("field", "project").WithHint("name the project: baton import --project SLUG")
	}
	a := &applier{project: project, plan: p, opts: opts, by: opts.By, now: opts.Now}
	if a.by == "" {
		a.by = baton.User
	}
	if a.now == nil {
		a.now = time.Now
	}
	err := s.Update(ctx, func(tx baton.Tx) error {
		// fn may run more than once (a busy store retries it): start over.
		if err := a.run(ctx, tx); err != nil {
			return err
		}
		if opts.DryRun {
			return errDryRun
		}
		return nil
	})
	switch {
	case err == nil:
		a.rep.Imported = true
		return a.rep, nil
	case errors.Is(err, errDryRun):
		return a.rep, nil
	}
	return nil, err
}

type applier struct {
	project string
	plan    *Plan
	opts    ApplyOptions
	by      string
	now     func() time.Time

	rep     *Report
	tx      baton.Tx
	index   map[string]int    // foreign id -> position in the plan
	ids     map[string]string // foreign id -> baton id
	created map[string]bool   // foreign ids created by this import
	done    int
}

func (a *applier) run(ctx context.Context, tx baton.Tx) error {
	p := a.plan
	a.tx, a.done = tx, 0
	a.rep = p.Report.clone()
	a.rep.Project, a.rep.DryRun = a.project, a.opts.DryRun
	a.index = make(map[string]int, len(p.Items))
	a.ids = make(map[string]string, len(p.Items))
	a.created = map[string]bool{}
	at := a.now().UTC()
	if _, err := tx.Project(ctx, a.project); err != nil {
		return err
	}
	before, err := a.imported(ctx)
	if err != nil {
		return err
	}
	for i, it := range p.Items {
		a.index[it.ForeignID] = i
		if id, ok := before[it.Label]; ok {
			a.ids[it.ForeignID] = id
			r := &a.rep.Items[i]
			r.ID, r.Action = id, ActionAlreadyImported
			a.rep.AlreadyImported++
			a.progress()
		}
	}
	for i := range p.Items {
		if err := a.create(ctx, i); err != nil {
			return err
		}
	}
	held, err := a.holdParents(ctx, at)
	if err != nil {
		return err
	}
	for _, d := range dependentsFirst(p.Dependencies) {
		if !a.created[d.Item] && !a.created[d.DependsOn] {
			continue // both imported before: left as they are
		}
		err := tx.AddDependency(ctx, a.ids[d.Item], a.ids[d.DependsOn])
		if baton.ErrorCode(err) == baton.ErrCircularDependency {
			a.rep.Skipped = append(a.rep.Skipped, Skip{Kind: SkipDependency, ForeignID: d.Item, Target: d.DependsOn, Where: d.Where,
				Reason: baton.AsError(err).Message})
			continue
		}
		if err != nil {
			return a.about(d.Item, err)
		}
		a.rep.Dependencies++
	}
	for _, c := range p.Comments {
		if !a.created[c.Item] {
			continue // came with its item, which was imported before
		}
		author := c.Author
		if author == "" {
			author = a.by
		}
		cm := &baton.Comment{ItemID: a.ids[c.Item], Body: c.Body, CreatedBy: author, CreatedAt: c.CreatedAt}
		if err := tx.AddComment(ctx, cm); err != nil {
			return a.about(c.Item, err)
		}
		a.rep.Comments++
	}
	if a.rep.Created+held+a.rep.Dependencies+a.rep.Comments == 0 {
		return nil // nothing changed: nothing to record
	}
	in := map[string]any{"source": p.Source, "project": a.project, "items": len(p.Items),
		"dependencies": len(p.Dependencies), "comments": len(p.Comments)}
	out := map[string]any{"source": p.Source, "created": a.rep.Created, "already_imported": a.rep.AlreadyImported,
		"parents_blocked": held, "dependencies": a.rep.Dependencies, "comments": a.rep.Comments, "skipped": len(a.rep.Skipped)}
	return audit.Record(ctx, tx, audit.Change{Agent: a.by, Source: string(baton.SourceCLI), Tool: AuditTool,
		In: in, Out: out, At: at, Event: AuditEvent, Project: a.project})
}

// imported maps the provenance labels of the plan that items of the
// project carry already to those items' ids. It reads the project's
// items a page at a time: one pass over the project, where a lookup per
// label would cost a pass each.
func (a *applier) imported(ctx context.Context) (map[string]string, error) {
	want := make(map[string]bool, len(a.plan.Items))
	for _, it := range a.plan.Items {
		want[it.Label] = true
	}
	found := map[string]string{}
	const page = 500
	for off := 0; ; off += page {
		pg, err := a.tx.ListItems(ctx, baton.ItemFilter{Project: a.project, Sort: baton.SortCreated, Limit: page, Offset: off})
		if err != nil {
			return nil, err
		}
		for _, it := range pg.Items {
			for _, l := range it.Labels {
				if want[l] {
					if _, dup := found[l]; !dup {
						found[l] = it.ID
					}
				}
			}
		}
		if len(pg.Items) < page {
			return found, nil
		}
	}
}

// create stores item i, its parent first.
func (a *applier) create(ctx context.Context, i int) error {
	it := a.plan.Items[i]
	if _, ok := a.ids[it.ForeignID]; ok {
		return nil
	}
	parent := ""
	if it.Parent != "" {
		if err := a.create(ctx, a.index[it.Parent]); err != nil {
			return err
		}
		parent = a.ids[it.Parent]
	}
	by := it.CreatedBy
	if by == "" {
		by = a.by
	}
	item := &baton.Item{Project: a.project, Title: it.Title, Description: it.Description, Kind: it.Kind, Status: it.Status,
		Priority: it.Priority, Labels: append(slices.Clone(it.Labels), it.Label), Assignee: it.Assignee, ParentID: parent,
		Progress: it.Progress, EstimateHours: it.EstimateHours, BlockedReason: it.BlockedReason, CloseReason: it.CloseReason,
		CreatedBy: by, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
	if !item.CreatedAt.IsZero() && item.UpdatedAt.Before(item.CreatedAt) {
		item.UpdatedAt = item.CreatedAt
	}
	if err := a.tx.CreateItem(ctx, item); err != nil {
		return a.about(it.ForeignID, err)
	}
	a.ids[it.ForeignID], a.created[it.ForeignID] = item.ID, true
	r := &a.rep.Items[i]
	r.ID, r.Action = item.ID, ActionCreated
	a.rep.Created++
	a.progress()
	return nil
}

// holdParents blocks each parent that got an unfinished sub-task from
// this import, as create_subtask does: status blocked, the status it had
// kept to return to when the last sub-task is done. Epics, finished
// parents and parents blocked for a reason of their own are left as they
// are. It returns how many parents it blocked.
func (a *applier) holdParents(ctx context.Context, at time.Time) (int, error) {
	var parents []string // foreign ids, in the plan's order
	for _, it := range a.plan.Items {
		if it.Parent != "" && a.created[it.ForeignID] && !it.Status.Terminal() && !slices.Contains(parents, it.Parent) {
			parents = append(parents, it.Parent)
		}
	}
	held := 0
	for _, f := range parents {
		par, err := a.tx.Item(ctx, a.ids[f])
		if err != nil {
			return 0, err
		}
		if par.Kind == baton.KindEpic || par.Status.Terminal() || (par.Status == baton.StatusBlocked && par.ResumeStatus == "") {
			continue
		}
		if par.ResumeStatus == "" {
			par.ResumeStatus = par.Status
		}
		par.Status = baton.StatusBlocked
		kids, err := a.tx.Children(ctx, par.ID)
		if err != nil {
			return 0, err
		}
		par.BlockedReason = fmt.Sprintf("waiting on sub-tasks: %v", kids)
		par.UpdatedBy = a.by
		if !a.created[f] {
			par.UpdatedAt = at
		}
		r := &a.rep.Items[a.index[f]]
		if err := a.tx.UpdateItem(ctx, par); err != nil {
			if baton.ErrorCode(err) == baton.ErrClaimed {
				r.Notes = append(r.Notes, "has new sub-tasks but was not blocked by them: "+baton.AsError(err).Message)
				continue
			}
			return 0, a.about(f, err)
		}
		r.Status.To = string(baton.StatusBlocked)
		r.Notes = append(r.Notes, fmt.Sprintf("blocked by its sub-tasks until they are done, then back to %s (as create_subtask leaves a parent)", par.ResumeStatus))
		held++
	}
	return held, nil
}

// dependentsFirst orders dependencies so that an item's own are added
// only after those of every item that depends on it. AddDependency looks
// for a cycle by walking what the item depended on already; in this order
// that is nothing new (a chain of n dependencies costs n steps, not n²).
// Dependencies on a cycle, which have no such order, come last, in the
// file's order: AddDependency refuses the one that closes it.
func dependentsFirst(deps []PlanDependency) []PlanDependency {
	waiting := map[string]int{} // item -> how many items depend on it, not yet placed
	out := map[string][]PlanDependency{}
	var items []string
	for _, d := range deps {
		if _, ok := out[d.Item]; !ok {
			items = append(items, d.Item)
		}
		out[d.Item] = append(out[d.Item], d)
		waiting[d.DependsOn]++
	}
	sorted := make([]PlanDependency, 0, len(deps))
	placed := map[string]bool{}
	var ready []string
	for _, it := range items {
		if waiting[it] == 0 {
			ready = append(ready, it)
		}
	}
	for len(ready) > 0 {
		it := ready[0]
		ready = ready[1:]
		placed[it] = true
		for _, d := range out[it] {
			sorted = append(sorted, d)
			if waiting[d.DependsOn]--; waiting[d.DependsOn] == 0 && len(out[d.DependsOn]) > 0 {
				ready = append(ready, d.DependsOn)
			}
		}
	}
	for _, it := range items {
		if !placed[it] {
			sorted = append(sorted, out[it]...)
		}
	}
	return sorted
}

func (a *applier) progress() {
	a.done++
	if a.opts.Progress != nil {
		a.opts.Progress(a.done, len(a.plan.Items))
	}
}

// about names the item of the file a store error is about.
func (a *applier) about(foreign string, err error) error {
	var e *baton.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("importing %s: %w", foreign, err)
	}
	c := *e
	c.Details = maps.Clone(e.Details)
	where := ""
	if i, ok := a.index[foreign]; ok {
		where = " (" + a.rep.Items[i].Where + ")"
	}
	c.Message = fmt.Sprintf("importing %s%s: %s", foreign, where, e.Message)
	return c.WithDetails("foreign_id", foreign)
}
