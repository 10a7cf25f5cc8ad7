package vectors_test

// decoder-caps.json's ScVal rows (SC1–SC4: one ScVal) and envelope rows
// (SE1–SE4: V2's envelope with a second authorization entry), through the
// Stellar rail's decoders.

import (
	"encoding/base64"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/stellar"
)

func TestDecoderCapsScVal(t *testing.T) {
	f := obj(t, load(t, "decoder-caps.json"), "scval")
	if d, _ := jsonv.AsSafeInt(get(t, f, "maxDepth")); d != stellar.MaxScValDepth {
		t.Fatalf("maxDepth %d", d)
	}
	if n, _ := jsonv.AsSafeInt(get(t, f, "maxElements")); n != stellar.MaxScElements {
		t.Fatalf("maxElements %d", n)
	}
	for _, rv := range get(t, f, "rows").([]jsonv.Value) {
		r := rv.(*jsonv.Object)
		t.Run(str(t, r, "name"), func(t *testing.T) {
			raw, err := base64.StdEncoding.DecodeString(str(t, r, "xdr"))
			if err != nil {
				t.Fatal(err)
			}
			_, ok := stellar.DecodeScVal(raw)
			if want := get(t, r, "accept") == true; ok != want {
				t.Fatalf("accepted %v, want %v (%s)", ok, want, str(t, r, "case"))
			}
		})
	}
	for _, rv := range get(t, f, "envelopes").([]jsonv.Value) {
		r := rv.(*jsonv.Object)
		t.Run(str(t, r, "name"), func(t *testing.T) {
			_, err := stellar.DecodeEnvelope(str(t, r, "xdr"))
			if get(t, r, "accept") == true {
				if err != nil {
					t.Fatalf("refused %v (%s)", err, str(t, r, "case"))
				}
				return
			}
			wantRefusal(t, err, stellar.CodeTxMalformed)
		})
	}
}
