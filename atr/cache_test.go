package atr

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// TestFetchForCachesOnlyWhatMatched: a record is fetched once per hash, a
// record that does not hash to what was advertised is never kept, and a
// failed fetch keeps nothing.
func TestFetchForCachesOnlyWhatMatched(t *testing.T) {
	record := []byte(`{"terms":"one"}`)
	other := []byte(`{"terms":"other"}`)
	s := newSeller(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write(record)
	})
	f := s.fetcher()
	f.Cache = NewCache(8, 1<<20)
	ctx := context.Background()
	h := Sum(record).String()

	for i := range 3 {
		b, got, err := f.FetchFor(ctx, s.link("/r"), h)
		if err != nil || !bytes.Equal(b, record) || got.String() != h {
			t.Fatalf("payment %d: %q %s %v", i, b, got, err)
		}
		b[0] = 'X' // the caller's copy: the kept record is not changed
	}
	if n := s.hits.Load(); n != 1 || f.Cache.Len() != 1 || f.Cache.Size() != int64(len(record)) {
		t.Fatalf("%d fetches, %d kept (%d bytes), want 1, 1", n, f.Cache.Len(), f.Cache.Size())
	}

	// Another hash advertised, other bytes served: fetched, returned for
	// the caller to compare, not kept.
	lie := Sum(other).String()
	b, got, err := f.FetchFor(ctx, s.link("/r"), lie)
	if err != nil || !bytes.Equal(b, record) || got.String() != h {
		t.Fatalf("lie: %q %s %v", b, got, err)
	}
	if s.hits.Load() != 2 || f.Cache.Has(Sum(other)) || f.Cache.Len() != 1 {
		t.Fatalf("after a mismatch: %d fetches, %d kept", s.hits.Load(), f.Cache.Len())
	}

	// A failed fetch keeps nothing and is a FetchError as from FetchSum.
	if _, _, err := f.FetchFor(ctx, s.link("/missing"), lie); !errors.As(err, new(*FetchError)) || f.Cache.Len() != 1 {
		t.Fatalf("404: %v, %d kept", err, f.Cache.Len())
	}
	// An advertised hash that does not read is fetched, not looked up.
	if _, _, err := f.FetchFor(ctx, s.link("/r"), "0X"+h[2:]); err != nil || s.hits.Load() != 4 {
		t.Fatalf("unreadable hash: %v, %d fetches", err, s.hits.Load())
	}

	// Without a Cache it fetches every time.
	f.Cache = nil
	for range 2 {
		if _, _, err := f.FetchFor(ctx, s.link("/r"), h); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.hits.Load(); n != 6 {
		t.Fatalf("%d fetches without a cache, want 6", n)
	}
}

// TestCacheBounds: the least recently used record goes first when either
// bound would be passed, and a record larger than the byte bound is never
// kept.
func TestCacheBounds(t *testing.T) {
	rec := func(c byte, n int) ([]byte, Hash) { b := bytes.Repeat([]byte{c}, n); return b, Sum(b) }
	a, ha := rec('a', 10)
	b, hb := rec('b', 10)
	c, hc := rec('c', 10)
	big, hbig := rec('d', 31)

	byEntries := NewCache(2, 1000)
	byEntries.put(ha, a)
	byEntries.put(hb, b)
	byEntries.get(ha) // a is now the most recent
	byEntries.put(hc, c)
	if !byEntries.Has(ha) || byEntries.Has(hb) || !byEntries.Has(hc) || byEntries.Len() != 2 {
		t.Fatalf("by entries: a %v b %v c %v, %d kept", byEntries.Has(ha), byEntries.Has(hb), byEntries.Has(hc), byEntries.Len())
	}

	byBytes := NewCache(100, 30)
	byBytes.put(ha, a)
	byBytes.put(hb, b)
	byBytes.put(hc, c)
	if byBytes.Size() != 30 || byBytes.Len() != 3 {
		t.Fatalf("%d bytes in %d records", byBytes.Size(), byBytes.Len())
	}
	byBytes.put(hbig, big) // larger than the whole cache
	if byBytes.Has(hbig) || byBytes.Len() != 3 {
		t.Fatalf("a 31-byte record in a 30-byte cache: kept %v, %d records", byBytes.Has(hbig), byBytes.Len())
	}
	d, hd := rec('e', 15)
	byBytes.put(hd, d) // 45 bytes: the two oldest go
	if byBytes.Has(ha) || byBytes.Has(hb) || !byBytes.Has(hc) || !byBytes.Has(hd) || byBytes.Size() != 25 {
		t.Fatalf("by bytes: a %v b %v c %v e %v, %d bytes", byBytes.Has(ha), byBytes.Has(hb), byBytes.Has(hc), byBytes.Has(hd), byBytes.Size())
	}

	var none *Cache
	none.put(ha, a)
	if _, ok := none.get(ha); ok || none.Len() != 0 || NewCache(0, 100).Len() != 0 {
		t.Fatal("a nil cache keeps nothing")
	}
}

// TestCheckLinkMemo: the remembered link answers only itself; a link that
// differs in one byte, or that was never OK, is checked in full.
func TestCheckLinkMemo(t *testing.T) {
	ok := "https://atr.seller.example/0x" + strings.Repeat("ab", 32)
	if CheckLink(ok) != LinkOK || !lastLinkOK(ok) {
		t.Fatal("an https link is not remembered")
	}
	for _, s := range []string{ok[:len(ok)-1] + "\x00", "http" + ok[5:], ok + " ", "https://user@atr.seller.example/x"} {
		if lastLinkOK(s) || CheckLink(s) == LinkOK {
			t.Fatalf("%q answered from the memo of %q", s, ok)
		}
	}
	if !lastLinkOK(ok) || CheckLink(ok) != LinkOK {
		t.Fatal("a refused link replaced the memo")
	}
}
