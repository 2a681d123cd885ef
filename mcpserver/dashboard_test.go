package mcpserver_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
)

// The dashboard sits behind the same Host and Origin checks as /mcp: a
// page of another site, or a DNS-rebound name, never reaches it.
func TestDashboardIsGuardedLikeMCP(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	dash := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "dashboard "+r.URL.Path) })
	s := serveReal(t, k, mcpserver.HTTPOptions{Dashboard: dash, AllowedHosts: []string{"baton.internal"}})
	cases := []struct {
		name, host, origin string
		want               int
	}{
		{"loopback", "", "", http.StatusOK},
		{"same origin", "", "http://127.0.0.1", http.StatusOK},
		{"allowed host", "baton.internal:7420", "http://baton.internal:7420", http.StatusOK},
		{"rebound host", "evil.example:7420", "", http.StatusForbidden},
		{"foreign origin", "", "https://evil.example", http.StatusForbidden},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodPost, s.url+"/api/tools/send_message", strings.NewReader("{}"))
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, res.StatusCode, b, c.want)
		}
		if c.want == http.StatusOK && string(b) != "dashboard /api/tools/send_message" {
			t.Errorf("%s: reached %q, not the dashboard", c.name, b)
		}
	}
	// The MCP endpoints stay MCP's.
	res, err := http.Get(s.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if strings.HasPrefix(string(b), "dashboard") {
		t.Fatalf("/healthz went to the dashboard")
	}
}
