package membot

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
)

// membot_add limits: sources per call, and one source's length (an
// inline: text included; the whole call must fit tool.MaxArguments).
const (
	MaxAddSources     = 100
	MaxAddSourceChars = 3000
)

// Fetchers of an ingested entry (membot's fetcher column).
const (
	fetchLocal      = "local"
	fetchInline     = "inline"
	fetchDownloader = "downloader"
)

// inlinePrefix marks a source that is its own content.
const inlinePrefix = "inline:"

// schemeRE recognises a remote or plugin source (https://..., gh:...): a
// scheme of two or more characters, then ":".
var schemeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]+:`) })

type addIn struct {
	Sources          []string `json:"sources" jsonschema:"Project files, directories or globs (relative to the project root), or inline:<text>. URLs are not fetched."`
	LogicalPath      string   `json:"logical_path,omitempty" jsonschema:"Exact path for one file or text; a prefix for a directory, glob or several sources. Default: the file's project path, or inline/<timestamp>.md."`
	Include          string   `json:"include,omitempty" jsonschema:"Comma-separated globs walked files must match; one without / matches names at any depth."`
	Exclude          string   `json:"exclude,omitempty" jsonschema:"Comma-separated globs of walked files to skip."`
	FollowSymlinks   bool     `json:"follow_symlinks,omitempty" jsonschema:"Follow symbolic links while walking (never out of the project)."`
	RefreshFrequency string   `json:"refresh_frequency,omitempty" jsonschema:"How often membot_refresh re-reads a file: <n> and s, m, h or d (e.g. 1d)."`
	Downloader       string   `json:"downloader,omitempty" jsonschema:"A source plugin to force; baton has none."`
	ChangeNote       string   `json:"change_note,omitempty" jsonschema:"Stored on each new version."`
	Force            bool     `json:"force,omitempty" jsonschema:"Store files even when unchanged."`
	Sync             bool     `json:"sync,omitempty" jsonschema:"For source plugins, which baton has none of: no effect."`
}

type addOut struct {
	Ingested  []ingested `json:"ingested" jsonschema:"One entry per file or inline text, in the order of sources."`
	Total     int        `json:"total" jsonschema:"Entries."`
	OK        int        `json:"ok" jsonschema:"Entries stored as a new version."`
	Unchanged int        `json:"unchanged" jsonschema:"Files whose content had not changed since they were added (no new version)."`
	Failed    int        `json:"failed" jsonschema:"Entries that could not be ingested (see their error)."`
}

type ingested struct {
	SourcePath   string `json:"source_path" jsonschema:"The source: a path relative to the project root, the URL, or the start of an inline text."`
	LogicalPath  string `json:"logical_path" jsonschema:"Where it is (or would have been) stored; empty when a failure came first."`
	VersionID    string `json:"version_id,omitempty" jsonschema:"The new version (ok), or the current one (unchanged); absent on failure."`
	Status       string `json:"status" jsonschema:"ok, unchanged or failed."`
	Error        string `json:"error,omitempty" jsonschema:"Why it failed."`
	MimeType     string `json:"mime_type,omitempty" jsonschema:"The content's type; absent on failure."`
	SizeBytes    int64  `json:"size_bytes" jsonschema:"Content bytes (0 on failure)."`
	ChunkCount   *int   `json:"chunk_count,omitempty" jsonschema:"Chunks indexed for the new version; absent unless ok."`
	Fetcher      string `json:"fetcher" jsonschema:"local (a project file), inline, or downloader (a remote source, which baton does not fetch)."`
	SourceSHA256 string `json:"source_sha256" jsonschema:"sha256 of the source's bytes; empty on failure."`
}

// addEntry is one entry as Prepare found it: failed already, or content
// read and indexed, to be stored by Execute.
type addEntry struct {
	out     ingested
	content string
	local   bool
	ix      *knowledge.Indexed
}

// Add is membot_add. It ingests inline text and files of the project
// directory; remote sources need a fetcher baton does not have, so they
// come back as failed entries. Only an operator (the CLI, the dashboard)
// has baton read project files: an agent sees only what it is given, and
// stores what it read itself with membot_write or inline:<text>. Each
// source that cannot be ingested is a failed entry; the others go on.
var Add = tool.New(tool.Definition[addIn, Op[addOut]]{
	Name:    "membot_add",
	Event:   "document.written",
	Toolset: Toolset,
	Description: "Ingest sources as new versions: inline:<text>, or (operators only) project files, directories and globs. " +
		"Unchanged files are skipped unless force; sources that cannot be ingested are failed entries.",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"sources":           addSourcesRule(),
		"logical_path":      writeRules.path,
		"include":           tool.MaxLen(1000),
		"exclude":           tool.MaxLen(1000),
		"follow_symlinks":   tool.Field{}.WithDefault(true),
		"refresh_frequency": writeRules.frequency,
		"downloader":        tool.MaxLen(64),
		"change_note":       writeRules.note,
		"force":             tool.Field{}.WithDefault(false),
		"sync":              tool.Field{}.WithDefault(false),
	},
	Output: tool.Rules{
		"data.ingested.status":  tool.Enum("ok", "unchanged", "failed"),
		"data.ingested.fetcher": tool.Enum(fetchLocal, fetchInline, fetchDownloader),
	},
	Args: []string{"sources"},
	// Files are read, and every entry chunked and embedded, before the
	// transaction: none of it needs the store, and no write should wait
	// for disks or the embedder.
	Prepare: func(ctx context.Context, c *tool.Call, in addIn) (any, error) {
		es, err := prepareAdd(ctx, c, in)
		if err != nil {
			return nil, opError(err)
		}
		return es, nil
	},
	Execute: func(ctx context.Context, c *tool.Call, in addIn) (Op[addOut], error) {
		out, err := storeAdd(ctx, c, in, c.Prepared.([]*addEntry))
		if err != nil {
			return fail[addOut](err)
		}
		return ok(out)
	},
})

func addSourcesRule() tool.Field {
	one, most := 1, MaxAddSources
	item := tool.Length(1, MaxAddSourceChars)
	return tool.Field{MinItems: &one, MaxItems: &most, Items: &item}
}

// addCall is what every source of one call shares.
type addCall struct {
	in       addIn
	prefix   string // logical_path, normalised; "" for none
	exact    bool   // logical_path names the one entry rather than a prefix
	root     string // the project directory, "" for the global space
	filters  *filters
	files    int   // files taken so far
	bytes    int64 // their bytes
	inline   int   // inline sources of the call
	inlineN  int   // inline sources seen so far
	stamp    string
	operator bool
}

// prepareAdd resolves every source into entries, reading files and
// indexing what is to be stored.
func prepareAdd(ctx context.Context, c *tool.Call, in addIn) ([]*addEntry, error) {
	if _, err := parseFrequency(in.RefreshFrequency); err != nil {
		return nil, err
	}
	a := &addCall{in: in, operator: mayReadFiles(c.Principal),
		stamp: strings.NewReplacer(":", "-", ".", "-").Replace(c.Now.UTC().Format(baton.VersionLayout))}
	if in.LogicalPath != "" {
		p, err := baton.NormalizeDocPath(in.LogicalPath)
		if err != nil {
			return nil, err
		}
		a.prefix = strings.TrimSuffix(p, "/")
	}
	f, err := parseFilters(in.Include, in.Exclude)
	if err != nil {
		return nil, err
	}
	a.filters = f
	if err := c.View(ctx, func() (err error) {
		a.root, err = projectRoot(ctx, c)
		return err
	}); err != nil {
		return nil, err
	}
	for _, s := range in.Sources {
		if strings.HasPrefix(s, inlinePrefix) {
			a.inline++
		}
	}
	// One source that is one file or one text: logical_path is its path.
	a.exact = a.prefix != "" && len(in.Sources) == 1 &&
		(a.inline == 1 || (!isGlob(in.Sources[0]) && !schemeRE().MatchString(in.Sources[0]) &&
			(a.root == "" || !isDirSource(a.root, in.Sources[0]))))
	var out []*addEntry
	for _, s := range in.Sources {
		out = append(out, a.source(s)...)
	}
	for _, e := range out {
		if e.out.Status == "failed" {
			continue
		}
		p, err := baton.NormalizeDocPath(e.out.LogicalPath)
		if err != nil {
			e.fail(baton.AsError(err).Message)
			continue
		}
		e.out.LogicalPath = p
		if e.ix, err = indexAs(ctx, c, p, e.content, e.out.MimeType); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// source resolves one source into its entries.
func (a *addCall) source(s string) []*addEntry {
	switch {
	case a.in.Downloader != "":
		return []*addEntry{failedEntry(sourceLabel(s), fetchDownloader, fmt.Sprintf("no downloader %q: baton has no source plugins "+
			"(membot_sources lists what it ingests); store the content with membot_write", a.in.Downloader))}
	case strings.HasPrefix(s, inlinePrefix):
		return []*addEntry{a.inlineEntry(s)}
	case schemeRE().MatchString(s):
		return []*addEntry{failedEntry(s, fetchDownloader, "remote ingest is not configured: baton does not fetch URLs or plugin "+
			"sources; fetch the content yourself and store it with membot_write")}
	case !a.operator:
		return []*addEntry{failedEntry(s, fetchLocal, "agents cannot have baton read project files: read the file yourself and "+
			"store it with membot_write (or pass inline:<text>)")}
	case a.root == "":
		return []*addEntry{failedEntry(s, fetchLocal, "this session writes the global knowledge, which has no project directory "+
			"to read files from; name a project (--project), or store the content with membot_write")}
	case isGlob(s) || isDirSource(a.root, s):
		return a.walkEntries(s)
	}
	return []*addEntry{a.fileEntry(s, s, "")}
}

// inlineEntry is an inline:<text> source.
func (a *addCall) inlineEntry(s string) *addEntry {
	a.inlineN++
	text := strings.TrimPrefix(s, inlinePrefix)
	name := a.stamp + ".md"
	if a.inline > 1 {
		name = fmt.Sprintf("%s-%d.md", a.stamp, a.inlineN)
	}
	lp := "inline/" + name
	switch {
	case a.exact:
		lp = a.prefix
	case a.prefix != "":
		lp = a.prefix + "/" + name
	}
	return &addEntry{content: text, out: ingested{SourcePath: sourceLabel(s), LogicalPath: lp, Status: "ok",
		MimeType: "text/markdown", SizeBytes: int64(len(text)), Fetcher: fetchInline, SourceSHA256: sha256Hex(text)}}
}

// walkEntries is a directory or glob source: an entry per file it covers.
func (a *addCall) walkEntries(s string) []*addEntry {
	files, err := findFiles(a.root, s, a.filters, a.in.FollowSymlinks, maxAddFiles-a.files)
	if err != nil {
		return []*addEntry{failedEntry(s, fetchLocal, baton.AsError(err).Message)}
	}
	var out []*addEntry
	for _, f := range files {
		out = append(out, a.fileEntry(f.rel, f.rel, f.fromBase))
	}
	return out
}

// fileEntry reads one project file: rel as the caller named it (or as a
// walk found it), fromBase its path below the walk's base ("" for a file
// named directly).
func (a *addCall) fileEntry(src, rel, fromBase string) *addEntry {
	if a.files >= maxAddFiles {
		return failedEntry(src, fetchLocal, fmt.Sprintf("this call already holds %d files, the most one call takes; add the rest in another call", maxAddFiles))
	}
	f, err := knowledge.ReadProjectFile(a.root, rel)
	if err != nil {
		return failedEntry(src, fetchLocal, baton.AsError(err).Message)
	}
	if a.bytes+int64(len(f.Content)) > maxAddBytes {
		return failedEntry(f.Rel, fetchLocal, fmt.Sprintf("this call already read %d bytes; one call reads at most %d, add the rest in another call",
			a.bytes, maxAddBytes))
	}
	a.files++
	a.bytes += int64(len(f.Content))
	lp := f.Rel
	switch {
	case a.exact:
		lp = a.prefix
	case a.prefix != "" && fromBase != "":
		lp = a.prefix + "/" + fromBase
	case a.prefix != "":
		lp = a.prefix + "/" + path.Base(f.Rel)
	}
	return &addEntry{content: f.Content, local: true, out: ingested{SourcePath: f.Rel, LogicalPath: lp, Status: "ok",
		MimeType: f.MIME, SizeBytes: int64(len(f.Content)), Fetcher: fetchLocal, SourceSHA256: sha256Hex(f.Content)}}
}

// failedEntry is an entry that could not be ingested.
func failedEntry(src, fetcher, why string) *addEntry {
	return &addEntry{out: ingested{SourcePath: src, Status: "failed", Error: why, Fetcher: fetcher}}
}

// fail turns an entry found in Prepare into a failed one.
func (e *addEntry) fail(why string) {
	e.out = ingested{SourcePath: e.out.SourcePath, LogicalPath: e.out.LogicalPath, Status: "failed", Error: why, Fetcher: e.out.Fetcher}
	e.content, e.ix = "", nil
}

// sourceLabel is an inline source as an entry names it: its first 64
// characters.
func sourceLabel(s string) string {
	if utf8.RuneCountInString(s) <= 64 {
		return s
	}
	return string([]rune(s)[:64]) + "…"
}

// storeAdd stores the entries Prepare found, in the call's transaction: a
// file whose content is the current version's source (same path, same
// hash) is unchanged unless force.
func storeAdd(ctx context.Context, c *tool.Call, in addIn, es []*addEntry) (addOut, error) {
	freq, err := parseFrequency(in.RefreshFrequency)
	if err != nil {
		return addOut{}, err
	}
	s, err := space(ctx, c)
	if err != nil {
		return addOut{}, err
	}
	out := addOut{Ingested: []ingested{}}
	for _, e := range es {
		r := e.out
		if r.Status == "ok" {
			if err := storeEntry(ctx, c, in, s, freq, e, &r); err != nil {
				return addOut{}, err
			}
		}
		switch r.Status {
		case "ok":
			out.OK++
		case "unchanged":
			out.Unchanged++
		default:
			out.Failed++
		}
		out.Ingested = append(out.Ingested, r)
	}
	out.Total = len(out.Ingested)
	return out, nil
}

// storeEntry stores one entry and fills in its result r. Prepare checked
// what an entry could fail on (its path, its size), so an error here is
// the store's and fails the call.
func storeEntry(ctx context.Context, c *tool.Call, in addIn, s baton.DocSpace, freq int64, e *addEntry, r *ingested) error {
	key := baton.DocKey{DocSpace: s, Path: r.LogicalPath}
	cur, err := c.Tx.Document(ctx, key, "")
	if err != nil && !isNotFound(err) {
		return err
	}
	if err != nil {
		cur = nil
	}
	d := &baton.Document{DocKey: key, Content: e.content, ContentType: r.MimeType, SourceType: baton.SourceInline,
		ChangeNote: in.ChangeNote, RefreshFrequencySec: freq, LastRefreshStatus: "ok"}
	if e.local {
		if cur != nil && cur.SourceType == baton.SourceLocal && cur.SourcePath == r.SourcePath &&
			cur.SourceSHA256 == r.SourceSHA256 && !in.Force {
			r.Status, r.VersionID = "unchanged", cur.Version
			return nil
		}
		d.SourceType, d.SourcePath, d.SourceSHA256 = baton.SourceLocal, r.SourcePath, r.SourceSHA256
		if freq == 0 && cur != nil && cur.SourcePath == r.SourcePath {
			d.RefreshFrequencySec = cur.RefreshFrequencySec // a re-add keeps the schedule
		}
		d.RefreshedAt = c.Now // the source was just read
	} else if freq > 0 {
		d.RefreshedAt = c.Now
	}
	if err := write(ctx, c, d, e.ix); err != nil {
		return err
	}
	n := len(e.ix.Chunks)
	r.VersionID, r.ChunkCount = d.Version, &n
	return nil
}
