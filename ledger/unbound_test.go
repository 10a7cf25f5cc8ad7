package ledger_test

import (
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/ledger"
)

// A journaled unbound payment (no terms, a zero H) is read back as unbound,
// so that presenting it again says what it is; a bound one is not.
func TestJournaledUnboundReadsBackUnbound(t *testing.T) {
	p := &ledger.Payment{ID: "1", Pairing: "x402/exact/eip155/eip3009", Protocol: "x402",
		H: atr.Hash{}.String(), URL: "https://api.seller.example/v1/report", HeaderName: "PAYMENT-SIGNATURE", Header: "x"}
	r, err := p.Result()
	if err != nil || !r.Unbound || !r.Summary.Unbound {
		t.Fatalf("unbound payment read back %+v (%v)", r, err)
	}
	p.ATR, p.H = []byte("the terms"), atr.Sum([]byte("the terms")).String()
	if r, err = p.Result(); err != nil || r.Unbound || r.Summary.Unbound {
		t.Fatalf("bound payment read back %+v (%v)", r, err)
	}
}
