package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/review"
)

// The PRs pages: the list of PR records with their risk and gates, and one
// PR with its diff, per-file stats, gate results, risk reasons and review,
// where the operator approves or rejects it (approve_pr, reject_pr).

// prsLimit bounds the list: the newest PRs; the filters narrow it.
const prsLimit = 100

// diffMaxLines bounds the diff lines one PR page renders: a stored diff is
// at most 1 MiB (review.MaxDiff), tens of thousands of lines, more than a
// browser shows usefully; `baton pr show` prints the rest.
const diffMaxLines = 10000

var prsPage = &pageDef{
	Pattern: "/prs", Name: "prs", Title: "PRs", Nav: "prs",
	Live: []string{"pr."},
	Load: loadPRs,
}

var prPage = &pageDef{
	Pattern: "/prs/{id}", Name: "pr", Title: "PR", Nav: "prs",
	Live: []string{"pr."},
	Load: loadPR,
}

func init() {
	register(prsPage)
	register(prPage)
}

// prRow is one PR of the list with what the template cannot compute.
type prRow struct {
	PR             *baton.PR
	Passed, Failed int  // gates
	Blocked        bool // a required gate did not pass: approving is refused
	StatusClass    string
}

type prsData struct {
	Rows     []prRow
	Status   string // the ?status filter
	Statuses []baton.PRStatus
	Limit    int
	More     bool // the limit cut the list
}

func loadPRs(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	d := &prsData{Statuses: baton.PRStatuses, Limit: prsLimit}
	f := baton.PRFilter{Project: projectParam(r), Limit: prsLimit + 1}
	if st := r.URL.Query().Get("status"); st != "" {
		if !slices.Contains(baton.PRStatuses, baton.PRStatus(st)) {
			return d, baton.Errorf(baton.ErrInvalidInput, "%q is not a PR status", clipText(st, 32)).
				WithDetails("field", "status", "allowed", baton.PRStatuses).
				WithHint("use one of open, approved, rejected, superseded, merged, or no status for every PR")
		}
		d.Status = st
		f.Statuses = []baton.PRStatus{baton.PRStatus(st)}
	}
	var ps []*baton.PR
	if err := s.view(ctx, func(tx baton.Tx) (err error) { ps, err = tx.PRs(ctx, f); return err }); err != nil {
		return nil, err
	}
	if len(ps) > prsLimit {
		ps, d.More = ps[:prsLimit], true
	}
	for _, p := range ps {
		row := prRow{PR: p, StatusClass: prStatusClass(p.Status), Blocked: len(review.Blocking(p.Gates)) > 0}
		for _, g := range p.Gates {
			if g.Passed() {
				row.Passed++
			} else {
				row.Failed++
			}
		}
		d.Rows = append(d.Rows, row)
	}
	return d, nil
}

// prStatusClass is the badge class (app.css) of a PR status.
func prStatusClass(st baton.PRStatus) string {
	switch st {
	case baton.PROpen:
		return "review"
	case baton.PRApproved:
		return "ok"
	case baton.PRRejected:
		return "fail"
	case baton.PRMerged:
		return "done"
	}
	return ""
}

// diffLine is one line of a diff, with its class: add, del or hunk inside
// a hunk, file for the headers between files.
type diffLine struct {
	Class, Text string
}

type prData struct {
	PR          *baton.PR
	StatusClass string
	Open        bool
	Blocking    []string // labels of required gates that did not pass
	Lines       []diffLine
	HiddenLines int // lines past diffMaxLines
}

func loadPR(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	id := r.PathValue("id")
	if len(id) > 64 {
		return nil, baton.PRNotFound(clipText(id, 64))
	}
	var p *baton.PR
	if err := s.view(ctx, func(tx baton.Tx) (err error) { p, err = tx.PR(ctx, id); return err }); err != nil {
		return nil, err
	}
	d := &prData{PR: p, StatusClass: prStatusClass(p.Status), Open: p.Status == baton.PROpen}
	for _, g := range review.Blocking(p.Gates) {
		d.Blocking = append(d.Blocking, g.Label)
	}
	d.Lines, d.HiddenLines = diffLines(p.Diff, diffMaxLines)
	return d, nil
}

// diffLines splits a unified diff into classed lines, at most limit of them
// (and how many more there were). The class comes from the line's first
// character inside a hunk; outside one ("diff --git", "index", "---",
// "+++" ...) a line is a file header, so a "+++ b/x" is not an added line
// while a removed "-- x" inside a hunk still is a deletion.
func diffLines(diff string, limit int) ([]diffLine, int) {
	if diff == "" {
		return nil, 0
	}
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	hidden := 0
	if len(lines) > limit {
		hidden, lines = len(lines)-limit, lines[:limit]
	}
	out := make([]diffLine, len(lines))
	inHunk := false
	for i, l := range lines {
		class := ""
		switch {
		case strings.HasPrefix(l, "diff "):
			inHunk, class = false, "file"
		case strings.HasPrefix(l, "@@"):
			inHunk, class = true, "hunk"
		case !inHunk:
			class = "file"
		case strings.HasPrefix(l, "+"):
			class = "add"
		case strings.HasPrefix(l, "-"):
			class = "del"
		}
		out[i] = diffLine{Class: class, Text: l}
	}
	return out, hidden
}

// clipText cuts s to n runes, for quoting request input in a message.
func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// PageTitle names the page after the PR and its item.
func (d *prData) PageTitle() string { return d.PR.ID + " for " + d.PR.ItemID }
