package browsertest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// marker returns a word no page shows by chance, to find one test's text.
func marker(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// watchFor makes the page note, in window.__seenAt (ms since the epoch),
// when text first shows in the page's content, and in window.__loaded
// when the document was loaded, so a reload shows as a new value.
func watchFor(tb *tab, text string) {
	tb.t.Helper()
	eval[chromedp.Void](tb, fmt.Sprintf(`(() => {
		window.__seenAt = 0;
		window.__loaded = window.__loaded || Date.now();
		const want = %q;
		const check = () => {
			if (!window.__seenAt && document.getElementById("content").textContent.includes(want)) window.__seenAt = Date.now();
		};
		new MutationObserver(check).observe(document.body, {subtree: true, childList: true, characterData: true});
		check();
	})()`, text))
}

// seenWithin waits up to wait for the text watchFor watches to show and
// returns how long after start it did; the page must not have reloaded.
func seenWithin(tb *tab, start time.Time, wait time.Duration, what string) time.Duration {
	tb.t.Helper()
	loaded := eval[float64](tb, `window.__loaded`)
	at, err := chromedp.Run(tb.ctx, chromedp.Poll[float64](`window.__seenAt`,
		chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(wait)))
	if err != nil {
		tb.shot("not-live")
		tb.t.Fatalf("%s did not appear within %s without reload: %v", what, wait, err)
	}
	if now := eval[float64](tb, `window.__loaded`); now != loaded {
		tb.t.Errorf("the page reloaded to show %s", what)
	}
	return time.Duration(at-float64(start.UnixMilli())) * time.Millisecond
}

// TestMessageAppearsLive: a message an agent sends the user shows on the
// open messages page within a second, without reload.
func TestMessageAppearsLive(t *testing.T) {
	fx := setup(t)
	bot := fx.newAgent(t, "agent-live")
	tb := fx.loggedInTab(t)
	tb.openLive("/messages")
	tb.shot("messages-before")

	body := "The build is green again " + marker("live")
	watchFor(tb, body)
	start := time.Now()
	bot.call("send_message", map[string]any{"to": "user", "body": body})
	sent := time.Since(start)
	latency := seenWithin(tb, start, 2*time.Second, "the agent's message")
	t.Logf("live latency: the message showed %s after the agent sent it (send_message took %s)",
		latency.Round(time.Millisecond), sent.Round(time.Millisecond))
	if latency > time.Second {
		t.Errorf("the message took %s to show, want within 1s", latency)
	}
	tb.shot("messages-live")
	matchesReload(tb, "a new message")
}

// reloadView is what a page shows in its heading and which live regions
// it has, as the open page has it and as a reload would.
type reloadView struct {
	LiveH1       string `json:"liveH1"`
	FreshH1      string `json:"freshH1"`
	LiveRegions  string `json:"liveRegions"`
	FreshRegions string `json:"freshRegions"`
}

// matchesReload checks that the open page, after a live update, has the
// heading (with its counts) and the live regions a reload would show: a
// count outside every live region, or a region that only some states
// render, goes stale without reload.
func matchesReload(tb *tab, what string) {
	tb.t.Helper()
	// Let a refresh under way land first.
	time.Sleep(400 * time.Millisecond)
	raw, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]byte](`(async () => {
		const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
		const ids = (doc) => [...doc.querySelectorAll("#content [data-live-region][id]")].map((e) => e.id).join(" ");
		const res = await fetch(location.href, {credentials: "same-origin"});
		const fresh = new DOMParser().parseFromString(await res.text(), "text/html");
		return {liveH1: norm(document.querySelector("#content h1")?.textContent), freshH1: norm(fresh.querySelector("#content h1")?.textContent),
			liveRegions: ids(document), freshRegions: ids(fresh)};
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("comparing the page with a reload: %v", err)
	}
	var v reloadView
	if err := json.Unmarshal(raw, &v); err != nil {
		tb.t.Fatalf("comparing the page with a reload: %v: %s", err, raw)
	}
	if v.LiveH1 != v.FreshH1 {
		tb.t.Errorf("after %s the heading says %q live but %q on reload: its count is not in a live region", what, v.LiveH1, v.FreshH1)
	}
	if v.LiveRegions != v.FreshRegions {
		tb.t.Errorf("after %s the page has the live regions [%s] but a reload has [%s]", what, v.LiveRegions, v.FreshRegions)
	}
}
