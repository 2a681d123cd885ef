// Package events carries change notifications inside one baton process:
// after a call commits, the bus wakes every subscriber of its project, who
// then read the new events from the store. The store holds the events, so
// a subscriber that was away, or another process on the same database,
// misses nothing.
package events

import "sync"

// Bus wakes subscribers when a project has new events.
type Bus struct {
	mu   sync.Mutex
	subs map[*sub]struct{}
}

type sub struct {
	project string // "" hears every project
	ch      chan struct{}
}

// NewBus returns an empty bus.
func NewBus() *Bus { return &Bus{subs: map[*sub]struct{}{}} }

// Subscribe returns a channel that receives a value whenever project (or,
// for "", any project) has new events, and a function that ends the
// subscription. Wake-ups coalesce: one pending value stands for any number
// of events.
func (b *Bus) Subscribe(project string) (<-chan struct{}, func()) {
	s := &sub{project: project, ch: make(chan struct{}, 1)}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s.ch, func() {
		b.mu.Lock()
		delete(b.subs, s)
		b.mu.Unlock()
	}
}

// Publish wakes the subscribers of project. It never blocks.
func (b *Bus) Publish(project string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		if s.project == "" || s.project == project {
			select {
			case s.ch <- struct{}{}:
			default:
			}
		}
	}
}

// Len is the number of live subscriptions (for health reports, and for
// tests that must know a waiter is waiting).
func (b *Bus) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}
