package pay_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/signer"
)

// BenchmarkPaidRoundTrip is a repeat payment as a payer makes it once it
// holds the seller's terms: the GET, its 402, the terms from the
// Transport's cache (no fetch), the policy, the signature, the paid GET
// verified by the seller and its 200. BenchmarkRoundTripFloor is the same
// two requests without the paying.
func BenchmarkPaidRoundTrip(b *testing.B) {
	e := newEnv(b, nil)
	e.noSeen = true
	url := e.seller.ResourceURL()
	if resp, _, err := get(b, e.client, url); err != nil || resp.StatusCode != 200 {
		b.Fatalf("%v %v", err, resp) // opens the connection and fills the cache
	}
	fetches := e.seller.ATRFetches.Load()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		roundTrip(b, e.client, url, "", 200)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	if n := e.seller.ATRFetches.Load() - fetches; n != 0 || e.seller.Rejected.Load() != 0 {
		b.Fatalf("%d fetches, %d rejected", n, e.seller.Rejected.Load())
	}
}

// BenchmarkRoundTripFloor is what BenchmarkPaidRoundTrip cannot avoid: the
// GET answered 402, one secp256k1 signature with the payer's key (every
// payment is a new signature: its validity window moves, so none can be
// made beforehand; what the 32 bytes signed are does not change the cost),
// then the GET carrying a payment, which the seller verifies as it does
// every payment (signature recovered, nonce = H) before its 200, over the
// same keep-alive loopback TLS. The payment sent is one made beforehand,
// so the seller's work is the subject's; the signature is the one made in
// the loop's place, as in gate's BenchmarkTransactFloor.
func BenchmarkRoundTripFloor(b *testing.B) {
	e := newEnv(b, nil)
	e.noSeen = true
	url := e.seller.ResourceURL()
	resp, _, err := get(b, e.client, url)
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("%v %v", err, resp)
	}
	r := pay.ResultOf(resp)
	payment, h := r.Header, r.H
	key, err := crypto.HexToECDSA(signer.AnvilKey[2:])
	if err != nil {
		b.Fatal(err)
	}
	c := &http.Client{Transport: e.base}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		roundTrip(b, c, url, "", http.StatusPaymentRequired)
		if _, err := crypto.Sign(h[:], key); err != nil {
			b.Fatal(err)
		}
		roundTrip(b, c, url, payment, 200)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	if e.seller.Rejected.Load() != 0 {
		b.Fatalf("%d rejected (%v)", e.seller.Rejected.Load(), e.seller.LastRejection())
	}
}

// BenchmarkRoundTripFloorPrepaid is the floor as first defined: the same
// two loopback TLS requests with a payment made beforehand, the seller
// verifying it as it does (signature recovered, nonce = H): the GET
// answered 402, then the GET carrying the payment, and nothing signed in
// the loop. BenchmarkRoundTripFloor adds the one signature no x402 payment
// can be made without after its 402.
func BenchmarkRoundTripFloorPrepaid(b *testing.B) {
	e := newEnv(b, nil)
	e.noSeen = true
	url := e.seller.ResourceURL()
	resp, _, err := get(b, e.client, url)
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("%v %v", err, resp)
	}
	payment := pay.ResultOf(resp).Header
	c := &http.Client{Transport: e.base}
	paid := e.seller.Paid.Load()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		roundTrip(b, c, url, "", http.StatusPaymentRequired)
		roundTrip(b, c, url, payment, 200)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	if e.seller.Rejected.Load() != 0 || e.seller.Paid.Load()-paid != int64(b.N) {
		b.Fatalf("%d rejected (%v), %d paid of %d", e.seller.Rejected.Load(), e.seller.LastRejection(), e.seller.Paid.Load()-paid, b.N)
	}
}

// roundTrip GETs url (with payment in PAYMENT-SIGNATURE unless empty) and
// wants status.
func roundTrip(b *testing.B, c *http.Client, url, payment string, status int) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	if payment != "" {
		req.Header.Set(pay.HeaderSignature, payment)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != status {
		b.Fatalf("status %d, want %d", resp.StatusCode, status)
	}
}
