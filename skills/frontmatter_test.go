package skills

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want Frontmatter
		body string
		err  string // substring of the error; empty means success
	}{
		{
			name: "scalars and inline list",
			src:  "---\nname: colibri-tier1-chains\nversion: 1.0.0\ndescription: Canonical Tier 1 chains.\ncapabilities: [round-plan, writeback-audit]\n---\n# Body\n",
			want: Frontmatter{Name: "colibri-tier1-chains", Version: "1.0.0", Description: "Canonical Tier 1 chains.", Capabilities: []string{"round-plan", "writeback-audit"}},
			body: "# Body\n",
		},
		{
			name: "quoted scalars",
			src:  "---\nname: \"x\"\nversion: '2.0'\ndescription: \"Says \\\"hi\\\": a, b # not a comment\\u00e9\"\n---\n",
			want: Frontmatter{Name: "x", Version: "2.0", Description: `Says "hi": a, b # not a comment` + "é", Capabilities: []string{}},
		},
		{
			name: "single quotes double to escape",
			src:  "---\ndescription: 'It''s fine'  # trailing comment\n---\n",
			want: Frontmatter{Description: "It's fine", Capabilities: []string{}},
		},
		{
			name: "block list",
			src:  "---\ndescription: d\ncapabilities:\n  - plan\n  - \"review, deep\"\n\n  - 'audit'  # why\n---\nbody",
			want: Frontmatter{Description: "d", Capabilities: []string{"plan", "review, deep", "audit"}},
			body: "body",
		},
		{
			name: "block list at column 0",
			src:  "---\ncapabilities:\n- a\n- b\ndescription: d\n---\n",
			want: Frontmatter{Description: "d", Capabilities: []string{"a", "b"}},
		},
		{
			name: "inline list with quotes, trailing comma and comment",
			src:  "---\ndescription: d\ncapabilities: [ \"a, b\" , 'c',d, ] # note\n---\n",
			want: Frontmatter{Description: "d", Capabilities: []string{"a, b", "c", "d"}},
		},
		{
			name: "empty inline list and null capabilities",
			src:  "---\ndescription: d\ncapabilities: []\n---\n",
			want: Frontmatter{Description: "d", Capabilities: []string{}},
		},
		{
			name: "null capabilities",
			src:  "---\ndescription: d\ncapabilities:\n---\n",
			want: Frontmatter{Description: "d", Capabilities: []string{}},
		},
		{
			name: "comments and blank lines",
			src:  "---\n# a comment\n\nname: n # trailing\ndescription: Uses C# daily   \n  # indented comment\n---\n",
			want: Frontmatter{Name: "n", Description: "Uses C# daily", Capabilities: []string{}},
		},
		{
			name: "CRLF line endings",
			src:  "---\r\nname: n\r\ndescription: d\r\ncapabilities:\r\n  - a\r\n---\r\nline 1\r\nline 2\r\n",
			want: Frontmatter{Name: "n", Description: "d", Capabilities: []string{"a"}},
			body: "line 1\nline 2\n",
		},
		{
			name: "byte order mark and fence with trailing spaces",
			src:  "\uFEFF---  \ndescription: d\n---\t\nb",
			want: Frontmatter{Description: "d", Capabilities: []string{}},
			body: "b",
		},
		{
			name: "plain scalar continued on indented lines",
			src:  "---\ndescription: A long\n  description that goes on\n---\n",
			want: Frontmatter{Description: "A long description that goes on", Capabilities: []string{}},
		},
		{
			name: "folded block scalar",
			src:  "---\ndescription: >-\n  First line\n  continues.\n\n  New paragraph.\nversion: 3\n---\n",
			want: Frontmatter{Description: "First line continues.\nNew paragraph.", Version: "3", Capabilities: []string{}},
		},
		{
			name: "literal block scalar",
			src:  "---\ndescription: |\n  one\n    two\n# column-0 comment\nname: n\n---\n",
			want: Frontmatter{Name: "n", Description: "one\n  two", Capabilities: []string{}},
		},
		{
			name: "unknown keys and nested mappings are ignored",
			src:  "---\ndescription: d\nlicense: MIT\nallowed-tools: [Read, Grep]\nmetadata:\n  author: someone\n  tags:\n    - x\nextra: {a: 1}\n---\n",
			want: Frontmatter{Description: "d", Capabilities: []string{}},
		},
		{
			name: "body keeps later fences",
			src:  "---\ndescription: d\n---\n\n---\nnot frontmatter: x\n",
			want: Frontmatter{Description: "d", Capabilities: []string{}},
			body: "\n---\nnot frontmatter: x\n",
		},
		{name: "empty file", src: "", err: "no frontmatter"},
		{name: "no frontmatter", src: "# Title\n\ndescription: d\n", err: "no frontmatter"},
		{name: "leading blank line", src: "\n---\ndescription: d\n---\n", err: "no frontmatter"},
		{name: "unterminated", src: "---\ndescription: d\n# body without a fence\n", err: "unterminated frontmatter"},
		{name: "bad line", src: "---\ndescription: d\njust some words\n---\n", err: "line 3: expected \"key: value\""},
		{name: "key without space", src: "---\ndescription:d\n---\n", err: "line 2: expected"},
		{name: "quoted key", src: "---\n\"description\": d\n---\n", err: "line 2: expected"},
		{name: "item outside a list", src: "---\ndescription: d\n- a\n---\n", err: "line 3: list item outside a list"},
		{name: "unexpected indentation", src: "---\n  description: d\n---\n", err: "line 2: unexpected indentation"},
		{name: "duplicate key", src: "---\ndescription: d\ndescription: e\n---\n", err: "line 3: duplicate key \"description\" (first on line 2)"},
		{name: "unterminated quote", src: "---\ndescription: \"d\n---\n", err: "line 2: unterminated quoted text"},
		{name: "text after quote", src: "---\ndescription: \"d\" e\n---\n", err: "line 2: unexpected text after the closing quote"},
		{name: "bad escape", src: "---\ndescription: \"\\q\"\n---\n", err: "line 2: unknown escape"},
		{name: "unterminated inline list", src: "---\ndescription: d\ncapabilities: [a, b\n---\n", err: "line 3: unterminated inline list"},
		{name: "empty inline element", src: "---\ndescription: d\ncapabilities: [a, , b]\n---\n", err: "line 3: empty element"},
		{name: "nested inline list", src: "---\ndescription: d\ncapabilities: [a, [b]]\n---\n", err: "nested collections"},
		{name: "misaligned list item", src: "---\ndescription: d\ncapabilities:\n  - a\n    - b\n---\n", err: "line 5: expected a list item"},
		{name: "mapping line in a list", src: "---\ndescription: d\ncapabilities:\n  - a\n  b: c\n---\n", err: "line 5: expected a list item"},
		{name: "missing description", src: "---\nname: n\n---\n", err: "description is required"},
		{name: "empty description", src: "---\ndescription: \"  \"\n---\n", err: "line 2: description is empty"},
		{name: "description is a list", src: "---\ndescription: [a]\n---\n", err: "line 2: description must be text, not a list"},
		{name: "name is a mapping", src: "---\ndescription: d\nname:\n  first: x\n---\n", err: "line 3: name must be text, not a mapping"},
		{name: "capabilities is text", src: "---\ndescription: d\ncapabilities: plan\n---\n", err: "line 3: capabilities must be a list"},
		{name: "empty capability", src: "---\ndescription: d\ncapabilities:\n  -\n---\n", err: "line 3: capability 1 is empty"},
		{name: "baton tools", src: "---\ndescription: d\nbaton-tools: [get_issue, add_finding]\n---\n",
			want: Frontmatter{Description: "d", Capabilities: []string{}, Tools: []string{"get_issue", "add_finding"}}},
		{name: "baton tools in block form", src: "---\ndescription: d\nbaton-tools:\n  - record_coverage\n---\n",
			want: Frontmatter{Description: "d", Capabilities: []string{}, Tools: []string{"record_coverage"}}},
		{name: "baton tools not a list", src: "---\ndescription: d\nbaton-tools: get_issue\n---\n", err: "line 3: baton-tools must be a list"},
		{name: "empty baton tool", src: "---\ndescription: d\nbaton-tools: [a, \"\"]\n---\n", err: "line 3: tool 2 is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fm, body, err := Parse([]byte(c.src))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if c.want.Tools == nil {
				c.want.Tools = []string{} // never nil, like Capabilities
			}
			if !reflect.DeepEqual(fm, c.want) {
				t.Errorf("frontmatter = %#v\nwant %#v", fm, c.want)
			}
			if body != c.body {
				t.Errorf("body = %q, want %q", body, c.body)
			}
		})
	}
}
