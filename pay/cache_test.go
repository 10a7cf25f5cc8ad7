package pay_test

import (
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/pay"
)

// sellerCounts is every request the env's seller answered, by kind.
func sellerCounts(e *env) (unpaid, paid, fetches int64) {
	return e.seller.Unpaid.Load(), e.seller.Paid.Load(), e.seller.ATRFetches.Load()
}

// TestATRFetchedOncePerHash: after the first payment under a hash, a
// repeat payment is two requests (the 402 and the paid retry), the terms
// coming from the Transport's cache; each payment is still signed once and
// bound to the terms' hash.
func TestATRFetchedOncePerHash(t *testing.T) {
	e := newEnv(t, nil)
	a, _ := vectorATRs(t)
	for i := range 4 {
		resp, _, err := get(t, e.client, e.seller.ResourceURL())
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("payment %d: %v %v", i, err, resp)
		}
		if r := pay.ResultOf(resp); r == nil || r.H != atr.Sum(a) || string(r.ATR) != string(a) {
			t.Fatalf("payment %d: result %+v", i, r)
		}
	}
	unpaid, paid, fetches := sellerCounts(e)
	if unpaid != 4 || paid != 4 || fetches != 1 || e.signer.calls.Load() != 4 {
		t.Fatalf("%d 402s, %d paid, %d fetches, %d signatures; want 4, 4, 1, 4", unpaid, paid, fetches, e.signer.calls.Load())
	}
	if n := len(e.requests(e.seller.ATRHost)); n != 1 {
		t.Fatalf("the link was asked %d times", n)
	}
}

// TestATRCacheLyingSeller: a seller that advertises a new hash after a
// payment is fetched and compared again; serving the old (cached) record
// under the new hash gets hash-mismatch and nothing signed, and the
// mismatch is not kept. Once it serves the new terms, they are fetched,
// paid and kept beside the old.
func TestATRCacheLyingSeller(t *testing.T) {
	e := newEnv(t, nil)
	cache := atr.NewCache(8, 1<<20)
	e.transport.ATRCache = cache
	a, c := vectorATRs(t)
	if resp, _, err := get(t, e.client, e.seller.ResourceURL()); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", err, resp)
	}
	e.seller.SetATR(c) // the offer advertises H(C) from now on
	e.seller.Lie(a)    // while the link serves A, whose hash is cached
	_, err := e.client.Get(e.seller.ResourceURL())
	mustDecline(t, err, gate.HashMismatch, "")
	if _, _, fetches := sellerCounts(e); fetches != 2 || e.signer.calls.Load() != 1 {
		t.Fatalf("%d fetches, %d signatures after the lie; want 2, 1", fetches, e.signer.calls.Load())
	}
	if cache.Len() != 1 || cache.Has(atr.Sum(c)) || !cache.Has(atr.Sum(a)) {
		t.Fatalf("%d kept; H(C) %v", cache.Len(), cache.Has(atr.Sum(c)))
	}

	e.seller.Lie(nil)
	resp, _, err := get(t, e.client, e.seller.ResourceURL())
	if err != nil || resp.StatusCode != 200 || pay.ResultOf(resp).H != atr.Sum(c) {
		t.Fatalf("%v %v", err, resp)
	}
	if _, _, fetches := sellerCounts(e); fetches != 3 || cache.Len() != 2 {
		t.Fatalf("%d fetches, %d kept; want 3, 2", fetches, cache.Len())
	}
}

// TestATRCacheOff: NoATRCache fetches the terms for every payment, even
// with a cache configured.
func TestATRCacheOff(t *testing.T) {
	e := newEnv(t, nil)
	e.transport.ATRCache = atr.NewCache(8, 1<<20)
	e.transport.NoATRCache = true
	for range 3 {
		if resp, _, err := get(t, e.client, e.seller.ResourceURL()); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", err, resp)
		}
	}
	if _, paid, fetches := sellerCounts(e); paid != 3 || fetches != 3 || e.transport.ATRCache.Len() != 0 {
		t.Fatalf("%d paid, %d fetches, %d kept; want 3, 3, 0", paid, fetches, e.transport.ATRCache.Len())
	}
}

// TestATRCacheShared: two Transports given one cache fetch the terms once
// between them, and the Gate's own Fetcher is left as configured.
func TestATRCacheShared(t *testing.T) {
	e := newEnv(t, nil)
	cache := atr.NewCache(8, 1<<20)
	e.transport.ATRCache = cache
	second := &pay.Transport{Base: e.base, Gate: e.transport.Gate, Signer: e.signer, Policy: e.transport.Policy, ATRCache: cache}
	for _, c := range []*pay.Transport{e.transport, second, e.transport} {
		if resp, _, err := get(t, pay.NewClient(c), e.seller.ResourceURL()); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", err, resp)
		}
	}
	if _, paid, fetches := sellerCounts(e); paid != 3 || fetches != 1 {
		t.Fatalf("%d paid, %d fetches; want 3, 1", paid, fetches)
	}
	if e.transport.Gate.Fetcher.Cache != nil {
		t.Fatal("the Transport changed the Gate's Fetcher")
	}
}
