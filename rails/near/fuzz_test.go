package near

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

// v2 is the vectors' V2 signed delegate action.
const v2 = "QAAAADhhODhlM2RkNzQwOWYxOTVmZDUyZGIyZDNjYmE1ZDcyY2E2NzA5YmYxZDk0MTIxYmYzNzQ4ODAxYjQwZjZmNWMMAAAAdXNkYy50ZXN0bmV0AQAAAAILAAAAZnRfdHJhbnNmZXKMAAAAeyJyZWNlaXZlcl9pZCI6Im1lcmNoYW50LnRlc3RuZXQiLCJhbW91bnQiOiIxMDAwMDAwIiwibWVtbyI6ImxjcDpzaGEyNTY6MHhiYTc4MTZiZjhmMDFjZmVhNDE0MTQwZGU1ZGFlMjIyM2IwMDM2MWEzOTYxNzdhOWNiNDEwZmY2MWYyMDAxNWFkIn0A4FfrSBsAAAEAAAAAAAAAAAAAAAAAAABlAAAAAAAAADzC6wsAAAAAAIqI4910CfGV/VLbLTy6XXLKZwm/HZQSG/N0iAG0D29cANCS+8ze3sYPcFte5u1h3LnfanVdo7jJggxLPudilVCmDsxQu0BjPHXqpDbrcWFcztOVClDOOlgPkL7pAWZGiQo="

// FuzzDecodeSigned: any bytes decode to a signed delegate action that
// writes back to them, or an error; never a panic.
func FuzzDecodeSigned(f *testing.F) {
	raw, _ := base64.StdEncoding.DecodeString(v2)
	f.Add(raw)
	f.Add([]byte{2, 0, 0, 0, 'a', 'b'})
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			s, err := DecodeSigned(b)
			if err == nil && !bytes.Equal(s.Encode(), b) {
				t.Fatal("decoded bytes do not write back")
			}
		})
	})
}

// FuzzNearPayment: any payload text reads through Bound, the reference and
// Inspect without a panic.
func FuzzNearPayment(f *testing.F) {
	f.Add(v2)
	f.Add("")
	f.Add("AAAA")
	option := jsonv.Obj("scheme", "exact", "network", "near:testnet", "amount", "1000000", "asset", "usdc.testnet",
		"payTo", "merchant.testnet", "maxTimeoutSeconds", 60)
	f.Fuzz(func(t *testing.T, sda string) {
		cost.Bound(t, len(sda), func() {
			p := jsonv.Obj("x402Version", 2, "accepted", option.Clone(), "payload", jsonv.Obj("signedDelegateAction", sda))
			_, _ = Exact{}.Bound(p)
			_, _ = PaymentReference(p)
			_, _ = Exact{}.Inspect(p)
		})
	})
}

// FuzzSigningRequest: any delegate action bytes in a request read through
// Summarize without a panic, and a request that reads states its hash.
func FuzzSigningRequest(f *testing.F) {
	raw, _ := base64.StdEncoding.DecodeString(v2)
	f.Add(raw[:len(raw)-65])
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			r := &reader{b: b}
			d, err := readDelegate(r)
			h := [32]byte{}
			if err == nil {
				h = d.SigningHash()
			}
			req := jsonv.Obj("kind", KindDelegate, "network", "near:testnet", "hash", "0x"+hexOf(h[:]), "delegateAction", "0x"+hexOf(b))
			_, _ = Exact{}.Summarize(req)
		})
	})
}
