// Package memo keeps the last results of a pure function (an address
// decoded, a digest computed), bounded so that hostile input naming any
// number of keys cannot grow it: a full memo is emptied and starts again.
// The rails use it where a payment reads the same value several times; a
// memo is only a shortcut, so each user has a test holding its answers to
// the computation from scratch.
package memo

import "sync"

// Memo is safe for concurrent use.
type Memo[K comparable, V any] struct {
	mu   sync.Mutex
	m    map[K]V
	size int
}

// New returns a memo of at most size entries.
func New[K comparable, V any](size int) *Memo[K, V] {
	return &Memo[K, V]{m: make(map[K]V, size), size: size}
}

// Get returns the value kept for k.
func (c *Memo[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	return v, ok
}

// Put keeps v for k, emptying the memo first when it is full.
func (c *Memo[K, V]) Put(k K, v V) {
	c.mu.Lock()
	if len(c.m) >= c.size {
		clear(c.m)
	}
	c.m[k] = v
	c.mu.Unlock()
}

// Len is how many entries it holds.
func (c *Memo[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
