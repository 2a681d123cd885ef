//go:build ignore

// Command gen regenerates the search-evaluation corpus of package knowledge
// (knowledge/testdata/eval/docs) from the documentation of a local Go
// installation: one Markdown file per document, each at most maxDoc bytes.
//
//	go run knowledge/testdata/eval/gen/main.go [-goroot DIR] [-out knowledge/testdata/eval]
//
// The documents are, in this order:
//   - every public package of the standard library (no internal, vendor or
//     cmd package): its package comment, then the comment and signature of
//     each exported function, type and method, as go/doc orders them;
//   - every command under cmd/ except cmd/go: its package comment;
//   - each section of `go help` (cmd/go/alldocs.go): one document per
//     command (go mod tidy: go-help-mod-tidy.md) or topic (GOPATH environment
//     variable: go-help-gopath-environment-variable.md);
//   - the vendored packages of src/vendor and cmd/vendor (golang.org/x/...,
//     github.com/google/pprof/...), as the standard library's, and the go
//     vet analyzers of cmd/vendor/golang.org/x/tools/go/analysis/passes.
//
// Files are parsed for linux/amd64 whatever the host, so the output depends
// only on the Go tree read. Documents whose text is under minDoc bytes are
// left out. The Go tree's LICENSE is copied to NOTICE beside the corpus.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

const (
	maxDoc = 8 << 10 // bytes per document
	minDoc = 300     // shorter documents say too little to be searched for
)

func main() {
	goroot := flag.String("goroot", "", "the Go installation to read (default: go env GOROOT)")
	out := flag.String("out", "knowledge/testdata/eval", "the corpus directory (docs/ and NOTICE are rewritten)")
	flag.Parse()
	if *goroot == "" {
		b, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			log.Fatalf("go env GOROOT: %v", err)
		}
		*goroot = strings.TrimSpace(string(b))
	}
	src := filepath.Join(*goroot, "src")
	version, _ := os.ReadFile(filepath.Join(*goroot, "VERSION"))
	g := &gen{ctxt: build.Default, docs: map[string]string{}, names: map[string]string{}}
	g.ctxt.GOROOT, g.ctxt.GOOS, g.ctxt.GOARCH, g.ctxt.CgoEnabled = *goroot, "linux", "amd64", true
	g.ctxt.BuildTags, g.ctxt.ToolTags = nil, nil

	// The standard library.
	for _, dir := range dirs(src, func(rel string) bool {
		first := strings.SplitN(rel, "/", 2)[0]
		return first != "cmd" && first != "vendor" && !hasElem(rel, "internal") && !hasElem(rel, "testdata")
	}) {
		g.library(filepath.Join(src, dir), dir, dir)
	}
	// The commands.
	entries, err := os.ReadDir(filepath.Join(src, "cmd"))
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !slices.Contains([]string{"go", "internal", "vendor", "testdata"}, e.Name()) {
			g.command(filepath.Join(src, "cmd", e.Name()), "cmd/"+e.Name())
		}
	}
	g.goHelp(filepath.Join(src, "cmd", "go"))
	// Vendored golang.org/x packages and the vet analyzers.
	for _, dir := range dirs(filepath.Join(src, "vendor"), func(rel string) bool { return !hasElem(rel, "internal") }) {
		g.library(filepath.Join(src, "vendor", dir), dir, dir)
	}
	const passesPath = "golang.org/x/tools/go/analysis/passes"
	for _, dir := range dirs(filepath.Join(src, "cmd", "vendor"), func(rel string) bool {
		return !hasElem(rel, "internal") && !strings.HasPrefix(rel, passesPath)
	}) {
		g.library(filepath.Join(src, "cmd", "vendor", dir), dir, dir)
	}
	passes := filepath.Join(src, "cmd", "vendor", filepath.FromSlash(passesPath))
	for _, dir := range dirs(passes, func(rel string) bool { return !hasElem(rel, "internal") && !strings.Contains(rel, "/") }) {
		g.command(filepath.Join(passes, dir), "golang.org/x/tools/go/analysis/passes/"+dir)
	}

	docsDir := filepath.Join(*out, "docs")
	if err := os.RemoveAll(docsDir); err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(docsDir, 0o755); err != nil {
		log.Fatal(err)
	}
	names := make([]string, 0, len(g.docs))
	for n := range g.docs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(docsDir, n), []byte(g.docs[n]), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	license, err := os.ReadFile(filepath.Join(*goroot, "LICENSE"))
	if err != nil {
		log.Fatal(err)
	}
	first, _, _ := strings.Cut(string(version), "\n")
	notice := "The documents under docs/ are the documentation comments of the Go source tree\n" +
		"(" + strings.TrimSpace(first) + ", https://go.dev/), extracted and converted to Markdown by gen/main.go.\n" +
		"They are distributed under the Go project's licence, reproduced below.\n\n" + string(license)
	if err := os.WriteFile(filepath.Join(*out, "NOTICE"), []byte(notice), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d documents in %s\n", len(names), docsDir)
}

type gen struct {
	ctxt  build.Context
	docs  map[string]string // file name under docs/ -> content
	names map[string]string // file name under docs/ -> the name it was made from
}

// add records a document under a file name made from name.
func (g *gen) add(name, content string) {
	content = strings.TrimSpace(tidy(content)) + "\n"
	if len(content) < minDoc {
		return
	}
	file := fileName(name)
	if prev, dup := g.names[file]; dup {
		if prev == name {
			return // vendored in both src/vendor and cmd/vendor: the first copy is kept
		}
		log.Fatalf("%s and %s both make %s", prev, name, file)
	}
	g.names[file] = name
	g.docs[file] = capDoc(content)
}

// fileName maps an import path or command to a file name: net/http ->
// net-http.md, golang.org/x/net/idna -> x-net-idna.md, the vet analyzer
// golang.org/x/tools/go/analysis/passes/printf -> vet-printf.md.
func fileName(name string) string {
	if rest, ok := strings.CutPrefix(name, "golang.org/x/tools/go/analysis/passes/"); ok {
		name = "vet-" + rest
	} else if rest, ok := strings.CutPrefix(name, "golang.org/x/"); ok {
		name = "x-" + rest
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, name)
	for strings.Contains(name, "--") {
		name = strings.ReplaceAll(name, "--", "-")
	}
	return strings.Trim(name, "-") + ".md"
}

var (
	anchorRE = regexp.MustCompile(`[ \t]*\{#hdr-[^}]*\}`)
	linkRE   = regexp.MustCompile(`\[([^\]]+)\]\((https?://[^)\s]+)\)`)
)

// tidy drops what the Markdown printer adds for a web page: heading
// anchors, and the link text of a bare URL repeated as its target.
func tidy(s string) string {
	s = anchorRE.ReplaceAllString(s, "")
	return linkRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := linkRE.FindStringSubmatch(m)
		if strings.ReplaceAll(sub[1], `\`, "") == strings.ReplaceAll(sub[2], `\`, "") {
			return sub[2]
		}
		return m
	})
}

// capDoc cuts content to maxDoc bytes at the last line break before the
// limit (a paragraph break when there is one in the last quarter).
func capDoc(s string) string {
	if len(s) <= maxDoc {
		return s
	}
	cut := s[:maxDoc]
	if i := strings.LastIndex(cut, "\n\n"); i > maxDoc*3/4 {
		return cut[:i] + "\n"
	}
	if i := strings.LastIndex(cut, "\n"); i > 0 {
		return cut[:i] + "\n"
	}
	return cut
}

// dirs lists the directories under root (slash-separated, relative) that
// keep accepts, sorted.
func dirs(root string, keep func(rel string) bool) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == root {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if hasElem(rel, "testdata") || strings.HasPrefix(d.Name(), "_") || strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if keep(rel) {
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func hasElem(rel, elem string) bool { return slices.Contains(strings.Split(rel, "/"), elem) }

// parse reads the package in dir as built for linux/amd64; nil when there
// is none.
func (g *gen) parse(dir, importPath string) (*doc.Package, *token.FileSet) {
	bp, err := g.ctxt.ImportDir(dir, build.ImportComment)
	if err != nil || len(bp.GoFiles)+len(bp.CgoFiles) == 0 {
		return nil, nil
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range append(slices.Clone(bp.GoFiles), bp.CgoFiles...) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		log.Fatalf("%s: %v", importPath, err)
	}
	return p, fset
}

// markdown renders a doc comment, its headings at level 2 and its links
// as plain text (a link target is no word a reader searches for).
func markdown(p *doc.Package, text string) string {
	pr := p.Printer()
	pr.HeadingLevel = 2
	pr.DocLinkURL = func(*comment.DocLink) string { return "" }
	return string(pr.Markdown(p.Parser().Parse(text)))
}

// library writes a package's document: the package comment, then each
// exported function, type and method with its signature and comment.
func (g *gen) library(dir, importPath, name string) {
	p, fset := g.parse(dir, importPath)
	if p == nil || p.Name == "main" || strings.TrimSpace(p.Doc) == "" {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s", importPath, markdown(p, p.Doc))
	section := func(title, sig, text string) {
		if strings.TrimSpace(text) == "" {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		if sig != "" {
			fmt.Fprintf(&b, "    %s\n\n", strings.ReplaceAll(sig, "\n", "\n    "))
		}
		b.WriteString(markdown(p, text))
	}
	for _, f := range p.Funcs {
		section("func "+f.Name, signature(fset, f.Decl), f.Doc)
	}
	for _, t := range p.Types {
		section("type "+t.Name, "", t.Doc)
		for _, f := range t.Funcs {
			section("func "+f.Name, signature(fset, f.Decl), f.Doc)
		}
		for _, m := range t.Methods {
			section("func ("+t.Name+") "+m.Name, signature(fset, m.Decl), m.Doc)
		}
	}
	g.add(name, b.String())
}

// signature is a function declaration without its body.
func signature(fset *token.FileSet, d *ast.FuncDecl) string {
	c := *d
	c.Body, c.Doc = nil, nil
	var buf bytes.Buffer
	if err := (&printer.Config{Mode: printer.UseSpaces, Tabwidth: 4}).Fprint(&buf, fset, &c); err != nil {
		log.Fatal(err)
	}
	return buf.String()
}

// command writes a command's (or an analyzer's) document: its package
// comment.
func (g *gen) command(dir, name string) {
	p, _ := g.parse(dir, name)
	if p == nil || strings.TrimSpace(p.Doc) == "" {
		return
	}
	g.add(name, fmt.Sprintf("# %s\n\n%s", name, markdown(p, p.Doc)))
}

// usageRE finds the command a `go help` section documents.
var usageRE = regexp.MustCompile(`\A\s*Usage:\s*\n\s*\n\s+(go(?: [a-z]+){1,2})`)

// goHelp writes one document per section of cmd/go's documentation.
func (g *gen) goHelp(dir string) {
	p, _ := g.parse(dir, "cmd/go")
	if p == nil {
		log.Fatal("cmd/go has no documentation")
	}
	d := p.Parser().Parse(p.Doc)
	var title string
	var blocks []comment.Block
	flush := func() {
		if title == "" || len(blocks) == 0 {
			return
		}
		pr := p.Printer()
		pr.HeadingLevel = 2
		body := string(pr.Markdown(&comment.Doc{Content: blocks}))
		name := "go-help-" + title
		heading := "go help: " + title
		plain := string(pr.Text(&comment.Doc{Content: blocks}))
		if m := usageRE.FindStringSubmatch(plain); m != nil {
			name = "go-help-" + strings.TrimPrefix(m[1], "go ")
			heading = m[1] + ": " + title
		}
		g.add(name, fmt.Sprintf("# %s\n\n%s", heading, body))
	}
	for _, blk := range d.Content {
		if h, ok := blk.(*comment.Heading); ok {
			flush()
			title, blocks = plainText(h.Text), nil
			continue
		}
		blocks = append(blocks, blk)
	}
	flush()
}

func plainText(ts []comment.Text) string {
	var b strings.Builder
	for _, t := range ts {
		switch t := t.(type) {
		case comment.Plain:
			b.WriteString(string(t))
		case comment.Italic:
			b.WriteString(string(t))
		case *comment.Link:
			b.WriteString(plainText(t.Text))
		case *comment.DocLink:
			b.WriteString(plainText(t.Text))
		}
	}
	return b.String()
}
