package membot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
	jsonata "github.com/xiatechs/jsonata-go"
	"github.com/xiatechs/jsonata-go/jparse"
)

// membot_query's error kinds (membot-operations.md §7).
const (
	typeSourceNotFound    = "source_not_found"
	typeSourceTooLarge    = "source_too_large"
	typeInvalidJSON       = "invalid_json"
	typeInvalidExpression = "invalid_expression"
	typeEvaluationError   = "evaluation_error"
	typeWriteFailed       = "write_failed"
	typeQueryInternal     = baton.ErrorTypeInternal
)

const (
	// QueryTimeout is how long an expression may run (§7 step 6).
	QueryTimeout = 5 * time.Second
	// defaultQueryInput is max_input_bytes' default, in characters. A
	// document holds at most baton.MaxDocumentBytes, so it only binds
	// when a caller sets a lower one.
	defaultQueryInput = 20_000_000
	// queryMessageChars is how much of the library's error text a
	// failure keeps: it can quote whole argument values.
	queryMessageChars = 1000
	// queryPreviewChars is the preview of a stored result.
	queryPreviewChars = 200
)

type queryIn struct {
	LogicalPath       string `json:"logical_path" jsonschema:"The document to query; its current version must be one whole JSON value."`
	Expression        string `json:"expression" jsonschema:"JSONata over the document's parsed JSON ($ is the root). \"?\" or blank returns the syntax primer."`
	OutputLogicalPath string `json:"output_logical_path,omitempty" jsonschema:"Store the result there, pretty-printed JSON, as a new version, instead of returning it."`
	ChangeNote        string `json:"change_note,omitempty" jsonschema:"Stored with the output_logical_path version; default 'query of <logical_path>'."`
	MaxInputBytes     int    `json:"max_input_bytes,omitempty" jsonschema:"Refuse a document longer than this many characters (source_too_large)."`
}

type queryOut struct {
	IsError bool `json:"is_error" jsonschema:"Always false on success (a failure is the error envelope with error_type)."`
	// The primer, for expression "?" or blank.
	Message string `json:"message,omitempty" jsonschema:"The JSONata syntax primer (expression \"?\" or blank)."`
	// The result, without output_logical_path.
	Result      any    `json:"result,omitempty" jsonschema:"The expression's value, any JSON value; null when it selects nothing."`
	ResultType  string `json:"result_type,omitempty" jsonschema:"The JSON type of result."`
	ResultCount *int   `json:"result_count,omitempty" jsonschema:"Elements of an array result, keys of an object result."`
	// Where the result went, with output_logical_path.
	LogicalPath  string `json:"logical_path,omitempty" jsonschema:"The normalised output_logical_path the result was stored at."`
	VersionID    string `json:"version_id,omitempty" jsonschema:"The stored result's new version."`
	BytesWritten int    `json:"bytes_written,omitempty" jsonschema:"UTF-8 size of the stored result."`
	Preview      string `json:"preview,omitempty" jsonschema:"Its first 200 characters."`
}

// queryRun is what Prepare found: the primer, or the result, and for
// output_logical_path the stored form, indexed.
type queryRun struct {
	primer bool
	value  any             // the result as the library returned it
	raw    json.RawMessage // compact JSON of it ("null" when undefined), to return
	stored string          // pretty-printed, for output_logical_path
	ix     *knowledge.Indexed
}

// Query is Botholomew's membot_query: a JSONata expression over the JSON
// document at logical_path, evaluated outside the write transaction for at
// most QueryTimeout, returning (or storing) only the result, so reducing a
// large document costs the size of the answer. JSONata only reads and
// reshapes the document it is given: no files, network or host.
var Query = tool.New(tool.Definition[queryIn, queryOut]{
	Name:    "membot_query",
	Toolset: Toolset,
	Description: "Reduce a stored JSON document without reading it: run a JSONata expression over logical_path " +
		"and get back only the result, or store it at output_logical_path. Examples: filter `$[amount > 100]`, " +
		"pluck `$.{ 'id': id, 'subject': subject }`, dedup `$distinct(email)`, sort+slice `$^(>created)[[0..9]]`, " +
		"sum `$sum(amount)`, group `${ $substring(ts,0,10): $count($) }`. expression \"?\" returns the full syntax primer.",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"logical_path":        writeRules.path,
		"output_logical_path": tool.MaxLen(baton.MaxDocumentPath),
		"change_note":         writeRules.note,
		"max_input_bytes":     tool.Range(1, defaultQueryInput).WithDefault(defaultQueryInput),
	},
	Output: tool.Rules{
		"result_type": tool.Enum("array", "object", "string", "number", "boolean", "null"),
	},
	Args:    []string{"logical_path", "expression"},
	Prepare: prepareQuery,
	Execute: func(ctx context.Context, c *tool.Call, in queryIn) (queryOut, error) {
		run := c.Prepared.(*queryRun)
		if run.primer {
			return queryOut{Message: queryPrimer}, nil
		}
		if in.OutputLogicalPath == "" {
			return inlineResult(run), nil
		}
		key, err := writeKey(ctx, c, in.OutputLogicalPath)
		if err != nil {
			return queryOut{}, queryWriteFailed(err)
		}
		note := in.ChangeNote
		if note == "" {
			note = "query of " + in.LogicalPath
		}
		d := &baton.Document{DocKey: key, Content: run.stored, ContentType: queryMime, SourceType: baton.SourceInline,
			ChangeNote: note, LastRefreshStatus: "ok"}
		if err := write(ctx, c, d, run.ix); err != nil {
			return queryOut{}, queryWriteFailed(err)
		}
		return queryOut{LogicalPath: d.Path, VersionID: d.Version, BytesWritten: len(run.stored),
			Preview: queryPrefix(run.stored, queryPreviewChars)}, nil
	},
})

// queryMime is the type a stored result is kept as.
const queryMime = "application/json"

// prepareQuery does the work of §7 steps 1 to 6 (and indexes a result to
// store) before the call's write transaction, which then only writes: an
// expression may run for seconds and must not hold the store's writer.
func prepareQuery(ctx context.Context, c *tool.Call, in queryIn) (any, error) {
	if e := strings.TrimSpace(in.Expression); e == "" || e == "?" {
		return &queryRun{primer: true}, nil
	}
	var src *baton.Document
	var out baton.DocKey
	if err := c.View(ctx, func() error {
		var err error
		if in.OutputLogicalPath != "" {
			if out, err = writeKey(ctx, c, in.OutputLogicalPath); err != nil {
				return queryWriteFailed(err)
			}
		}
		src, err = querySource(ctx, c, in.LogicalPath)
		return err
	}); err != nil {
		return nil, err
	}
	// max_input_bytes counts characters, as upstream does; a text has no
	// more characters than bytes, so count them only past the limit.
	if chars := len(src.Content); chars > in.MaxInputBytes {
		chars = utf8.RuneCountInString(src.Content)
		if chars > in.MaxInputBytes {
			return nil, baton.Errorf(baton.ErrInvalidInput, "%s holds %d characters, over max_input_bytes (%d)",
				src.Path, chars, in.MaxInputBytes).
				WithType(typeSourceTooLarge).WithDetails("logical_path", src.Path, "max_input_bytes", in.MaxInputBytes).
				WithHint("raise max_input_bytes, or query a smaller document (split it, or reduce it first with a narrower query)")
		}
	}
	var doc any
	if err := json.Unmarshal([]byte(src.Content), &doc); err != nil {
		e := baton.Errorf(baton.ErrInvalidInput, "%s is not JSON: %v", src.Path, err).
			WithType(typeInvalidJSON).WithDetails("logical_path", src.Path).
			WithHint("membot_query reads JSON documents only; read text with membot_read (or search it with membot_search)")
		var se *json.SyntaxError
		if errors.As(err, &se) {
			e = e.WithDetails("offset", se.Offset)
		}
		return nil, e
	}
	expr, err := compileQuery(in.Expression)
	if err != nil {
		return nil, err
	}
	value, err := evalQuery(ctx, expr, doc)
	if err != nil {
		return nil, err
	}
	run := &queryRun{value: value}
	if in.OutputLogicalPath == "" {
		if run.raw, err = queryJSON(value, ""); err != nil {
			return nil, err
		}
		return run, nil
	}
	pretty, err := queryJSON(value, "  ")
	if err != nil {
		return nil, err
	}
	run.stored = string(pretty)
	if len(run.stored) > baton.MaxDocumentBytes {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the result is %d bytes as JSON, over the %d a document may hold",
			len(run.stored), baton.MaxDocumentBytes).
			WithType(typeWriteFailed).WithDetails("bytes", len(run.stored), "max_bytes", baton.MaxDocumentBytes).
			WithHint("narrow the expression (filter, pluck fewer fields, or slice with [[0..99]]) so the result is smaller")
	}
	if run.ix, err = knowledge.Index(ctx, c.Env.Embed(), out.Path, run.stored, queryMime); err != nil {
		return nil, queryWriteFailed(err)
	}
	return run, nil
}

// querySource is the current version of path the session reads; any
// failure is source_not_found with the read's own hint, except a failing
// store.
func querySource(ctx context.Context, c *tool.Call, path string) (*baton.Document, error) {
	d, err := func() (*baton.Document, error) {
		p, err := baton.NormalizeDocPath(path)
		if err != nil {
			return nil, err
		}
		key, err := resolve(ctx, c, p, "")
		if err != nil {
			return nil, err
		}
		return c.Tx.Document(ctx, key, "")
	}()
	if err == nil {
		return d, nil
	}
	e := baton.AsError(err)
	if e.Code == baton.ErrInternal {
		return nil, err
	}
	out := *e
	out.Type = typeSourceNotFound
	if isNotFound(err) {
		out.Message = fmt.Sprintf("no current document at %s to query", path)
	}
	if out.Hint == "" {
		out.Hint = "check the path with membot_exists or membot_list"
	}
	return nil, &out
}

// compileQuery compiles expr; a syntax error is invalid_expression, with
// its position and the primer as the hint.
func compileQuery(expr string) (e *jsonata.Expr, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, baton.Errorf(baton.ErrInvalidInput, "the expression could not be compiled: %v", r).
				WithType(typeInvalidExpression).WithHint("%s", queryPrimer)
		}
	}()
	e, err = jsonata.Compile(expr)
	if err == nil {
		return e, nil
	}
	be := baton.Errorf(baton.ErrInvalidInput, "invalid JSONata expression: %s", queryCut(err.Error(), queryMessageChars)).
		WithType(typeInvalidExpression).WithHint("%s", queryPrimer)
	var pe *jparse.Error
	if errors.As(err, &pe) {
		be = be.WithDetails("position", pe.Position)
	}
	return nil, be
}

// evalQuery evaluates e over doc for at most QueryTimeout. The library
// checks the context as it goes (third_party/jsonata-go/NOTE.md), so
// nothing runs on after the call returns.
func evalQuery(call context.Context, e *jsonata.Expr, doc any) (v any, err error) {
	ctx, cancel := context.WithTimeout(call, QueryTimeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, baton.Errorf(baton.ErrInternal, "the JSONata library failed on this expression: %v", r).
				WithType(typeQueryInternal).
				WithHint("nothing was written; rewrite the expression another way (this is a bug in the library, report it)")
		}
	}()
	v, err = e.EvalContext(ctx, doc)
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, jsonata.ErrUndefined):
		return nil, nil // no match: undefined
	case call.Err() != nil:
		return nil, baton.Errorf(baton.ErrInvalidInput, "the call ended (cancelled, or its own deadline passed) before the expression finished").
			WithType(typeEvaluationError).
			WithHint("retry with more time, or simplify the expression\n\n%s", queryPrimer)
	case ctx.Err() != nil:
		return nil, baton.Errorf(baton.ErrInvalidInput, "the expression ran for more than %s and was stopped", QueryTimeout).
			WithType(typeEvaluationError).WithDetails("timeout_seconds", QueryTimeout.Seconds()).
			WithHint("simplify the expression (narrow it with a filter first, avoid recursion), then retry\n\n%s", queryPrimer)
	}
	return nil, baton.Errorf(baton.ErrInvalidInput, "evaluating the expression failed: %s", queryCut(err.Error(), queryMessageChars)).
		WithType(typeEvaluationError).
		WithHint("simplify the expression and check it against the document's shape, then retry\n\n%s", queryPrimer)
}

// queryJSON is v as JSON (indented by indent, if any), null for an
// undefined result. Characters HTML would mind stay as they are.
func queryJSON(v any, indent string) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the result is not JSON: %v", err).
			WithType(typeEvaluationError).
			WithHint("the expression produced a value JSON cannot hold (a function, or an infinite number); change it to return data")
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// inlineResult is the result returned in the output (§7 step 7b).
func inlineResult(run *queryRun) queryOut {
	out := queryOut{Result: run.raw, ResultType: jsonType(run.raw)}
	if out.ResultType == "array" || out.ResultType == "object" {
		n := jsonCount(run.value, run.raw)
		out.ResultCount = &n
	}
	return out
}

// jsonCount is the number of elements or keys of an array or object
// result: from the Go value when it is a slice or map, else from its JSON.
func jsonCount(v any, raw json.RawMessage) int {
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return rv.Len()
	}
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) == nil {
		return len(elems)
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(raw, &keys)
	return len(keys)
}

// jsonType is the JSON type of a JSON text.
func jsonType(raw json.RawMessage) string {
	switch raw[0] {
	case '[':
		return "array"
	case '{':
		return "object"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// queryWriteFailed is a failure to store the result: write_failed, with
// the store's code and hint, unless the store itself failed.
func queryWriteFailed(err error) error {
	e := baton.AsError(opError(err))
	out := *e
	if out.Code != baton.ErrInternal {
		out.Type = typeWriteFailed
	}
	return &out
}

// queryCut is s cut to n characters, saying how much was left out.
func queryCut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return fmt.Sprintf("%s [truncated, %d more chars]", string(r[:n]), len(r)-n)
}

// queryPrefix is s's first n characters.
func queryPrefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// queryPrimer is the JSONata syntax reference membot_query returns for
// expression "?" and with every invalid_expression and evaluation_error.
const queryPrimer = `JSONata primer (membot_query). $ is the document's parsed JSON, the root.

Paths      name.sub           walk objects; over an array a path visits every item and flattens the results
           $                  the root; inside [ ], { } and after a dot, the current item
           $.name             name of every item of an array root
Filter     $[amount > 100]    the items where the predicate holds; $[0] the first, $[-1] the last
Slice      $[[0..9]]          items 0 to 9 (in order after a sort: $^(>created)[[0..9]])
Sort       $^(>created)       by created, descending; $^(<a, >b) a ascending, then b descending
Project    $.{ 'id': id, 'subject': subject }   one object per item
Group      ${ key: agg }      one entry per distinct key, agg over that key's items
Operators  &  joins strings   ~>  pipes into a function (x ~> $f(y) is $f(x, y))   and  or
           =  !=  <  <=  >  >=  in   +  -  *  /  %   cond ? a : b
Functions  $count $sum $average $max $min $distinct $substring(s, start, length) $split(s, sep)
           $join(array, sep) $keys $sort $reverse $number $string $uppercase $lowercase
           $contains(s, text or /regex/) $match(s, /regex/)

Examples
  filter       $[amount > 100]
  pluck        $.{ 'id': id, 'subject': subject }
  dedup        $distinct(email)
  sort+slice   $^(>created)[[0..9]]
  sum          $sum(amount)
  group        ${ $substring(ts,0,10): $count($) }
  count        $count($)
  group+sum    ${ email: $sum(amount) }

When the root is an object, start with the field that holds the records: items[amount > 100],
$sum(items.amount), items^(>created)[[0..9]], items{ email: $sum(amount) }.
Strings take 'single' or "double" quotes; a field name with spaces or dashes goes in backquotes: ` + "`first name`" + `.
A result with nothing selected is null.`
