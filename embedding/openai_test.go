package embedding

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/baton-dev/baton"
)

// fakeServer is an OpenAI-compatible /embeddings endpoint: the vector of a
// text is [len(text), 1, 0, ...] (not normalised), so tests can tell
// which text a vector belongs to.
type fakeServer struct {
	*httptest.Server
	dims int

	mu       sync.Mutex
	requests []fakeRequest
	// reply, when set, answers instead of the fake embedder.
	reply func(w http.ResponseWriter, r *http.Request, in []string)
}

type fakeRequest struct {
	Path, Auth, Model string
	Input             []string
}

func newFakeServer(t *testing.T, dims int) *fakeServer {
	f := &fakeServer{dims: dims}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&body) != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.requests = append(f.requests, fakeRequest{r.URL.Path, r.Header.Get("Authorization"), body.Model, body.Input})
		reply := f.reply
		f.mu.Unlock()
		if r.URL.Path != "/v1/embeddings" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"404 page not found"}`))
			return
		}
		if reply != nil {
			reply(w, r, body.Input)
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Object string `json:"object"`
			Data   []item `json:"data"`
			Model  string `json:"model"`
		}
		out.Object, out.Model = "list", body.Model
		// Answer in reverse order: clients must use index, not position.
		for i := len(body.Input) - 1; i >= 0; i-- {
			v := make([]float32, f.dims)
			v[0], v[1] = float32(len(body.Input[i])), 1
			out.Data = append(out.Data, item{"embedding", i, v})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) calls() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

func (f *fakeServer) config() Config {
	return Config{Provider: ProviderOpenAI, URL: f.URL + "/v1/", Model: "test-embed", Dims: f.dims}
}

func noEnv(string) string { return "" }

func mustOpenAI(t *testing.T, c Config, getenv func(string) string) *OpenAI {
	t.Helper()
	o, err := NewOpenAI(c, getenv)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func wantCode(t *testing.T, err error, code, inMessage, inHint string) *baton.Error {
	t.Helper()
	var e *baton.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want a baton error %s", err, code)
	}
	if e.Code != code || !strings.Contains(e.Message, inMessage) || !strings.Contains(e.Hint, inHint) {
		t.Fatalf("err = %s / %q / hint %q; want %s, message with %q, hint with %q", e.Code, e.Message, e.Hint, code, inMessage, inHint)
	}
	return e
}

func TestOpenAIEmbedsInBatchesInOrder(t *testing.T) {
	f := newFakeServer(t, 8)
	c := f.config()
	c.BatchSize = 2
	o := mustOpenAI(t, c, noEnv)
	if o.Model() != "test-embed" || o.Dims() != 8 {
		t.Fatalf("Model, Dims = %q, %d", o.Model(), o.Dims())
	}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vs, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		// [len, 1] normalised.
		n := math.Hypot(float64(len(texts[i])), 1)
		if len(v) != 8 || math.Abs(float64(v[0])-float64(len(texts[i]))/n) > 1e-6 || math.Abs(float64(v[1])-1/n) > 1e-6 {
			t.Errorf("vector %d = %v, want the normalised [%d 1 0...]", i, v, len(texts[i]))
		}
		if math.Abs(norm(v)-1) > 1e-6 {
			t.Errorf("|vector %d| = %v, want 1", i, norm(v))
		}
	}
	calls := f.calls()
	if len(calls) != 3 {
		t.Fatalf("%d requests for 5 texts in batches of 2, want 3", len(calls))
	}
	for i, want := range [][]string{{"a", "bb"}, {"ccc", "dddd"}, {"eeeee"}} {
		if got := calls[i]; got.Path != "/v1/embeddings" || got.Model != "test-embed" || fmt.Sprint(got.Input) != fmt.Sprint(want) || got.Auth != "" {
			t.Errorf("request %d = %+v, want POST /v1/embeddings of %v, model test-embed, no Authorization", i, got, want)
		}
	}
	if vs, err := o.Embed(context.Background(), nil); err != nil || len(vs) != 0 || len(f.calls()) != 3 {
		t.Errorf("Embed(nil) = %v, %v after %d requests; want nothing and no request", vs, err, len(f.calls())-3)
	}
}

func TestOpenAISendsTheKeyFromTheNamedVariable(t *testing.T) {
	f := newFakeServer(t, 4)
	c := f.config()
	c.APIKeyEnv = "EMBED_KEY"
	o := mustOpenAI(t, c, func(k string) string {
		if k == "EMBED_KEY" {
			return "sk-test-123\n"
		}
		return ""
	})
	if _, err := o.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := f.calls()[0].Auth; got != "Bearer sk-test-123" {
		t.Fatalf("Authorization = %q, want Bearer sk-test-123", got)
	}
}

func TestOpenAIUnsetKeyVariableIsConfigError(t *testing.T) {
	f := newFakeServer(t, 4)
	c := f.config()
	c.APIKeyEnv = "EMBED_KEY"
	_, err := NewOpenAI(c, noEnv)
	wantCode(t, err, baton.ErrConfigInvalid, "EMBED_KEY", "export EMBED_KEY")
}

func TestOpenAIEndpointErrors(t *testing.T) {
	cases := []struct {
		name      string
		path      string // base path; the fake serves /v1 only
		status    int
		body      string
		keyEnv    string
		inMessage string
		inHint    string
	}{
		{"unauthorized without key", "/v1", 401, `{"error":{"message":"Incorrect API key provided"}}`, "", "HTTP 401: Incorrect API key provided", "set api_key_env"},
		{"unauthorized with key", "/v1", 401, `{"error":{"message":"Incorrect API key provided"}}`, "EMBED_KEY", "HTTP 401", "EMBED_KEY was refused"},
		{"wrong base path", "/api", 0, "", "", "HTTP 404: 404 page not found", "check url"},
		{"unknown model (ollama)", "/v1", 404, `{"error":"model \"test-embed\" not found, try pulling it first"}`, "", "not found, try pulling it first", "ollama pull test-embed"},
		{"rate limited", "/v1", 429, `{"error":{"message":"slow down"}}`, "", "HTTP 429: slow down", "lower batch_size"},
		{"server error, plain body", "/v1", 500, "upstream exploded", "", "HTTP 500: upstream exploded", "check its log"},
		{"bad request, empty body", "/v1", 400, "", "", "HTTP 400: empty body", "check model and url"},
		{"not JSON", "/v1", 200, "<html>hello</html>", "", "not an embeddings response", "OpenAI format"},
		{"too few vectors", "/v1", 200, `{"data":[]}`, "", "sent 1 texts, got 0 vectors", "batch_size = 1"},
		{"bad index", "/v1", 200, `{"data":[{"index":3,"embedding":[1,0,0,0]}]}`, "", "bad or repeated index 3", "not OpenAI-compatible"},
		{"wrong dims", "/v1", 200, `{"data":[{"index":0,"embedding":[1,0,0]}]}`, "", "returned 3-dimensional vectors, but dims = 4", "set dims = 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeServer(t, 4)
			if c.status != 0 {
				f.reply = func(w http.ResponseWriter, _ *http.Request, _ []string) {
					w.WriteHeader(c.status)
					_, _ = w.Write([]byte(c.body))
				}
			}
			cfg := f.config()
			cfg.URL = f.URL + c.path
			cfg.APIKeyEnv = c.keyEnv
			o := mustOpenAI(t, cfg, func(string) string { return "k" })
			_, err := o.Embed(context.Background(), []string{"hello"})
			e := wantCode(t, err, baton.ErrInitFailed, c.inMessage, c.inHint)
			if e.Details["url"] != cfg.URL || e.Details["model"] != "test-embed" {
				t.Errorf("details = %v, want url and model", e.Details)
			}
			if strings.Contains(err.Error(), "Bearer") {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
}

func TestOpenAIUnreachableEndpoint(t *testing.T) {
	f := newFakeServer(t, 4)
	c := f.config()
	f.Close()
	_, err := mustOpenAI(t, c, noEnv).Embed(context.Background(), []string{"x"})
	wantCode(t, err, baton.ErrInitFailed, "cannot reach the endpoint", "start the embedding server")
}

func TestOpenAITimeout(t *testing.T) {
	f := newFakeServer(t, 4)
	release := make(chan struct{})
	defer close(release)
	f.reply = func(w http.ResponseWriter, r *http.Request, _ []string) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	c := f.config()
	c.Timeout = "50ms"
	_, err := mustOpenAI(t, c, noEnv).Embed(context.Background(), []string{"x"})
	wantCode(t, err, baton.ErrInitFailed, "no answer within 50ms", "raise timeout")
}

func TestOpenAIHonoursCancellation(t *testing.T) {
	f := newFakeServer(t, 4)
	ctx, cancel := context.WithCancel(context.Background())
	f.reply = func(w http.ResponseWriter, r *http.Request, _ []string) {
		cancel()
		<-r.Context().Done()
	}
	_, err := mustOpenAI(t, f.config(), noEnv).Embed(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestOpenAIIsSafeForConcurrentUse(t *testing.T) {
	f := newFakeServer(t, 4)
	o := mustOpenAI(t, f.config(), noEnv)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := strings.Repeat("x", g+1)
			for n := 0; n < 10; n++ {
				vs, err := o.Embed(context.Background(), []string{text})
				if err != nil {
					errs <- err
					return
				}
				if want := float64(g+1) / math.Hypot(float64(g+1), 1); math.Abs(float64(vs[0][0])-want) > 1e-6 {
					errs <- fmt.Errorf("vector of %q = %v", text, vs[0])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestOpenAIBlankTextsAreZeroAndNotSent(t *testing.T) {
	f := newFakeServer(t, 4)
	o := mustOpenAI(t, f.config(), noEnv)
	vs, err := o.Embed(context.Background(), []string{"", "abc", "  \n", "de"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 4 || norm(vs[0]) != 0 || norm(vs[2]) != 0 || len(vs[0]) != 4 || len(vs[2]) != 4 {
		t.Fatalf("vectors = %v; want zero vectors of 4 dims for the blank texts", vs)
	}
	if want := 3 / math.Hypot(3, 1); math.Abs(float64(vs[1][0])-want) > 1e-6 {
		t.Errorf("vector of abc = %v", vs[1])
	}
	if want := 2 / math.Hypot(2, 1); math.Abs(float64(vs[3][0])-want) > 1e-6 {
		t.Errorf("vector of de = %v", vs[3])
	}
	if calls := f.calls(); len(calls) != 1 || fmt.Sprint(calls[0].Input) != "[abc de]" {
		t.Fatalf("requests = %+v, want one with [abc de]", calls)
	}
	if _, err := o.Embed(context.Background(), []string{"", " "}); err != nil || len(f.calls()) != 1 {
		t.Fatalf("only blank texts: err %v, %d requests; want no request", err, len(f.calls())-1)
	}
}
