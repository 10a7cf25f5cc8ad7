package sui

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

// recipeR is the vectors' V2: the wallet's SUI transfer.
const recipeR = "AAADACC6eBa/jwHP6kFBQN5driIjsANho5YXepy0EP9h8gAVrQAIECcAAAAAAAAAICCWk7xq/AxTKLo2+vA8UU7zEih8IJaTvGr8DFMoujb6AgIAAQEBAAEBAwAAAAABAgAuujGfYXEyDirxFvyPIZgbZ+csp/DAYAFDZHIPE5TaGwAuujGfYXEyDirxFvyPIZgbZ+csp/DAYAFDZHIPE5TaG+gDAAAAAAAAQEtMAAAAAAAB0gQAAAAAAAA="

// FuzzDecodeTx: any bytes decode to a transaction that writes back to them,
// or an error; never a panic.
func FuzzDecodeTx(f *testing.F) {
	raw, _ := base64.StdEncoding.DecodeString(recipeR)
	f.Add(raw)
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			tx, err := DecodeTx(b)
			if err == nil && !bytes.Equal(tx.Encode(), b) {
				t.Fatal("decoded bytes do not write back")
			}
			if err == nil {
				_, _ = CarriedH(tx)
				_, _ = ReadTransfer(tx)
			}
		})
	})
}

// FuzzSuiPayment: any payload transaction and signature text reads through
// Bound, PaymentReference and Inspect without a panic.
func FuzzSuiPayment(f *testing.F) {
	f.Add(recipeR, "AAAA")
	f.Add("", "")
	f.Add("AA==", "x")
	option := jsonv.Obj("scheme", "exact", "network", "sui:testnet", "amount", "10000", "asset", SUI,
		"payTo", "0x209693bc6afc0c5328ba36faf03c514ef312287c209693bc6afc0c5328ba36fa", "maxTimeoutSeconds", 60)
	f.Fuzz(func(t *testing.T, tx, sig string) {
		cost.Bound(t, len(tx)+len(sig), func() {
			p := jsonv.Obj("x402Version", 2, "accepted", option.Clone(), "payload", jsonv.Obj("signature", sig, "transaction", tx))
			_, _ = Exact{}.Bound(p)
			_, _ = PaymentReference(p)
			_, _ = Exact{}.Inspect(p)
			_, _ = InspectTransaction(tx, "sui:testnet")
		})
	})
}
