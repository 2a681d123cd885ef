package embedding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// maxResponse bounds the body read from an endpoint, so a broken server
// cannot exhaust memory.
const maxResponse = 1 << 30

// OpenAI embeds through an OpenAI-compatible HTTP endpoint: POST
// {url}/embeddings with {"model", "input": [...]} and an optional Bearer
// key, as OpenAI, Ollama (http://localhost:11434/v1) and vLLM serve it.
// Texts go in batches of BatchSize; each request has its own timeout.
// Vectors are L2-normalised on arrival (not every server does it), so
// their dot product is their cosine. It is safe for concurrent use.
type OpenAI struct {
	endpoint string // {url}/embeddings
	base     string // url as configured, for messages (it holds no secret)
	model    string
	key      string
	keyEnv   string
	dims     int
	batch    int
	client   *http.Client
}

// NewOpenAI returns the client c describes (c.Provider must be "openai").
// The key is read once, now, from the variable c.APIKeyEnv names; a named
// variable that is unset or empty is ERR_CONFIG_INVALID, since every call
// would otherwise fail with 401.
func NewOpenAI(c Config, getenv func(string) string) (*OpenAI, error) {
	if c.Provider != ProviderOpenAI {
		return nil, baton.Errorf(baton.ErrConfigInvalid, "provider is %q, not %q", c.Provider, ProviderOpenAI).
			WithDetails("field", "provider").
			WithHint("set provider = %q in [embedding]", ProviderOpenAI)
	}
	if vs := c.validate(); len(vs) > 0 {
		return nil, configError("config", vs)
	}
	o := &OpenAI{
		endpoint: strings.TrimRight(c.URL, "/") + "/embeddings",
		base:     c.URL,
		model:    c.Model,
		keyEnv:   c.APIKeyEnv,
		dims:     c.Dims,
		batch:    c.BatchSize,
	}
	if o.batch == 0 {
		o.batch = DefaultBatchSize
	}
	timeout := DefaultTimeout
	if c.Timeout != "" {
		timeout, _ = time.ParseDuration(c.Timeout) // validated above
	}
	o.client = &http.Client{Timeout: timeout}
	if c.APIKeyEnv != "" {
		o.key = strings.TrimSpace(getenv(c.APIKeyEnv))
		if o.key == "" {
			return nil, baton.Errorf(baton.ErrConfigInvalid, "[embedding] api_key_env names %s, which is unset or empty", c.APIKeyEnv).
				WithDetails("field", "api_key_env", "env", c.APIKeyEnv).
				WithHint("export %s with the endpoint's API key, or remove api_key_env if the endpoint needs none (Ollama, a local vLLM)", c.APIKeyEnv)
		}
	}
	return o, nil
}

// Model is the configured model name.
func (o *OpenAI) Model() string { return o.model }

// Dims is the configured vector length; a response of another length is
// an error.
func (o *OpenAI) Dims() int { return o.dims }

// Embed returns one unit vector per text, in order. A blank text is not
// sent (OpenAI refuses an empty input): it gets the zero vector, as with
// the built-in embedder. Texts go in batches of batch_size; no text to
// send makes no request.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var send []string
	var at []int // at[i]: the index in texts of send[i]
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			out[i] = make([]float32, o.dims)
			continue
		}
		send = append(send, t)
		at = append(at, i)
	}
	for start := 0; start < len(send); start += o.batch {
		end := min(start+o.batch, len(send))
		vs, err := o.request(ctx, send[start:end])
		if err != nil {
			return nil, err
		}
		for j, v := range vs {
			out[at[start+j]] = v
		}
	}
	return out, nil
}

type embedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// request embeds one batch.
func (o *OpenAI) request(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(embedRequest{Model: o.model, Input: texts})
	if err != nil {
		return nil, baton.Errorf(baton.ErrInternal, "encoding the embedding request: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, o.fail("cannot build the request: %v", err).
			WithHint("check url in [embedding] of baton.toml")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if o.key != "" {
		req.Header.Set("Authorization", "Bearer "+o.key)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) && ue.Timeout() {
			return nil, o.fail("no answer within %s", o.client.Timeout).
				WithHint("the endpoint is overloaded or the model is still loading: retry, or raise timeout (or lower batch_size) in [embedding]")
		}
		return nil, o.fail("cannot reach the endpoint: %v", unwrapURL(err)).
			WithHint("start the embedding server, or fix url in [embedding] of baton.toml (Ollama: http://localhost:11434/v1)")
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, o.fail("reading the answer: %v", unwrapURL(err)).
			WithHint("retry; if it keeps failing, lower batch_size in [embedding]")
	}
	if resp.StatusCode != http.StatusOK {
		return nil, o.statusError(resp.StatusCode, data)
	}
	var r embedResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, o.fail("the answer is not an embeddings response: %v", err).
			WithDetails("status", resp.StatusCode, "body", snippet(data)).
			WithHint("url must be the API base whose /embeddings speaks the OpenAI format (Ollama: http://localhost:11434/v1, not its native /api)")
	}
	if len(r.Data) != len(texts) {
		return nil, o.fail("sent %d texts, got %d vectors back", len(texts), len(r.Data)).
			WithHint("the endpoint does not accept a list as input: set batch_size = 1 in [embedding]")
	}
	out := make([][]float32, len(texts))
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
			return nil, o.fail("the answer has a bad or repeated index %d", d.Index).
				WithHint("the endpoint is not OpenAI-compatible; check url in [embedding]")
		}
		if len(d.Embedding) != o.dims {
			return nil, o.fail("model %s returned %d-dimensional vectors, but dims = %d", o.model, len(d.Embedding), o.dims).
				WithDetails("got_dims", len(d.Embedding), "dims", o.dims).
				WithHint("set dims = %d in [embedding] of baton.toml (then run baton knowledge reindex)", len(d.Embedding))
		}
		normalize(d.Embedding)
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// fail is ERR_INIT_FAILED about this endpoint.
func (o *OpenAI) fail(format string, args ...any) *baton.Error {
	return baton.Errorf(baton.ErrInitFailed, "embedding endpoint %s (model %s): %s", o.base, o.model, fmt.Sprintf(format, args...)).
		WithDetails("url", o.base, "model", o.model)
}

// statusError explains a non-200 answer, with the server's own message
// when it gives one ({"error": {"message": ...}} from OpenAI and vLLM,
// {"error": "..."} from Ollama).
func (o *OpenAI) statusError(status int, body []byte) *baton.Error {
	msg := serverMessage(body)
	e := o.fail("HTTP %d: %s", status, msg).WithDetails("status", status)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if o.keyEnv == "" {
			return e.WithHint("the endpoint wants a key: set api_key_env in [embedding] to the variable holding it")
		}
		return e.WithHint("the key in %s was refused: check it", o.keyEnv)
	case status == http.StatusNotFound:
		return e.WithHint("check url (the API base, e.g. https://api.openai.com/v1 or http://localhost:11434/v1) and that model %s exists there (ollama pull %s)", o.model, o.model)
	case status == http.StatusTooManyRequests:
		return e.WithHint("rate limited: wait and retry, or lower batch_size in [embedding]")
	case status == http.StatusRequestEntityTooLarge:
		return e.WithHint("the batch is too large: lower batch_size in [embedding]")
	case status >= 500:
		return e.WithHint("the embedding server failed: check its log, then retry")
	}
	return e.WithHint("check model and url in [embedding] of baton.toml")
}

// serverMessage is the error message an endpoint put in its body, or the
// start of the body.
func serverMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return s
		}
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &m) == nil && m.Message != "" {
			return m.Message
		}
	}
	if s := snippet(body); s != "" {
		return s
	}
	return "empty body"
}

// snippet is the start of a body, for messages.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "..."
	}
	return s
}

// unwrapURL drops the "Post "url": " prefix of a client error: the URL is
// already in the message.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

var _ baton.Embedder = (*OpenAI)(nil)
