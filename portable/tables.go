package portable

import (
	"fmt"
	"strings"
	"sync"
)

// Kind is a column's canonical JSON type: what both stores' values of it
// are written as, whatever each database calls the type.
type Kind uint8

const (
	// Int is a JSON integer: counts, ids, Unix-millisecond times, and the
	// 0/1 flags both schemas keep as integers.
	Int Kind = iota
	// Text is a JSON string (valid UTF-8).
	Text
	// Bool is true or false: SQLite's INTEGER 0/1 and PostgreSQL's BOOLEAN.
	Bool
	// Float is a JSON number (REAL, DOUBLE PRECISION).
	Float
)

func (k Kind) String() string {
	return [...]string{"integer", "string", "boolean", "number"}[k]
}

// Column is one exported column.
type Column struct {
	Name string
	Kind Kind
	Null bool // the column may be NULL: JSON null
}

// Table is one exported table: which columns go out, in which order the
// rows do, what identifies a row and which rows belong to one project.
type Table struct {
	Name    string   // the SQL table
	Type    string   // the record type of its lines
	Columns []Column // in the order every line writes them
	// Key names the columns that identify a row: an imported row whose key
	// is already there is skipped when identical and a conflict when not.
	// Nil: the whole row is its identity (test_health, which has no other);
	// such a row is added unless as many identical rows are there already.
	Key []string
	// Unique are the other column sets the table keeps unique: a new row
	// that would take one held by another row is a conflict too.
	Unique [][]string
	// Order is the ORDER BY of the export: the row number (rid) where the
	// table has one, so rows keep their relative order through an import
	// (listings break ties by it), else the key; text columns are compared
	// by bytes on both databases.
	Order []string
	// Scope selects one project's rows (one ? for the slug); "" for a
	// table of the whole server, which a --project export leaves out.
	Scope string
	// Deferred is a column referring to another row of the same table
	// (items.parent_id): rows go in with it NULL and get it once every row
	// of the table is in, so no order of the rows can break the reference.
	Deferred string
	// Skip are the live columns not exported, and why.
	Skip map[string]string
}

// Column returns the table's column named name, or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}

// index is the position of column name, -1 when it is none of t's.
func (t *Table) index(name string) int {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return i
		}
	}
	return -1
}

// cols reads a column list: "name kind" pairs separated by commas, kind
// one of int, text, bool, float, with a trailing ? for a nullable column.
func cols(spec string) []Column {
	var out []Column
	for _, part := range strings.Split(spec, ",") {
		f := strings.Fields(part)
		if len(f) != 2 {
			panic(fmt.Sprintf("portable: bad column %q", part))
		}
		c := Column{Name: f[0]}
		kind, null := strings.CutSuffix(f[1], "?")
		c.Null = null
		switch kind {
		case "int":
			c.Kind = Int
		case "text":
			c.Kind = Text
		case "bool":
			c.Kind = Bool
		case "float":
			c.Kind = Float
		default:
			panic(fmt.Sprintf("portable: bad column kind %q", part))
		}
		out = append(out, c)
	}
	return out
}

// Scopes of the tables of one project.
const (
	inProject     = `project = ?`
	ofProjectItem = `item_id IN (SELECT id FROM items WHERE project = ?)`
	ofProjectRun  = `run_id IN (SELECT r.id FROM runs r JOIN items i ON i.id = r.item_id WHERE i.project = ?)`
)

// Reasons for the columns the export leaves out.
const (
	skipRID       = "row number: rows are exported in its order and numbered afresh on import"
	skipGenerated = "PostgreSQL full-text index (a tsvector column computed from the row's text)"
)

var (
	ridOnly   = map[string]string{"rid": skipRID}
	ridAndFTS = map[string]string{"rid": skipRID, "fts": skipGenerated, "words": skipGenerated}
)

// Tables are the exported tables, in the order an export writes them:
// every table after the ones its rows refer to, so an import inserts them
// in file order. They are built on first use, not when the package
// initialises: every baton process links this package, few export.
func Tables() []*Table { return catalogue().tables }

// catalog is Tables with its indexes.
type catalog struct {
	tables []*Table
	byType map[string]*Table // a table by its record type
	index  map[*Table]int    // each table's place in tables
}

var catalogue = sync.OnceValue(func() *catalog {
	c := &catalog{tables: tables(), byType: map[string]*Table{}, index: map[*Table]int{}}
	for i, t := range c.tables {
		if _, dup := c.byType[t.Type]; dup {
			panic("portable: duplicate record type " + t.Type)
		}
		if t.Order == nil {
			t.Order = t.Key
		}
		for _, k := range append(append([]string{}, t.Key...), t.Order...) {
			if k != "rid" && t.index(k) < 0 {
				panic("portable: " + t.Name + " orders or keys by unknown column " + k)
			}
		}
		for _, k := range t.Key {
			if t.Column(k).Null {
				panic("portable: " + t.Name + " keys by nullable column " + k)
			}
		}
		c.index[t] = i
		c.byType[t.Type] = t
	}
	return c
})

func tables() []*Table {
	return []*Table{
		{Name: "projects", Type: "project", Key: []string{"slug"}, Unique: [][]string{{"prefix"}}, Scope: `slug = ?`,
			Columns: cols("slug text, prefix text, name text, next_seq int, created_at int, root text, tools text")},
		{Name: "project_configs", Type: "project_config", Key: []string{"project", "version"}, Scope: inProject,
			Columns: cols("project text, version int, settings text, updated_by text, updated_at int")},
		{Name: "items", Type: "item", Key: []string{"id"}, Unique: [][]string{{"project", "sequence"}}, Order: []string{"rid"},
			Scope: inProject, Deferred: "parent_id", Skip: ridAndFTS,
			Columns: cols("id text, project text, sequence int, title text, description text, kind text, status text, priority int, " +
				"assignee text, parent_id text?, progress int, estimate_hours float?, blocked_reason text, created_by text, updated_by text, " +
				"created_at int, updated_at int, close_reason text, resume_status text")},
		{Name: "item_labels", Type: "item_label", Key: []string{"item_id", "label"}, Scope: ofProjectItem,
			Columns: cols("item_id text, label text, position int")},
		{Name: "item_deps", Type: "item_dependency", Key: []string{"item_id", "depends_on"}, Scope: ofProjectItem,
			Columns: cols("item_id text, depends_on text")},
		{Name: "item_aliases", Type: "item_alias", Key: []string{"old_id"}, Scope: ofProjectItem,
			Columns: cols("old_id text, item_id text")},
		{Name: "claims", Type: "claim", Key: []string{"item_id"}, Scope: ofProjectItem,
			Columns: cols("item_id text, holder text, token int, ttl_ms int, prev_status text, claimed_at int, expires_at int")},
		{Name: "claim_tokens", Type: "claim_token", Key: []string{"item_id"}, Scope: ofProjectItem,
			Columns: cols("item_id text, last int")},
		{Name: "claim_fences", Type: "claim_fence", Key: []string{"item_id", "holder"}, Scope: ofProjectItem,
			Columns: cols("item_id text, holder text, token int, expires_at int, released_by text")},
		{Name: "dispatch_retries", Type: "dispatch_retry", Key: []string{"item_id"}, Scope: ofProjectItem,
			Columns: cols("item_id text, attempts int, next_at int, last_error text, updated_at int")},
		{Name: "findings", Type: "finding", Key: []string{"id"}, Order: []string{"rid"}, Scope: ofProjectItem, Skip: ridOnly,
			Columns: cols("id text, item_id text, category text, summary text, details text, files text, created_by text, created_at int")},
		{Name: "phase_marks", Type: "phase_mark", Key: []string{"finding_id"}, Order: []string{"rid"}, Scope: ofProjectItem, Skip: ridOnly,
			Columns: cols("finding_id text, item_id text, category text, phase text, outcome text, reason text, processed_by text, processed_at int")},
		{Name: "comments", Type: "comment", Key: []string{"id"}, Order: []string{"rid"}, Scope: ofProjectItem, Skip: ridOnly,
			Columns: cols("id text, item_id text, body text, created_by text, created_at int")},
		{Name: "learnings", Type: "learning", Key: []string{"id"}, Unique: [][]string{{"item_id", "normalized"}}, Order: []string{"rid"},
			Scope: ofProjectItem,
			Skip: map[string]string{"rid": skipRID, "fts": skipGenerated, "words": skipGenerated,
				"applies_text": "PostgreSQL: applies_to's entries joined for the full-text index, written again on import"},
			Columns: cols("id text, item_id text, project text, pattern text, normalized text, context text, applies_to text, " +
				"learning_type text, quality_score int, verified int, created_by text, created_at int")},
		{Name: "test_health", Type: "test_health", Order: []string{"rid"}, Scope: ofProjectItem, Skip: ridOnly,
			Columns: cols("item_id text, agent text, test_count int, test_files_changed int?, tests_added int?, tests_removed int?, " +
				"execution_time_ms int?, created_at int")},
		{Name: "coverage", Type: "coverage", Key: []string{"project", "file_path", "concept"}, Scope: inProject,
			Columns: cols("project text, file_path text, concept text, status text, ticket_id text, notes text, agent text, updated_at int")},
		{Name: "runs", Type: "run", Key: []string{"id"}, Order: []string{"rid"}, Scope: ofProjectItem, Skip: ridOnly,
			Columns: cols("id text, item_id text, agent text, status text, error text, cost_usd float, duration_ms int, num_turns int, " +
				"model text, started_at int, ended_at int, event_count int, profile text, attempt int, worktree text, host text, pid int, " +
				"exit_code int?, dispatcher text, heartbeat_at int")},
		{Name: "run_events", Type: "run_event", Key: []string{"run_id", "seq"}, Scope: ofProjectRun,
			Columns: cols("run_id text, seq int, type text, subtype text, data text, created_at int")},
		{Name: "run_output", Type: "run_output", Key: []string{"run_id"}, Scope: ofProjectRun,
			Columns: cols("run_id text, stdout text, stderr text, stdout_dropped int, stderr_dropped int")},
		{Name: "prs", Type: "pr", Key: []string{"id"}, Order: []string{"rid"}, Scope: ofProjectItem, Skip: ridOnly,
			Columns: cols("id text, item_id text, branch_name text, base_branch text, base_sha text, head_sha text, commits int, " +
				"repo_dir text, diff text, diff_truncated int, files text, gates text, risk text, risk_level text, status text, reason text, " +
				"fix_instructions text, reviewed_by text, reviewed_at int, created_by text, created_at int, updated_at int")},
		{Name: "thoughts", Type: "thought", Key: []string{"id"}, Order: []string{"rid"}, Scope: `task_id IN (SELECT id FROM items WHERE project = ?)`,
			Skip: ridOnly,
			Columns: cols("id text, task_id text, position int, type text, content text, branch text, commit_sha text, tests_run text, " +
				"blockers text, metadata text, recorded_at text, recorded_by text, previous_hash text, hash text")},
		{Name: "audit_sessions", Type: "audit_session", Key: []string{"id"}, Order: []string{"rid"},
			Scope: `task_id IN (SELECT id FROM items WHERE project = ?)`, Skip: ridOnly,
			Columns: cols("id text, task_id text, auditor_id text, reason text, scope text, started_by text, started_at int, " +
				"finalized_at int?, merkle_root text, root_task text, tree_depth int, leaf_count int, last_change int, tracking_ended_at int?")},
		{Name: "session_records", Type: "session_record", Key: []string{"session_id", "seq"},
			Scope:   `session_id IN (SELECT s.id FROM audit_sessions s JOIN items i ON i.id = s.task_id WHERE i.project = ?)`,
			Columns: cols("session_id text, seq int, kind text, record_id text, task_id text, hash text, at int")},
		{Name: "messages", Type: "message", Key: []string{"id"}, Order: []string{"rid"}, Scope: inProject,
			Skip: map[string]string{"rid": skipRID, "words": skipGenerated},
			Columns: cols("id text, project text, agent_id text, recipient text, role text, body text, thread_id text, metadata text, " +
				"event_type text, delivery_status text, created_at int, question text")},
		{Name: "proposals", Type: "proposal", Key: []string{"id"}, Order: []string{"rid"}, Scope: inProject, Skip: ridOnly,
			Columns: cols("id text, project text, author text, title text, description text, type text, status text, created_at int")},
		{Name: "documents", Type: "document", Key: []string{"scope", "project", "path", "version_ms"}, Order: []string{"rid"},
			Scope: `scope = 'project' AND project = ?`, Skip: ridOnly,
			Columns: cols("scope text, project text, path text, version_ms int, deleted int, content text, content_type text, size_bytes int, " +
				"sha256 text, source_path text, source_sha256 text, change_note text, created_by text, created_at int, source_type text, " +
				"description text, refresh_frequency_sec int, refreshed_at int, last_refresh_status text")},
		{Name: "file_reservations", Type: "file_reservation", Key: []string{"id"}, Scope: inProject,
			Columns: cols("id int, project text, agent text, pattern text, exclusive bool, reason text, item_id text, created_at int, " +
				"expires_at int, released_at int?, released_by text")},
		{Name: "events", Type: "event", Key: []string{"project", "seq"}, Scope: inProject,
			Columns: cols("project text, seq int, type text, subject text, agent text, data text, at int")},
		{Name: "profiles", Type: "profile", Key: []string{"name"},
			Columns: cols("name text, extends text, allowed_tools text, disallowed_tools text, skills text, description text, updated_at int")},
		{Name: "agents", Type: "agent", Key: []string{"name"},
			Columns: cols("name text, status text, task text, bead_id text, progress int, progress_task text, progress_description text, " +
				"first_seen int, last_seen int")},
		{Name: "agent_sessions", Type: "agent_session", Key: []string{"id"},
			Columns: cols("id text, agent text, connected_at int, last_seen int, closed_at int?")},
		{Name: "actions", Type: "action", Key: []string{"position"},
			Columns: cols("position int, agent text, source text, tool text, subject text, input_digest text, result_digest text, at text, " +
				"previous_hash text, hash text")},
		{Name: "action_rechain", Type: "action_rechain", Key: []string{"id"},
			Columns: cols("id int, pending int, records int, old_head text, first_break int, position int, at text")},
		{Name: "audit_log", Type: "audit_log", Key: []string{"id"},
			Columns: cols("id int, origin text, public_key text, created_at text")},
		{Name: "audit_checkpoints", Type: "audit_checkpoint", Key: []string{"size"},
			Columns: cols("size int, root text, note text, edge text, head text, at text")},
	}
}

// Excluded are the tables an export leaves out, each with the reason:
// secrets, and what is derived from the exported rows and made again.
// Between them, Tables and Excluded name every table of both schemas (a
// test in each store checks the live database against them).
var Excluded = map[string]string{
	"agent_tokens": "secrets: HTTP bearer credentials (their SHA-256) stay with the server that issued them; " +
		"issue new ones on the target with baton agent token",
	"item_counts":         "derived: per project, status and priority counts kept by triggers on items, which the import's inserts fire",
	"items_fts":           "derived (SQLite): FTS5 index of items, kept by triggers on items",
	"items_words":         "derived (SQLite): unstemmed FTS5 index of items, kept by triggers on items",
	"learnings_fts":       "derived (SQLite): FTS5 index of learnings, written by the import as by add_learning",
	"learnings_words":     "derived (SQLite): unstemmed FTS5 index of learnings, written by the import as by add_learning",
	"messages_fts":        "derived (SQLite): FTS5 index of messages, kept by a trigger on messages",
	"document_chunks":     "derived: a document version's chunks, cut from its content; baton import (or baton knowledge reindex) makes them again",
	"document_chunks_fts": "derived (SQLite): FTS5 index of document chunks, kept by triggers on document_chunks",
	"chunk_vectors":       "derived: embeddings of the chunks, made again with the target's embedder by baton import (or baton knowledge reindex)",
	"knowledge_state":     "cache: the knowledge generation in-memory search caches follow; the import moves it on",
	"thought_rechain":     "migration queue: thought chains waiting to be re-hashed, emptied whenever a database opens",
	"goose_db_version":    "migration bookkeeping of the target's own schema",
}

// Coverage compares the live schema, each table's columns by table name, with
// Tables and Excluded, and describes every difference: a table neither
// exported nor excluded (a migration added it), an exported table or
// column missing, a live column of an exported table neither exported nor
// skipped. Tables Excluded names may be missing (some exist on one
// database only).
func Coverage(live map[string][]string) []string {
	var problems []string
	exported := map[string]*Table{}
	for _, t := range Tables() {
		exported[t.Name] = t
	}
	for name, columns := range live {
		t := exported[name]
		if t == nil {
			if Excluded[name] == "" {
				problems = append(problems, fmt.Sprintf("table %s is neither exported nor excluded: add it to portable.Tables, "+
					"or to portable.Excluded with the reason", name))
			}
			continue
		}
		if Excluded[name] != "" {
			problems = append(problems, fmt.Sprintf("table %s is both exported and excluded", name))
		}
		have := map[string]bool{}
		for _, c := range columns {
			have[c] = true
			if t.index(c) < 0 && t.Skip[c] == "" {
				problems = append(problems, fmt.Sprintf("column %s.%s is neither exported nor skipped: add it to the table's "+
					"columns in portable.Tables, or to its Skip with the reason", name, c))
			}
		}
		for _, c := range t.Columns {
			if !have[c.Name] {
				problems = append(problems, fmt.Sprintf("column %s.%s is exported but the database has no such column", name, c.Name))
			}
		}
	}
	for _, t := range Tables() {
		if _, ok := live[t.Name]; !ok {
			problems = append(problems, fmt.Sprintf("table %s is exported but the database has no such table", t.Name))
		}
	}
	return problems
}
