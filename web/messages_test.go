package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

const xssBody = "<script>alert(1)</script>"

func TestMessagesShowsAnAgentsMessageUnreadAndItsThread(t *testing.T) {
	d := newDash(t)
	sent := d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "threadId": "t-parser",
		"body": xssBody + " is in the log\nsecond line"})
	d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "body": "no thread here"})

	st, page := d.get("/messages")
	if st != http.StatusOK {
		t.Fatalf("GET /messages: %d %s", st, page)
	}
	mustContain(t, page, `aria-current="page">Messages`, "2 unread", `href="/messages/t-parser"`,
		"&lt;script&gt;alert(1)&lt;/script&gt; is in the log", "no thread here", "<span>no thread</span>")
	if strings.Contains(page, xssBody) {
		t.Error("the message body is in the page unescaped")
	}
	th := partOf(t, page, "threads")
	mustContain(t, th, "t-parser", "latest from <strong>agent-bob</strong>", "1 messages", `title="to you, not yet read">1 unread`)
	if strings.Contains(th, "second line") {
		t.Error("the thread list shows more than the latest message's first line")
	}
	unread := partOf(t, page, "unread")
	mustContain(t, unread, `data-tool="send_message"`, `name="to" value="agent-bob"`, `name="threadId" value="t-parser"`,
		`name="messageId" value="`+sent["messageId"].(string)+`"`, `name="agentId" value="agent-bob"`)

	st, page = d.get("/messages/t-parser")
	if st != http.StatusOK {
		t.Fatalf("GET the thread: %d %s", st, page)
	}
	mustContain(t, page, `aria-current="page">Messages`, "1 messages with agent-bob", "1 unread",
		"&lt;script&gt;alert(1)&lt;/script&gt; is in the log\nsecond line", `name="to" value="agent-bob"`,
		`name="threadId" value="t-parser"`)
	if strings.Contains(page, xssBody) {
		t.Error("the message body is in the thread page unescaped")
	}

	// Marking it read (mark_read as the user) clears its unread count.
	d.mustAct("mark_read", map[string]any{"messageId": sent["messageId"]})
	_, page = d.get("/messages")
	mustContain(t, page, "1 unread")
	if th := partOf(t, page, "threads"); strings.Contains(th, "unread") {
		t.Errorf("the thread still counts a read message as unread:\n%s", th)
	}
	_, page = d.get("/messages/t-parser")
	if strings.Contains(page, "unread") {
		t.Error("the thread page still shows a read message as unread")
	}
}

func TestThreadReplyIsFromTheUserAndAudited(t *testing.T) {
	d := newDash(t)
	d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "threadId": "t-1", "body": "which schema?"})
	d.mustAct("send_message", map[string]any{"to": "agent-bob", "threadId": "t-1", "body": "the <b>new</b> one"})

	got := d.As("agent-bob").OK("read_messages", map[string]any{"threadId": "t-1"})["messages"].([]any)
	if len(got) != 2 {
		t.Fatalf("the thread holds %d messages, want 2: %v", len(got), got)
	}
	reply := got[1].(map[string]any)
	if reply["agentId"] != baton.User || reply["role"] != baton.RoleUser || reply["recipient"] != "agent-bob" {
		t.Errorf("the reply is %v, want one from the user to agent-bob", reply)
	}
	var calls []*baton.Action
	if err := d.Store.View(context.Background(), func(tx baton.Tx) (err error) {
		calls, err = tx.RecentActions(context.Background(), baton.User, 5)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].Tool != "send_message" || calls[0].Source != string(baton.SourceWeb) {
		t.Errorf("the user's calls are %+v, want the one send_message from the web", calls)
	}

	_, page := d.get("/messages/t-1")
	mustContain(t, page, "2 messages with agent-bob", "which schema?", "the &lt;b&gt;new&lt;/b&gt; one", "to agent-bob")
}

// broadcastForm finds the page's broadcast form (data-each="to"): the
// agents it sends to and its thread.
func broadcastForm(t *testing.T, page string) (to []string, thread string) {
	t.Helper()
	i := strings.Index(page, `data-each="to"`)
	if i < 0 {
		t.Fatalf("no broadcast form in the page:\n%s", page)
	}
	form := page[i:]
	form = form[:strings.Index(form, "</form>")]
	for _, m := range regexp.MustCompile(`name="to" value="([^"]*)"`).FindAllStringSubmatch(form, -1) {
		to = append(to, m[1])
	}
	m := regexp.MustCompile(`name="threadId" value="([^"]*)"`).FindStringSubmatch(form)
	if m == nil {
		t.Fatalf("the broadcast form names no thread:\n%s", form)
	}
	return to, m[1]
}

func TestMessagesBroadcastReachesEveryAgent(t *testing.T) {
	d := newDash(t)
	agents := []string{"agent-ann", "agent-bob", "agent-cy"}
	for _, a := range agents {
		d.As(a).OK("set_status", map[string]any{"status": "idle"})
	}
	_, page := d.get("/messages")
	mustContain(t, page, "Send to all 3")
	to, thread := broadcastForm(t, page)
	if strings.Join(to, ",") != strings.Join(agents, ",") {
		t.Fatalf("the broadcast form sends to %v, want %v", to, agents)
	}
	// The page's script makes one send_message per agent (data-each).
	for _, a := range to {
		d.mustAct("send_message", map[string]any{"to": a, "threadId": thread, "body": "stand-up in 5"})
	}
	for _, a := range agents {
		msgs := d.As(a).OK("read_messages", map[string]any{"threadId": thread})["messages"].([]any)
		n := 0
		for _, m := range msgs {
			m := m.(map[string]any)
			if m["recipient"] == a && m["body"] == "stand-up in 5" && m["agentId"] == baton.User {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s got the broadcast %d times, want once: %v", a, n, msgs)
		}
	}
	_, page = d.get("/messages/" + thread)
	mustContain(t, page, "3 messages with agent-cy, agent-bob, agent-ann", `<select id="reply-to" name="to" required>`)
	// A new page load offers a new thread for the next broadcast.
	_, page = d.get("/messages")
	if _, next := broadcastForm(t, page); next == thread {
		t.Errorf("the next broadcast reuses thread %s", thread)
	}
}

func TestThreadUnknownOrBad(t *testing.T) {
	d := newDash(t)
	st, page := d.get("/messages/no-such-thread")
	if st != http.StatusNotFound {
		t.Fatalf("an unknown thread: %d, want 404", st)
	}
	mustContain(t, page, "Not found", "no-such-thread", "ERR_NOT_FOUND")

	st, page = d.get("/messages/" + strings.Repeat("t", maxThreadID+1))
	if st != http.StatusBadRequest {
		t.Fatalf("an over-long thread id: %d, want 400", st)
	}
	mustContain(t, page, "ERR_INVALID_INPUT")
}

func TestThreadIDIsEscapedInLinks(t *testing.T) {
	d := newDash(t)
	id := `a/b?c#"<d>`
	d.As("agent-bob").OK("send_message", map[string]any{"to": "user", "threadId": id, "body": "odd thread"})
	_, page := d.get("/messages")
	href := "/messages/" + url.PathEscape(id)
	mustContain(t, page, `href="`+strings.ReplaceAll(href, "&", "&amp;")+`"`)
	st, page := d.get(href)
	if st != http.StatusOK {
		t.Fatalf("GET %s: %d %s", href, st, page)
	}
	mustContain(t, page, "odd thread", "a/b?c#&#34;&lt;d&gt;")
}
