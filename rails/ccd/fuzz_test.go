package ccd

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/atr"
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

// FuzzCCDBare: any JSON object through IsBare and InspectBare (inspect's
// bare form) ends in an inspection or a refusal, never a panic, within
// internal/cost's bound; a form that reads states an H whose memo is in
// the input (as jsonv writes it back), the header's sender as payer, and, put in D3's payment, the
// H the pairing's Bound reads. Seeded with D3's two signed transactions,
// signed and not.
func FuzzCCDBare(f *testing.F) {
	v := load(f)
	for _, k := range []string{"ccd", "plt"} {
		tx, _ := jsonv.AsObject(at(f, v, "D3", k, "payment", "payload", "signedTransaction"))
		f.Add(jsonv.Marshal(tx))
		u := tx.Clone()
		u.Delete("signatures")
		f.Add(jsonv.Marshal(u))
	}
	accepted := at(f, v, "D3", "ccd", "payment", "accepted")
	f.Fuzz(func(t *testing.T, data []byte) {
		cost.Bound(t, len(data), func() {
			tv, err := jsonv.Parse(data)
			o, ok := jsonv.AsObject(tv)
			if err != nil || !ok {
				return
			}
			isBare := IsBare(o)
			in, err := InspectBare(o)
			if err != nil {
				return
			}
			header, _ := o.GetObject("header")
			sender, _ := header.GetString("sender")
			h := atr.Hash(unhexOr(in.H))
			if !isBare || in.Grant.Payer != sender || in.Grant.Amount == nil || in.Grant.Network != "" ||
				!bytes.Contains(jsonv.Marshal(o), []byte(hex.EncodeToString(Memo(h)))) {
				t.Fatalf("read %+v from %s", in, data)
			}
			if !o.Has("signatures") {
				return
			}
			p := jsonv.Obj("x402Version", 2, "accepted", accepted, "payload", jsonv.Obj("signedTransaction", o))
			if b, err := Bound(p); err != nil || b != in.H {
				t.Fatalf("bare H %s, Bound %s, %v", in.H, b, err)
			}
		})
	})
}
