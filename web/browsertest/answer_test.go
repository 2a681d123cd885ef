package browsertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlite"
	"github.com/chromedp/chromedp"
)

// TestAnswerWakesAskOwner: an agent blocked in ask_owner; its question
// shows on the open front page live; the operator types an answer and
// clicks Answer; the agent's call returns with that answer, and the
// action log has the answer as the user's send_message from the web.
func TestAnswerWakesAskOwner(t *testing.T) {
	fx := setup(t)
	bot := fx.newAgent(t, "agent-asker")
	tb := fx.loggedInTab(t)
	tb.openLive("/")
	tb.shot("needs-before")

	question := "Which database should the cache use? " + marker("ask")
	watchFor(tb, question)
	type reply struct {
		out map[string]any
		err error
	}
	replies := make(chan reply, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	start := time.Now()
	go func() {
		out, err := bot.try(ctx, "ask_owner", map[string]any{"question": question, "timeout_seconds": 30})
		replies <- reply{out, err}
	}()
	latency := seenWithin(tb, start, 2*time.Second, "the question")
	t.Logf("the question showed on the front page %s after ask_owner was called", latency.Round(time.Millisecond))
	matchesReload(tb, "a new question")

	// The question's own form, found by its text.
	id := eval[string](tb, fmt.Sprintf(`[...document.querySelectorAll("li.question")].find(li => li.textContent.includes(%q))?.dataset.id ?? ""`, question))
	if id == "" {
		t.Fatal("the question is on the page but not as a li.question")
	}
	item := fmt.Sprintf(`li.question[data-id=%q]`, id)
	answer := "Use SQLite, with the WAL on."
	tb.do(
		chromedp.Click(chromedp.CSS(item+" textarea")),
		chromedp.SendKeys(chromedp.CSS(item+" textarea"), answer),
	)
	tb.shot("needs-typing")
	select {
	case r := <-replies:
		t.Fatalf("ask_owner returned before the answer: %v %v", r.out, r.err)
	default:
	}
	tb.do(chromedp.Click(chromedp.CSS(item + " button[type=submit]")))

	var r reply
	select {
	case r = <-replies:
	case <-time.After(20 * time.Second):
		tb.shot("no-answer")
		t.Fatal("ask_owner did not return within 20s of the answer")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out["answered"] != true || r.out["answer"] != answer {
		t.Fatalf("ask_owner returned %v, want answered=true with %q", r.out, answer)
	}
	// The form says it was sent, until the live refresh takes the
	// answered question off the page.
	tb.waitJS(fmt.Sprintf(`!document.querySelector(%q) || document.querySelector(%q)?.textContent.includes("answered")`,
		item, item+" .result"), 5*time.Second, "the form to say the answer was sent")
	tb.shot("needs-answered")

	// The answer is in the action log as the user's, from the web.
	st, err := sqlite.Open(context.Background(), fx.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var found *baton.Action
	err = st.View(context.Background(), func(tx baton.Tx) error {
		acts, err := tx.RecentActions(context.Background(), baton.User, 50)
		for _, a := range acts {
			if a.Tool == "send_message" && a.At.After(start.Add(-time.Second)) {
				found = a
				break
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == nil {
		t.Fatal("the action log has no send_message by the user since the question")
	}
	if found.Agent != baton.User || found.Source != string(baton.SourceWeb) {
		t.Errorf("the answer is logged as agent %q source %q, want %q from %q", found.Agent, found.Source, baton.User, baton.SourceWeb)
	}
	t.Logf("action log: #%d %s by %s from %s", found.Position, found.Tool, found.Agent, found.Source)
}
