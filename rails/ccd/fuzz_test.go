package ccd

import (
	"bytes"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

// FuzzSignedTransaction: any JSON as payload.signedTransaction ends
// ReadWire, Carried and Inspect in a value or a refusal, never a panic,
// within internal/cost's bound; a transaction ReadWire reads writes back
// through WireForm to one that reads as the same bytes and signature.
// Seeded with D3's two signed transactions.
func FuzzSignedTransaction(f *testing.F) {
	v := load(f)
	for _, k := range []string{"ccd", "plt"} {
		f.Add(jsonv.Marshal(at(f, v, "D3", k, "payment", "payload", "signedTransaction")))
	}
	accepted := at(f, v, "D3", "ccd", "payment", "accepted")
	f.Fuzz(func(t *testing.T, data []byte) {
		cost.Bound(t, len(data), func() {
			tv, err := jsonv.Parse(data)
			if err != nil {
				return
			}
			p := jsonv.Obj("x402Version", 2, "accepted", accepted, "payload", jsonv.Obj("signedTransaction", tv))
			_, _, _ = Carried(p)
			_, _ = Exact{}.Inspect(p)
			tx, ok := jsonv.AsObject(tv)
			if !ok {
				return
			}
			w, err := ReadWire(tx)
			if err != nil {
				return
			}
			sig := w.Signatures[[2]uint8{0, 0}]
			if sig == nil {
				return
			}
			again, err := WireForm(&w.Tx, sig)
			if err != nil {
				t.Fatalf("read but not written: %v", err)
			}
			w2, err := ReadWire(again)
			if err != nil || !bytes.Equal(w2.Tx.Header(), w.Tx.Header()) || !bytes.Equal(w2.Tx.Payload, w.Tx.Payload) ||
				!bytes.Equal(w2.Signatures[[2]uint8{0, 0}], sig) {
				t.Fatalf("written back, reads otherwise: %v", err)
			}
		})
	})
}
