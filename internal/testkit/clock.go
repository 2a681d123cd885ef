package testkit

import (
	"sync"
	"time"
)

// Clock is a fake clock for tests. It starts at a chosen instant and moves
// on by its step every time it is read (a step of 0 keeps it still, so calls
// tie), or when it is advanced or set.
type Clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

// NewClock returns a clock at start that moves by step per reading.
func NewClock(start time.Time, step time.Duration) *Clock { return &Clock{t: start, step: step} }

// Now moves the clock by its step and reads it.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// Peek reads the clock without moving it.
func (c *Clock) Peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// UseClock makes every tool call of k read its time from c.
func (k *Kit) UseClock(c *Clock) *Clock {
	k.Env.Clock = c.Now
	return c
}
