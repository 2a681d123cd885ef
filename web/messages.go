package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// The Messages pages: the threads with their unread counts, the user's
// unread messages, the latest messages (threaded or not), and forms to
// message one agent or every agent; a thread's own page shows all of it
// and takes a reply. Every send is send_message as the user. There is no
// tool that delivers one message to every agent (announce goes to the
// user), so a broadcast is one send_message per known agent, sharing a
// thread: the form lists them and the page's script (data-each) makes the
// calls, each audited.

const (
	threadsShown  = 100 // threads listed; the rest are counted
	unreadScan    = 500 // newest messages to the user read to count unread per thread
	unreadShown   = 50  // unread messages listed with their actions
	latestShown   = 25  // latest messages, threaded or not
	threadShown   = 200 // a thread page's newest messages
	maxThreadID   = 128 // send_message's threadId bound
	newThreadPref = "web-"
)

// threadRow is one thread of the list.
type threadRow struct {
	baton.Thread
	Href   string
	Unread int // messages in it to the user not yet read
}

// messageRow is one message with the links and flags its row needs.
type messageRow struct {
	*baton.Message
	ThreadHref string // "" when it has no thread
	// Unread: addressed to the user and not yet read.
	Unread bool
	// Kind labels it: question (open/answered), announcement (its type),
	// or "".
	Kind, KindBadge string
}

type messagesData struct {
	Threads      []threadRow
	ThreadsTotal int
	Unread       []messageRow
	UnreadTotal  int // exact, from the store's counts
	Latest       []messageRow
	Agents       []string // known agents, for the send forms
	NewThread    string   // thread of the next message sent from the page
	Broadcast    string   // thread of the next broadcast
}

var messagesPage = &pageDef{
	Pattern: "/messages", Name: "messages", Title: "Messages", Nav: "messages",
	Live: []string{"message.", "question.", "announcement", "agent.", "claim.force_released", "phase."},
	Load: loadMessages,
}

type threadData struct {
	ThreadID string
	Messages []messageRow
	// Truncated says the thread has more than the page shows (older).
	Truncated bool
	Limit     int
	// Agents are the agents in the thread, newest speaker first; a reply
	// goes to one of them (ReplyTo by default).
	Agents  []string
	ReplyTo string
	Unread  int
}

var threadPage = &pageDef{
	Pattern: "/messages/{thread}", Name: "thread", Title: "Thread", Nav: "messages",
	Live: []string{"message.", "question.", "announcement", "claim.force_released", "phase."},
	Load: loadThread,
}

func init() {
	register(messagesPage)
	register(threadPage)
}

func loadMessages(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	project := projectParam(r)
	now := s.now()
	d := &messagesData{NewThread: newThreadID(), Broadcast: newThreadID()}
	err := s.view(ctx, func(tx baton.Tx) error {
		threads, err := tx.Threads(ctx, project, "")
		if err != nil {
			return err
		}
		d.ThreadsTotal = len(threads)
		threads = threads[:min(len(threads), threadsShown)]
		// Unread per thread, from the newest messages to the user: one
		// bounded read instead of one per thread.
		toUser, err := tx.ReadMessages(ctx, "", baton.MessageFilter{Project: project, To: baton.User, Limit: unreadScan})
		if err != nil {
			return err
		}
		unread := map[string]int{}
		for i := len(toUser) - 1; i >= 0; i-- { // newest first
			m := toUser[i]
			if m.DeliveryStatus == baton.DeliveryRead {
				continue
			}
			unread[m.ThreadID]++
			if len(d.Unread) < unreadShown {
				d.Unread = append(d.Unread, rowOf(m))
			}
		}
		for _, th := range threads {
			d.Threads = append(d.Threads, threadRow{Thread: th, Href: threadHref(th.ThreadID), Unread: unread[th.ThreadID]})
		}
		if d.UnreadTotal, err = unreadForUser(ctx, tx, project, now); err != nil {
			return err
		}
		latest, err := tx.ReadMessages(ctx, "", baton.MessageFilter{Project: project, Limit: latestShown})
		if err != nil {
			return err
		}
		for i := len(latest) - 1; i >= 0; i-- {
			d.Latest = append(d.Latest, rowOf(latest[i]))
		}
		agents, err := roster(ctx, tx, now)
		for _, a := range agents {
			d.Agents = append(d.Agents, a.Name)
		}
		slices.SortFunc(d.Agents, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
		return err
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// unreadForUser counts the messages to the user not yet read, in the
// project or, for "", in every project. The store counts a project's
// messages with the project-less ones, so those are counted once.
func unreadForUser(ctx context.Context, tx baton.Tx, project string, now time.Time) (int, error) {
	_, _, u, err := tx.ProjectCounts(ctx, project, now)
	if err != nil || project != "" {
		return u[baton.User], err
	}
	total, shared := u[baton.User], u[baton.User]
	ps, err := tx.Projects(ctx)
	if err != nil {
		return 0, err
	}
	for _, p := range ps {
		_, _, u, err := tx.ProjectCounts(ctx, p.Slug, now)
		if err != nil {
			return 0, err
		}
		total += u[baton.User] - shared
	}
	return total, nil
}

func loadThread(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	id := r.PathValue("thread")
	if id == "" || len(id) > maxThreadID {
		return nil, baton.Errorf(baton.ErrInvalidInput, "a thread id is 1 to %d bytes; this one is %d", maxThreadID, len(id)).
			WithDetails("field", "thread", "limit", maxThreadID).WithHint("open a thread from the Messages page")
	}
	d := &threadData{ThreadID: id, Limit: threadShown}
	err := s.view(ctx, func(tx baton.Tx) error {
		msgs, err := tx.ReadMessages(ctx, "", baton.MessageFilter{ThreadID: id, Limit: threadShown})
		if err != nil {
			return err
		}
		if len(msgs) == 0 {
			return baton.Errorf(baton.ErrNotFound, "there is no thread %q", id).WithDetails("thread", id).
				WithHint("the Messages page lists the threads")
		}
		d.Truncated = len(msgs) == threadShown
		seen := map[string]bool{}
		for i := len(msgs) - 1; i >= 0; i-- { // newest speaker first
			for _, who := range []string{msgs[i].AgentID, msgs[i].Recipient} {
				if k := strings.ToLower(who); who != "" && k != baton.User && !seen[k] {
					seen[k] = true
					d.Agents = append(d.Agents, who)
				}
			}
		}
		for _, m := range msgs {
			row := rowOf(m)
			if row.Unread {
				d.Unread++
			}
			d.Messages = append(d.Messages, row)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(d.Agents) > 0 {
		d.ReplyTo = d.Agents[0]
	}
	return d, nil
}

func rowOf(m *baton.Message) messageRow {
	row := messageRow{Message: m, Unread: strings.EqualFold(m.Recipient, baton.User) && m.DeliveryStatus != baton.DeliveryRead}
	if m.ThreadID != "" {
		row.ThreadHref = threadHref(m.ThreadID)
	}
	switch {
	case m.Question == "open":
		row.Kind, row.KindBadge = "question: open", "blocked"
	case m.Question != "":
		row.Kind, row.KindBadge = "question: "+m.Question, "done"
	case m.Role == baton.RoleAnnouncement:
		row.Kind, row.KindBadge = "announcement", "phase"
		if m.EventType != "" {
			row.Kind += ": " + m.EventType
		}
	}
	return row
}

// threadHref links a thread's page. Thread ids are agents' text, so the
// id is escaped as one path segment ("/" included).
func threadHref(id string) string { return "/messages/" + segment(id) }

// segment escapes an id as one path segment; "." and ".." too, which a
// browser would otherwise resolve away.
func segment(id string) string {
	switch id {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(id)
}

// newThreadID names the thread a message from the page starts, so the
// conversation is listed and the agent can answer in it.
func newThreadID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return newThreadPref + hex.EncodeToString(b)
}
