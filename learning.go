package baton

import (
	"strings"
	"time"
	"unicode"
)

// Learning types of Symphony's add_learning.
var LearningTypes = []string{"convention", "gotcha", "pattern"}

// Learning is a reusable pattern recorded for future agents.
type Learning struct {
	ID           string
	ItemID       string
	Project      string
	Pattern      string
	Context      string
	AppliesTo    []string
	Type         string
	QualityScore int
	Verified     bool
	CreatedBy    string
	CreatedAt    time.Time
}

// NormalizePattern reduces a pattern to what makes two patterns the same
// learning: case, punctuation and spacing do not count.
func NormalizePattern(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space = false
		default:
			space = true
		}
	}
	return b.String()
}

// LearningQuery is a search_learnings request.
type LearningQuery struct {
	Text            string
	Project         string // search this project, or every other one when CrossProject
	CrossProject    bool
	MinQualityScore int
	Limit           int
}

// LearningHit is one ranked search result.
type LearningHit struct {
	Learning *Learning
	// Rank is 0.5*bm25 + 0.3*field priority + 0.2*quality, each scaled to 0..1.
	Rank          float64
	BM25          float64 // relevance, scaled to 0..1 within the result set
	FieldPriority float64 // 1 when the pattern matches, 0.6 the context, 0.3 applies_to
	MatchedField  string
}
