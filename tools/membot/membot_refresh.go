package membot

import (
	"context"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
)

type refreshIn struct {
	LogicalPath string `json:"logical_path,omitempty" jsonschema:"The document to refresh; omit for every due one."`
	Force       bool   `json:"force,omitempty" jsonschema:"Store a new version even when the source is unchanged."`
}

type refreshOut struct {
	Processed []refreshed `json:"processed" jsonschema:"One entry per document looked at, by path."`
	Count     int         `json:"count" jsonschema:"Entries."`
}

type refreshed struct {
	LogicalPath  string `json:"logical_path" jsonschema:"The document."`
	Status       string `json:"status" jsonschema:"ok (a new version from the changed source), unchanged (nothing new; inline documents always), or failed (the current version stays)."`
	NewVersionID string `json:"new_version_id,omitempty" jsonschema:"The new version, when ok."`
	Error        string `json:"error,omitempty" jsonschema:"Why it failed; also recorded as last_refresh_status failed:<message>."`
}

// refreshTarget is one document to refresh, as Prepare found it: its
// source re-read (file) or why it could not be (readErr), and the new
// content indexed when it changed.
type refreshTarget struct {
	key     baton.DocKey
	version string // the version Prepare judged; another current one means it changed meanwhile
	missing string // the path has no current version: the entry fails with this
	file    *knowledge.ProjectFile
	readErr string
	ix      *knowledge.Indexed
}

// Refresh is membot_refresh: documents read from project files are read
// again, and a changed file becomes a new version. Due means a refresh
// frequency is set and it has elapsed since the last refresh (or there was
// none). Every outcome is recorded on the current version (refreshed_at,
// last_refresh_status), so a failure keeps the old content and waits for
// the next schedule. It re-reads only the files operators added, inside
// the project, so any session may run it.
var Refresh = tool.New(tool.Definition[refreshIn, Op[refreshOut]]{
	Name:    "membot_refresh",
	Event:   "document.refreshed",
	Toolset: Toolset,
	Description: "Re-read the source files of documents: logical_path now, or every document whose refresh is due. " +
		"A changed file becomes a new version; a failure keeps the current one.",
	Profiles: tool.Profiles,
	Input:    tool.Rules{"logical_path": writeRules.path, "force": tool.Field{}.WithDefault(false)},
	Output:   tool.Rules{"data.processed.status": tool.Enum("ok", "unchanged", "failed")},
	Args:     []string{"logical_path"},
	// Reading files and embedding what changed happen before the
	// transaction; Execute decides against what is current then.
	Prepare: func(ctx context.Context, c *tool.Call, in refreshIn) (any, error) {
		ts, err := prepareRefresh(ctx, c, in)
		if err != nil {
			return nil, opError(err)
		}
		return ts, nil
	},
	Execute: func(ctx context.Context, c *tool.Call, in refreshIn) (Op[refreshOut], error) {
		out := refreshOut{Processed: []refreshed{}}
		for _, t := range c.Prepared.([]*refreshTarget) {
			r, err := refreshOne(ctx, c, in, t)
			if err != nil {
				return fail[refreshOut](err)
			}
			out.Processed = append(out.Processed, r)
		}
		out.Count = len(out.Processed)
		return ok(out)
	},
})

// refreshDue says whether d's refresh is due at now.
func refreshDue(d *baton.Document, now time.Time) bool {
	if d.RefreshFrequencySec <= 0 {
		return false
	}
	return d.RefreshedAt.IsZero() || now.After(d.RefreshedAt.Add(time.Duration(d.RefreshFrequencySec)*time.Second))
}

// readFromFile says whether d's content was read from a project file.
func readFromFile(d *baton.Document) bool {
	return d.SourceType == baton.SourceLocal && d.SourcePath != ""
}

// prepareRefresh finds the documents to refresh and re-reads their files.
func prepareRefresh(ctx context.Context, c *tool.Call, in refreshIn) ([]*refreshTarget, error) {
	var docs []*baton.Document
	var ts []*refreshTarget
	var root string
	err := c.View(ctx, func() error {
		var err error
		if root, err = projectRoot(ctx, c); err != nil {
			return err
		}
		if in.LogicalPath != "" {
			key, err := resolve(ctx, c, in.LogicalPath, "")
			if err != nil {
				return err
			}
			d, err := c.Tx.Document(ctx, key, "")
			if isNotFound(err) {
				ts = append(ts, &refreshTarget{key: key, missing: baton.AsError(err).Message})
				return nil
			}
			if err != nil {
				return err
			}
			docs = []*baton.Document{d}
			return nil
		}
		s, err := space(ctx, c)
		if err != nil {
			return err
		}
		all, err := c.Tx.ListDocuments(ctx, baton.DocumentFilter{Spaces: []baton.DocSpace{s}})
		for _, d := range all {
			if refreshDue(d, c.Now) {
				docs = append(docs, d)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	// One call reads at most what membot_add reads; the rest stay due
	// and are taken by the next call.
	files, bytes := 0, int64(0)
	for _, d := range docs {
		if readFromFile(d) && (files >= maxAddFiles || bytes >= maxAddBytes) {
			break
		}
		t := &refreshTarget{key: d.DocKey, version: d.Version}
		ts = append(ts, t)
		if !readFromFile(d) {
			continue
		}
		files++
		f, err := knowledge.ReadProjectFile(root, d.SourcePath)
		if err != nil {
			t.readErr = baton.AsError(err).Message
			continue
		}
		bytes += int64(len(f.Content))
		t.file = f
		if sha256Hex(f.Content) != d.SourceSHA256 || in.Force {
			if t.ix, err = indexAs(ctx, c, d.Path, f.Content, f.MIME); err != nil {
				return nil, err
			}
		}
	}
	return ts, nil
}

// refreshOne settles one target against the version current now.
func refreshOne(ctx context.Context, c *tool.Call, in refreshIn, t *refreshTarget) (refreshed, error) {
	r := refreshed{LogicalPath: t.key.Path, Status: "unchanged"}
	if t.missing != "" {
		r.Status, r.Error = "failed", t.missing
		return r, nil
	}
	cur, err := c.Tx.Document(ctx, t.key, "")
	if isNotFound(err) {
		r.Status, r.Error = "failed", "it was removed meanwhile"
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if t.version != "" && cur.Version != t.version {
		// Written meanwhile (membot_add, vault_update): what was read
		// may be older than what is current now.
		r.Status, r.Error = "failed", "it changed while its source was read; refresh it again"
		return r, nil
	}
	own, err := inOwnSpace(ctx, c, cur)
	if err != nil {
		return r, err
	}
	mark := func(status string) error {
		if !own {
			return nil // the global knowledge is not this session's to touch
		}
		return c.Tx.MarkRefreshed(ctx, t.key, cur.Version, status, c.Now)
	}
	switch {
	case !readFromFile(cur):
		return r, mark("unchanged")
	case !own:
		r.Status, r.Error = "failed", "a document of the global knowledge is refreshed from a session of the global knowledge"
		return r, nil
	case t.readErr != "" || t.file == nil:
		r.Status, r.Error = "failed", t.readErr
		if r.Error == "" {
			r.Error = "its source was not read"
		}
		return r, mark("failed:" + r.Error)
	case t.file.Rel == cur.SourcePath && sha256Hex(t.file.Content) == cur.SourceSHA256 && !in.Force:
		return r, mark("unchanged")
	}
	d := &baton.Document{DocKey: t.key, Content: t.file.Content, ContentType: t.file.MIME, SourceType: baton.SourceLocal,
		SourcePath: t.file.Rel, SourceSHA256: sha256Hex(t.file.Content), ChangeNote: "refreshed from " + t.file.Rel,
		RefreshFrequencySec: cur.RefreshFrequencySec, RefreshedAt: c.Now, LastRefreshStatus: "ok"}
	if err := write(ctx, c, d, t.ix); err != nil {
		return r, err
	}
	r.Status, r.NewVersionID = "ok", d.Version
	return r, nil
}
