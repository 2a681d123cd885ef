package worktree

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// MarkerFile is the marker baton writes: Symphony's name, which its
// prompts and verify_workspace name.
const MarkerFile = ".symphony-worktree"

// Markers are the marker files read, in order: Symphony's first, baton's
// own name second.
var Markers = []string{MarkerFile, ".baton-worktree"}

// Marker is what a worktree marker says. baton writes JSON with every
// field; it also reads markers others wrote, as JSON or key=value lines,
// where any field may be missing.
type Marker struct {
	Issue     string `json:"issue"`
	Project   string `json:"project,omitempty"`
	Branch    string `json:"branch"`
	Base      string `json:"base_branch,omitempty"`
	Path      string `json:"path"`
	CreatedAt string `json:"created_at,omitempty"`
	RunID     string `json:"run_id,omitempty"`
}

// ReadMarker reads the marker in dir. It returns nil and the path the
// marker would have when there is none, and an error only when a marker
// exists but cannot be read.
func ReadMarker(dir string) (*Marker, string, error) {
	for _, name := range Markers {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, path, err
		}
		return parseMarker(b), path, nil
	}
	return nil, filepath.Join(dir, MarkerFile), nil
}

// parseMarker reads JSON, or else key=value lines (older orchestrators
// wrote those); an empty or unreadable body is a marker that says nothing.
func parseMarker(b []byte) *Marker {
	var m Marker
	if json.Unmarshal(b, &m) == nil {
		return &m
	}
	m = Marker{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(strings.ToLower(k)) {
		case "issue", "issue_id":
			m.Issue = v
		case "project":
			m.Project = v
		case "branch":
			m.Branch = v
		case "base", "base_branch":
			m.Base = v
		case "path", "worktree":
			m.Path = v
		case "created_at":
			m.CreatedAt = v
		case "run_id":
			m.RunID = v
		}
	}
	return &m
}

// writeMarker writes m as dir's marker, whole or not at all: a reader
// never sees half a file.
func writeMarker(dir string, m *Marker) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, MarkerFile+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(append(b, '\n'))
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, filepath.Join(dir, MarkerFile))
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}
