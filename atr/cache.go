package atr

import (
	"container/list"
	"context"
	"sync"
)

// Cache keeps ATR bytes by their SHA-256, so that a record already fetched
// under a hash is not fetched again for the next payment advertising it.
// It is content-addressed: an entry is only ever bytes whose SHA-256 a
// Fetcher had just computed and found equal to the advertised hash
// (FetchFor), so a hit is exactly the record a fetch would have had to
// return for the payment to go on. Nothing else can put bytes in it. It
// holds at most a number of entries and of bytes, dropping the least
// recently used first. A Cache is safe for concurrent use; the zero Cache
// holds nothing (use NewCache).
type Cache struct {
	maxEntries int
	maxBytes   int64

	mu      sync.Mutex
	bytes   int64
	recent  list.List // of *cacheEntry, most recently used first
	entries map[Hash]*list.Element
}

type cacheEntry struct {
	h     Hash
	bytes []byte // the cache's own copy, never handed out
}

// NewCache returns a cache of at most maxEntries records and maxBytes bytes
// of records in all; a record larger than maxBytes is never kept.
func NewCache(maxEntries int, maxBytes int64) *Cache {
	return &Cache{maxEntries: maxEntries, maxBytes: maxBytes, entries: map[Hash]*list.Element{}}
}

// get returns a copy of the record kept under h (the caller may change it).
func (c *Cache) get(h Hash) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[h]
	if !ok {
		return nil, false
	}
	c.recent.MoveToFront(e)
	return append([]byte(nil), e.Value.(*cacheEntry).bytes...), true
}

// put keeps a copy of b under h. Only FetchFor calls it, with bytes whose
// SHA-256 it just found equal to h.
func (c *Cache) put(h Hash, b []byte) {
	if c == nil || c.maxEntries <= 0 || int64(len(b)) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[h]; ok {
		c.recent.MoveToFront(e)
		return
	}
	for c.recent.Len() >= c.maxEntries || c.bytes+int64(len(b)) > c.maxBytes {
		c.evictOldest()
	}
	c.entries[h] = c.recent.PushFront(&cacheEntry{h: h, bytes: append([]byte(nil), b...)})
	c.bytes += int64(len(b))
}

func (c *Cache) evictOldest() {
	e := c.recent.Back()
	ce := e.Value.(*cacheEntry)
	c.recent.Remove(e)
	delete(c.entries, ce.h)
	c.bytes -= int64(len(ce.bytes))
}

// Len is the number of records kept.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.recent.Len()
}

// Size is the number of record bytes kept.
func (c *Cache) Size() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Has reports whether a record is kept under h.
func (c *Cache) Has(h Hash) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.entries[h]
	return ok
}

// FetchFor is FetchSum for a record advertised under the hash text
// advertised ("0x" and 64 hex digits). With a Cache, a record kept under
// that hash is returned (a copy) with no request made; otherwise the record
// is fetched, and kept when the SHA-256 of its bytes equals the advertised
// hash. The caller compares the hash returned with the advertised one as it
// does after FetchSum: a mismatch is never kept, so a seller advertising a
// new hash always has its link fetched and compared. Without a Cache it is
// FetchSum.
func (f *Fetcher) FetchFor(ctx context.Context, link, advertised string) ([]byte, Hash, error) {
	var c *Cache
	if f != nil {
		c = f.Cache
	}
	want, err := ParseHash(advertised)
	if c == nil || err != nil {
		return f.FetchSum(ctx, link)
	}
	if b, ok := c.get(want); ok {
		return b, want, nil
	}
	b, h, err := f.FetchSum(ctx, link)
	if err == nil && h.Equal(want) {
		c.put(h, b)
	}
	return b, h, err
}
