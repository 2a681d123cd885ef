package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/baton-dev/baton"
)

// Bearer tokens. A token is "baton_" and 32 random bytes in base64url; the
// store keeps only its hex SHA-256, so a copy of the database grants
// nothing. The token's row fixes who its bearer is: agent, profile,
// project, scheduler mode.

// TokenPrefix starts every token, so a leaked one is easy to spot.
const TokenPrefix = "baton_"

// MaxTokenTTL is the longest a looked-up token is trusted before it is read
// again: a revocation takes effect on running servers within it.
const MaxTokenTTL = 2 * time.Second

// TokenHash is the stored form of a token: hex SHA-256.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// NewToken draws a fresh token for agent and returns it with its row (id
// and hash set, nothing stored yet). The token itself is shown once and
// never kept.
func NewToken(agent, profile, project string, scheduler bool) (string, *baton.AgentToken) {
	secret := make([]byte, 32)
	id := make([]byte, 6)
	_, _ = rand.Read(secret) // crypto/rand.Read never fails
	_, _ = rand.Read(id)
	token := TokenPrefix + base64.RawURLEncoding.EncodeToString(secret)
	return token, &baton.AgentToken{ID: "tok_" + hex.EncodeToString(id), Agent: agent, Profile: profile,
		Project: project, Scheduler: scheduler, Hash: TokenHash(token)}
}

// Authenticator resolves the principal of an HTTP request from its bearer
// token, or refuses the request.
type Authenticator struct {
	Store baton.Store
	// Project is the default project of sessions whose token names none
	// (baton serve --project).
	Project string
	// TTL is how long a looked-up token is reused; zero or more than
	// MaxTokenTTL means MaxTokenTTL, negative means every request reads
	// the store.
	TTL time.Duration
	// Clock is the time source of the cache; nil means time.Now.
	Clock baton.Clock

	mu    sync.Mutex
	cache map[string]cachedToken // by hash; only tokens that exist
}

type cachedToken struct {
	tok *baton.AgentToken
	at  time.Time
}

func (a *Authenticator) now() time.Time {
	if a.Clock != nil {
		return a.Clock()
	}
	return time.Now()
}

func (a *Authenticator) ttl() time.Duration {
	if a.TTL == 0 || a.TTL > MaxTokenTTL {
		return MaxTokenTTL
	}
	return a.TTL
}

// Authenticate returns the principal r's bearer token stands for and the
// token, or an error of type unauthenticated (ERR_INTERNAL when the store
// cannot be read).
func (a *Authenticator) Authenticate(r *http.Request) (baton.Principal, *baton.AgentToken, *baton.Error) {
	token, ok := bearer(r)
	if !ok {
		return baton.Principal{}, nil, unauthenticated("missing_token", "this server needs a bearer token")
	}
	tok, err := a.lookup(r.Context(), TokenHash(token))
	if err != nil {
		if e := baton.AsError(err); e.Code != baton.ErrNotFound {
			return baton.Principal{}, nil, e
		}
		return baton.Principal{}, nil, unauthenticated("unknown_token", "the bearer token is not one this server issued")
	}
	if !tok.Active() {
		return baton.Principal{}, nil, unauthenticated("revoked_token", "the bearer token was revoked").
			WithDetails("token_id", tok.ID)
	}
	project := tok.Project
	if project == "" {
		project = a.Project
	}
	return baton.Principal{Agent: tok.Agent, Profile: tok.Profile, AgentType: tok.Profile, Project: project,
		SchedulerMode: tok.Scheduler, Preset: tok.Preset, Source: baton.SourceHTTP}, tok, nil
}

// bearer is the token of an "Authorization: Bearer TOKEN" header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// lookup reads a token by hash, reusing a recent read. Unknown hashes are
// not cached: anyone can send those, and they must not fill the memory.
func (a *Authenticator) lookup(ctx context.Context, hash string) (*baton.AgentToken, error) {
	now, ttl := a.now(), a.ttl()
	a.mu.Lock()
	if c, ok := a.cache[hash]; ok && ttl > 0 && now.Sub(c.at) < ttl {
		a.mu.Unlock()
		return c.tok, nil
	}
	a.mu.Unlock()
	var tok *baton.AgentToken
	err := a.Store.View(ctx, func(tx baton.Tx) (err error) {
		tok, err = tx.TokenByHash(ctx, hash)
		return err
	})
	if err != nil {
		return nil, err
	}
	if ttl > 0 {
		a.mu.Lock()
		if a.cache == nil {
			a.cache = map[string]cachedToken{}
		}
		for h, c := range a.cache {
			if now.Sub(c.at) >= ttl {
				delete(a.cache, h)
			}
		}
		a.cache[hash] = cachedToken{tok: tok, at: now}
		a.mu.Unlock()
	}
	return tok, nil
}

func unauthenticated(reason, msg string) *baton.Error {
	return baton.Errorf(baton.ErrPermissionDenied, "%s", msg).WithType("unauthenticated").
		WithDetails("reason", reason).
		WithHint("send `Authorization: Bearer TOKEN`; an operator issues one with `baton agent create NAME --profile worker`")
}

type principalKey struct{}

// requestPrincipal is the principal the authenticator put in r's context.
func requestPrincipal(r *http.Request) baton.Principal {
	p, _ := r.Context().Value(principalKey{}).(baton.Principal)
	return p
}

// caller is who an HTTP request comes from: the principal it runs as and
// the key its sessions and streams are counted under (the token's id, or
// without tokens the agent's name).
type caller struct {
	p       baton.Principal
	key     string
	tokenID string
}

type callerKey struct{}

func callerOf(r *http.Request) *caller {
	c, _ := r.Context().Value(callerKey{}).(*caller)
	return c
}

func (c *caller) kind() string {
	if c.tokenID != "" {
		return "token"
	}
	return "agent"
}

func (c *caller) who() string {
	if c.tokenID != "" {
		return "token " + c.tokenID
	}
	return "agent " + c.p.Agent
}

// admit resolves who r comes from before next sees it: with an
// Authenticator, only requests with a valid token get through, running as
// the token's principal; without, everyone runs as opts.Principal says.
// Nothing of the body has been read yet: a refused client cannot hold the
// connection by trickling one.
func (h *httpHandler) admit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &caller{}
		if auth := h.opts.Authenticator; auth != nil {
			p, tok, e := auth.Authenticate(r)
			if e != nil {
				status := http.StatusServiceUnavailable
				if e.Type == "unauthenticated" {
					status = http.StatusUnauthorized
					w.Header().Set("WWW-Authenticate", `Bearer realm="baton"`)
				}
				refuse(w, r, status, e)
				return
			}
			c.p, c.key, c.tokenID = p, tok.ID, tok.ID
		} else {
			c.p = h.opts.Principal(r)
			c.key = "agent:" + c.p.Agent
		}
		ctx := context.WithValue(r.Context(), principalKey{}, c.p)
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, callerKey{}, c)))
	})
}

// sessionRecorder notes the Mcp-Session-Id of a response that opens a
// session, before the client can learn it.
type sessionRecorder struct {
	http.ResponseWriter
	record func(string)

	mu   sync.Mutex
	done bool
	sid  string
}

func (w *sessionRecorder) capture() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.done = true
		if id := w.Header().Get("Mcp-Session-Id"); id != "" {
			w.sid = id
			w.record(id)
		}
	}
}

// id is the session id the response gave, if any.
func (w *sessionRecorder) id() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sid
}

func (w *sessionRecorder) WriteHeader(code int) {
	w.capture()
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionRecorder) Write(b []byte) (int, error) {
	w.capture()
	return w.ResponseWriter.Write(b)
}

// Flush keeps streaming responses streaming.
func (w *sessionRecorder) Flush() {
	w.capture()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *sessionRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func writeEnvelope(w http.ResponseWriter, status int, e *baton.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(baton.Envelope{Error: e})
}
