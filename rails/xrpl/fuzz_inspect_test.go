package xrpl

import (
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/vectors"
)

// xrplSeeds are the vectors' XRPL blobs: the payments', the plants', the
// codec's canonical serialization rows (x402-exact-xrpl.json's
// strictEncoding, decoder-caps.json's XC rows) and a UNLModify with its
// empty Account.
func xrplSeeds(f *testing.F) []string {
	seeds := []string{unlModifyBlob}
	for _, file := range []string{"x402-exact-xrpl.json", "mpp-charge-xrpl.json", "mpp-session-hedera-solana-xrpl.json", "decoder-caps.json"} {
		s, err := vectors.Strings(file, "blob")
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, s...)
	}
	return seeds
}

// FuzzInspectBlob: inspect's reader of a bare blob never panics (it runs
// here without its guard) and stays within the time bound; what it reads
// marshals, and names a payer only as a valid classic address.
func FuzzInspectBlob(f *testing.F) {
	for _, s := range xrplSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			in, err := inspectBlob(s)
			if err != nil {
				return
			}
			_ = jsonv.Marshal(in.JSON())
			if in.Grant.Payer != "" {
				if _, err := ParseAddress(in.Grant.Payer); err != nil {
					t.Fatalf("payer %q: %v", in.Grant.Payer, err)
				}
			}
		})
	})
}

// FuzzInspectPayment: the XRPL pairings' Inspect over each one's vector
// payment with any blob in its place never panics; what one reads names
// the H its Bound reads.
func FuzzInspectPayment(f *testing.F) {
	payments, err := vectors.Payments()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range xrplSeeds(f) {
		f.Add(s)
	}
	shapes := []struct {
		p      rails.Pairing
		member string // where the blob sits under payload
	}{
		{Exact{}, "signedTxBlob"}, {Charge{}, "blob"}, {Session{}, "transaction"},
	}
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			for _, sh := range shapes {
				pay := jsonv.Clone(payments[sh.p.ID()]).(*jsonv.Object)
				payload, _ := pay.GetObject("payload")
				payload.Set(sh.member, s)
				inspectAgreesWithBound(t, sh.p, pay)
			}
		})
	})
}

// inspectAgreesWithBound: an Inspect that reads pay states the pairing and
// the H Bound reads, and marshals.
func inspectAgreesWithBound(t *testing.T, p rails.Pairing, pay jsonv.Value) {
	in, err := p.(rails.Inspector).Inspect(pay)
	if err != nil {
		return
	}
	h, err := p.Bound(pay)
	if err != nil || h != in.H || in.Pairing != p.ID() {
		t.Fatalf("%s: inspect says H %q, bound %q (%v)", p.ID(), in.H, h, err)
	}
	_ = jsonv.Marshal(in.JSON())
}
