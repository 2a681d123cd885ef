package knowledge

import (
	"errors"
	"io"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// ProjectFile is a file read from a project directory.
type ProjectFile struct {
	Rel     string // slash-separated path relative to the project root
	Content string
	MIME    string
}

// ReadProjectFile reads the file at rel (relative to root, or absolute
// inside it) for ingestion. It refuses, as ERR_INVALID_INPUT and without
// naming any server path: a path that leaves the root, by ".." or by a
// symbolic link, whatever lies outside; a directory or other non-regular
// file; a file over baton.MaxDocumentBytes; content that is not UTF-8
// text. A missing file inside the root is ERR_NOT_FOUND. The file is
// opened through an os.Root, so no link swapped in while it is resolved
// can lead outside. Rel in the result is the cleaned path as given
// (links are not resolved into it), so the same file is named the same
// way by every tool that reads it.
func ReadProjectFile(root, rel string) (*ProjectFile, error) {
	if root == "" {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the project has no directory to read %q from", rel).
			WithHint("set the project's root (baton init in its repository), or write the content with membot_write")
	}
	if strings.ContainsRune(rel, 0) || strings.TrimSpace(rel) == "" {
		return nil, baton.Errorf(baton.ErrInvalidInput, "path %q is empty or holds a NUL", rel).
			WithHint("give a path relative to the project root, e.g. docs/design.md")
	}
	outside := func() error {
		return baton.Errorf(baton.ErrInvalidInput, "path %q is outside the project directory", rel).
			WithDetails("path", rel).WithHint("give a path inside the project, relative to its root, e.g. docs/design.md")
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, outside()
	}
	name := filepath.FromSlash(rel)
	if filepath.IsAbs(name) {
		// An absolute path names a file inside the root as given, or
		// through the links the root itself is reached by.
		r, ok := relativeTo(absRoot, name)
		if !ok {
			if real, err := filepath.EvalSymlinks(absRoot); err == nil {
				r, ok = relativeTo(real, name)
			}
		}
		if !ok {
			return nil, outside()
		}
		name = r
	}
	name = filepath.Clean(name)
	if name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
		return nil, outside()
	}
	// baton's own directory (agents' private memory, the database) and
	// git's are not knowledge.
	if first, _, _ := strings.Cut(filepath.ToSlash(name), "/"); first == ".baton" || first == ".git" {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%q is inside %s, which is not knowledge", rel, first).
			WithDetails("path", rel).WithHint("index the project's own files, e.g. docs/design.md")
	}
	r, err := os.OpenRoot(absRoot)
	if err != nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the project directory cannot be opened").
			WithHint("check that the project's root exists and is readable")
	}
	defer r.Close()
	f, err := r.Open(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, notFound(rel)
	case err != nil:
		// Leaving the root (by a link) and an unreadable file read alike:
		// the answer must not tell what exists outside.
		return nil, baton.Errorf(baton.ErrInvalidInput, "path %q is outside the project directory or cannot be read", rel).
			WithDetails("path", rel).WithHint("give a readable file inside the project, relative to its root, e.g. docs/design.md")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%q is not a regular file", rel).
			WithHint("name one file; membot_add takes a directory and walks it")
	}
	if st.Size() > baton.MaxDocumentBytes {
		return nil, tooLarge(rel)
	}
	b, err := io.ReadAll(io.LimitReader(f, baton.MaxDocumentBytes+1))
	if err != nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "cannot read %q", rel).WithHint("check the file's permissions")
	}
	if len(b) > baton.MaxDocumentBytes {
		return nil, tooLarge(rel)
	}
	if !utf8.Valid(b) || strings.ContainsRune(string(b), 0) {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%q is not UTF-8 text", rel).WithType("unsupported_mime").
			WithDetails("path", rel).WithHint("baton stores text documents; convert the file to Markdown or text first")
	}
	return &ProjectFile{Rel: filepath.ToSlash(name), Content: string(b), MIME: mimeOf(name)}, nil
}

// relativeTo is p relative to root when p is root or inside it.
func relativeTo(root, p string) (string, bool) {
	r, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return r, true
}

func notFound(rel string) error {
	return baton.Errorf(baton.ErrNotFound, "no file %q in the project directory", rel).WithDetails("path", rel).
		WithHint("give a path relative to the project root; list the directory to check the name")
}

func tooLarge(rel string) error {
	return baton.Errorf(baton.ErrInvalidInput, "%q is over the limit of %d bytes", rel, baton.MaxDocumentBytes).
		WithDetails("path", rel, "max_bytes", baton.MaxDocumentBytes).WithHint("split the file, or store a summary with membot_write")
}

// mimeOf is a text file's mime type by its extension: Markdown for .md
// and for files without a known type.
func mimeOf(p string) string {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".md", ".markdown", "":
		return "text/markdown"
	case ".json":
		return "application/json"
	case ".txt":
		return "text/plain"
	}
	if t := mime.TypeByExtension(filepath.Ext(p)); t != "" {
		if i := strings.IndexByte(t, ';'); i >= 0 {
			t = t[:i]
		}
		return t
	}
	return "text/plain"
}
