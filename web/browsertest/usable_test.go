package browsertest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// pages are the dashboard's top-level pages, in navigation order.
var pages = []struct{ path, name string }{
	{"/", "needs"}, {"/board", "board"}, {"/agents", "agents"}, {"/reservations", "reservations"}, {"/runs", "runs"}, {"/messages", "messages"},
	{"/prs", "prs"}, {"/search", "search"}, {"/audit", "audit"},
}

// overflow lists up to five elements that reach past the viewport's
// right edge, to say what causes a horizontal scroll.
const overflow = `(() => {
	const w = window.innerWidth, out = [];
	for (const el of document.querySelectorAll("body *")) {
		const r = el.getBoundingClientRect();
		if (r.width === 0 || r.right <= w + 0.5) continue;
		let d = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "");
		out.push(d + " (right " + Math.round(r.right) + "px)");
		if (out.length === 5) break;
	}
	return out;
})()`

// TestPagesFitAndReachByKeyboard: every page fits a 1280 px and a 390 px
// (phone) wide window without horizontal scroll, and Tab from the top of
// each reaches the navigation links in order; on the front page it then
// reaches a question's answer box and its Answer button.
func TestPagesFitAndReachByKeyboard(t *testing.T) {
	t.Parallel() // no latency measured here: it may share the machine with the other parallel tests
	fx := setup(t)
	bot := fx.newAgent(t, "agent-usable")
	// Some content on each page: an item, a claim, a file reservation, a
	// message, a question with a long unbroken word (which must wrap, not
	// widen the page).
	id := bot.call("create_issue", map[string]any{"title": "Usable: a title with a very long word " + strings.Repeat("x", 150)})["issue_id"].(string)
	bot.call("task_update", map[string]any{"task_id": id, "status": "todo"})
	bot.call("claim_item", map[string]any{"item_id": id})
	bot.call("file_reservation_paths", map[string]any{"paths": []string{"src/" + strings.Repeat("w", 150) + "/**"},
		"reason": "Usable: a long reason " + strings.Repeat("r", 200)})
	bot.call("send_message", map[string]any{"to": "user", "body": "A long line: " + strings.Repeat("y", 300)})
	bot.call("ask_owner", map[string]any{"question": "Usable: may I go on? " + strings.Repeat("z", 200), "timeout_seconds": 0})

	tb := fx.loggedInTab(t)
	for _, vp := range []struct {
		name string
		w, h int64
	}{{"desktop", desktopW, desktopH}, {"phone", phoneW, phoneH}} {
		tb.do(chromedp.EmulateViewport(vp.w, vp.h))
		for _, p := range pages {
			if st := tb.open(p.path); st != 200 {
				tb.shot(p.name + "-" + vp.name)
				t.Errorf("GET %s: status %d (%s)", p.path, st, tb.text("h1"))
				continue
			}
			sw := eval[int](tb, `document.documentElement.scrollWidth`)
			iw := eval[int](tb, `window.innerWidth`)
			if sw > iw {
				t.Errorf("%s at %d px scrolls sideways: the page is %d px wide; past the edge: %s",
					p.path, vp.w, sw, strings.Join(eval[[]string](tb, overflow), ", "))
			}
			tb.shot(p.name + "-" + vp.name)
			if vp.name == "desktop" {
				keyboard(t, tb, p.path)
			}
		}
	}
}

// answerBox is a question's answer field on the front page.
func answerBox(f focused) bool { return f.Tag == "textarea" && f.InQuestion }

// keyboard checks, on the page just loaded, that Tab from the top reaches
// the navigation links in order and, on the front page, a question's
// answer box and then its Answer button.
func keyboard(t *testing.T, tb *tab, path string) {
	t.Helper()
	var navHrefs []string
	for _, p := range pages {
		navHrefs = append(navHrefs, p.path)
	}
	focus := tabThrough(tb, len(pages)+4, nil)
	var reached []string
	for _, f := range focus {
		if f.Nav {
			reached = append(reached, f.Href)
		}
	}
	if !slices.Equal(reached, navHrefs) {
		t.Errorf("%s: Tab from the top reaches the navigation links %v, want %v (focus went %v)", path, reached, navHrefs, focus)
	}
	if path != "/" {
		return
	}
	focus = append(focus, tabThrough(tb, 80, answerBox)...)
	focus = append(focus, tabThrough(tb, 1, nil)...) // one more: the button
	at := slices.IndexFunc(focus, answerBox)
	switch {
	case at < 0:
		t.Errorf("Tab never reaches a question's answer box: %v", focus)
	case at+1 >= len(focus) || focus[at+1].Tag != "button" || focus[at+1].Text != "Answer":
		t.Errorf("Tab after the answer box goes to %v, want the Answer button", focus[at+1:min(at+2, len(focus))])
	default:
		t.Logf("the answer box is Tab stop %d of the front page, its Answer button the next", at+1)
	}
	tb.shot("needs-keyboard")
}

// focused describes document.activeElement after a Tab.
type focused struct {
	Tag        string `json:"tag"`
	Href       string `json:"href"`
	Text       string `json:"text"`
	Nav        bool   `json:"nav"`
	InQuestion bool   `json:"inQuestion"`
}

func (f focused) String() string {
	if f.Href != "" {
		return f.Tag + "[" + f.Href + "]"
	}
	return f.Tag + "(" + f.Text + ")"
}

// tabThrough presses Tab up to n times, as a person does, and returns
// where the focus was after each press; it stops early where stop says.
// The first call after a page load starts from the top of the page.
func tabThrough(tb *tab, n int, stop func(focused) bool) []focused {
	tb.t.Helper()
	var out []focused
	for range n {
		tb.do(chromedp.KeyEvent(kb.Tab))
		raw := eval[[]byte](tb, `(() => {
			const el = document.activeElement;
			if (!el || el === document.body) return {tag: "body"};
			return {tag: el.tagName.toLowerCase(), href: el.getAttribute("href") || "",
				text: (el.innerText || el.value || "").trim().slice(0, 40),
				nav: !!el.closest("nav"), inQuestion: !!el.closest("li.question")};
		})()`)
		var f focused
		if err := json.Unmarshal(raw, &f); err != nil {
			tb.t.Fatalf("reading the focus: %v: %s", err, raw)
		}
		out = append(out, f)
		if stop != nil && stop(f) {
			break
		}
	}
	return out
}
