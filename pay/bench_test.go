package pay_test

import (
	"io"
	"net/http"
	"testing"
)

// BenchmarkPayRoundTrip is one paid GET over keep-alive loopback TLS: the
// request, the 402, the ATR fetch (vectors' A, 138 bytes), the policy, the
// signature, the paid retry verified by the seller (signature recovered,
// nonce = H) and its 200. The seller runs in the same process, so its
// verification is inside the figure.
func BenchmarkPayRoundTrip(b *testing.B) {
	e := newEnv(b, nil)
	e.noSeen = true
	url := e.seller.ResourceURL()
	// Warm the connections and the TLS sessions.
	if resp, _, err := get(b, e.client, url); err != nil || resp.StatusCode != 200 {
		b.Fatalf("%v %v", err, resp)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := e.client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.StopTimer()
	if n := e.seller.Rejected.Load(); n != 0 {
		b.Fatalf("%d payments rejected", n)
	}
}

// BenchmarkLoopbackGet is the floor under BenchmarkPayRoundTrip: one plain
// GET of the ATR over the same keep-alive loopback TLS connection. A paid
// round trip makes three such exchanges (the 402, the ATR, the paid retry).
func BenchmarkLoopbackGet(b *testing.B) {
	e := newEnv(b, nil)
	e.noSeen = true
	c := &http.Client{Transport: e.base}
	url := "https://" + e.seller.ATRHost + "/" + e.seller.Hash().String()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkPayRoundTripMPP is BenchmarkPayRoundTrip for an MPP seller
// (internal/mppseller, 1 pathUSD on Tempo Moderato, the same 138-byte A): the
// request, the 402 with its WWW-Authenticate challenge, the ATR fetch, the
// policy, the signed Tempo transaction (RLP, keccak, secp256k1), the retry
// with Authorization: Payment verified by the seller (the transaction
// decoded, its memo, amount, payee and chain checked, the sender
// recovered) and its 200 with Payment-Receipt.
func BenchmarkPayRoundTripMPP(b *testing.B) {
	e := newMPPEnv(b, nil)
	e.noSeen = true
	url := e.seller.ResourceURL()
	if resp, _, err := get(b, e.client, url); err != nil || resp.StatusCode != 200 {
		b.Fatalf("%v %v (seller: %v)", err, resp, e.seller.LastRejection())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := e.client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.StopTimer()
	if n := e.seller.Rejected.Load(); n != 0 {
		b.Fatalf("%d payments rejected", n)
	}
}
