package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// Search looks up one query in the knowledge documents (search_knowledge)
// and in the learnings agents recorded on items (search_learnings), both
// run as the operator, so the page finds what an agent's search would.

// Bounds of the search page.
const (
	// searchMaxQuery is the longest query, in characters: search_learnings
	// takes at most 500 (search_knowledge 4,000).
	searchMaxQuery = 500
	// searchTopK and searchLearningsLimit are the most hits of each kind
	// shown (the tools' own maxima are 20 and 100).
	searchTopK           = 20
	searchLearningsLimit = 50
	// searchMaxProjects bounds the projects searched one by one when the
	// page is not narrowed to one project.
	searchMaxProjects = 20
)

var searchPage = &pageDef{
	Pattern: "/search", Name: "search", Title: "Search", Nav: "search",
	Live: []string{"learning.", "document"},
	Load: loadSearch,
}

func init() { register(searchPage) }

// knowledgeHit is a search_knowledge result (tools/vault/search.go).
type knowledgeHit struct {
	Snippet    string  `json:"snippet"`
	Source     string  `json:"source"`
	Scope      string  `json:"scope"`
	ChunkIndex int     `json:"chunk_index"`
	Score      float64 `json:"score"`
	Keyword    bool    `json:"keyword_match"`
	Context    string  `json:"context"`
	VersionID  string  `json:"version_id"`
	Project    string  `json:"-"` // the project searched, for project-scope hits
}

// learningHit is a search_learnings result (tools/issues).
type learningHit struct {
	ID           string   `json:"id"`
	Pattern      string   `json:"pattern"`
	Context      string   `json:"context"`
	AppliesTo    []string `json:"applies_to"`
	LearningType string   `json:"learning_type"`
	QualityScore int      `json:"quality_score"`
	Verified     bool     `json:"verified"`
	CreatedBy    string   `json:"created_by"`
	CreatedAt    string   `json:"created_at"`
	IssueID      string   `json:"issue_id"`
	Project      string   `json:"project"`
	Rank         float64  `json:"rank"`
	MatchedField string   `json:"matched_field"`
}

type searchData struct {
	Query        string
	MaxQuery     int
	QueryErr     *baton.Error // the query itself is refused
	Projects     []string     // the projects searched ("" alone: no project)
	ProjectsCut  bool         // more projects exist than searchMaxProjects
	Knowledge    []knowledgeHit
	KnowledgeErr *baton.Error
	Learnings    []learningHit
	LearningsErr *baton.Error
}

func loadSearch(s *Server, r *http.Request) (any, error) {
	d := &searchData{MaxQuery: searchMaxQuery}
	raw := r.URL.Query().Get("q")
	if n := utf8.RuneCountInString(raw); n > searchMaxQuery {
		d.Query = clipText(raw, searchMaxQuery)
		d.QueryErr = baton.Errorf(baton.ErrInvalidInput, "the query is %d characters long, more than %d", n, searchMaxQuery).
			WithDetails("field", "q", "max_length", searchMaxQuery).WithHint("search with a few words")
		return d, nil
	}
	d.Query = strings.TrimSpace(raw)
	if d.Query == "" {
		return d, nil // the form only
	}
	var err error
	if d.Projects, d.ProjectsCut, err = s.searchProjects(r); err != nil {
		return nil, err
	}
	for _, p := range d.Projects {
		var out struct {
			Results []knowledgeHit `json:"results"`
		}
		if e := s.callIn(r, p, "search_knowledge", map[string]any{"query": d.Query, "top_k": searchTopK}, &out); e != nil {
			d.KnowledgeErr = e
			break
		}
		for _, h := range out.Results {
			if h.Scope == baton.ScopeProject {
				h.Project = p
			} else if slices.ContainsFunc(d.Knowledge, func(k knowledgeHit) bool {
				// Every project's search covers the global space too.
				return k.Scope == h.Scope && k.Source == h.Source && k.ChunkIndex == h.ChunkIndex
			}) {
				continue
			}
			d.Knowledge = append(d.Knowledge, h)
		}
	}
	for _, p := range d.Projects {
		var out struct {
			Results []learningHit `json:"results"`
		}
		if e := s.callIn(r, p, "search_learnings", map[string]any{"query": d.Query, "limit": searchLearningsLimit}, &out); e != nil {
			d.LearningsErr = e
			break
		}
		d.Learnings = append(d.Learnings, out.Results...)
	}
	// Searched project by project: merge best first and keep the bounds.
	slices.SortStableFunc(d.Knowledge, func(a, b knowledgeHit) int { return cmpDesc(a.Score, b.Score) })
	slices.SortStableFunc(d.Learnings, func(a, b learningHit) int { return cmpDesc(a.Rank, b.Rank) })
	if len(d.Knowledge) > searchTopK {
		d.Knowledge = d.Knowledge[:searchTopK]
	}
	if len(d.Learnings) > searchLearningsLimit {
		d.Learnings = d.Learnings[:searchLearningsLimit]
	}
	return d, nil
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// searchProjects are the projects to search: the page's ?project, else
// the operator's default project, else every project (up to
// searchMaxProjects, cut reports more), else none ("" alone: the tools
// then search what a session without a project sees).
func (s *Server) searchProjects(r *http.Request) ([]string, bool, error) {
	if p := projectParam(r); p != "" {
		return []string{p}, false, nil
	}
	if s.opts.Project != "" {
		return []string{s.opts.Project}, false, nil
	}
	var out []string
	err := s.view(r.Context(), func(tx baton.Tx) error {
		ps, err := tx.Projects(r.Context())
		for _, p := range ps {
			out = append(out, p.Slug)
		}
		return err
	})
	if err != nil {
		return nil, false, err
	}
	if len(out) == 0 {
		return []string{""}, false, nil
	}
	if len(out) > searchMaxProjects {
		return out[:searchMaxProjects], true, nil
	}
	return out, false, nil
}

// callIn is s.call in a project: the operator's read-only call as a
// session whose project is project ("" keeps the operator's own).
func (s *Server) callIn(r *http.Request, project, name string, args, out any) *baton.Error {
	p := s.operator()
	if project != "" {
		p.Project = project
	}
	raw, _ := json.Marshal(args)
	res := s.reg.Call(r.Context(), s.env, p, name, raw)
	if res.Err != nil {
		return res.Err
	}
	b, _ := json.Marshal(res.Output)
	if err := json.Unmarshal(b, out); err != nil {
		return baton.Errorf(baton.ErrInternal, "the output of %s did not decode: %v", name, err)
	}
	return nil
}
