package vectors_test

// buyer.json's BS1 (x402/exact/stellar) and BS2 (mpp/charge/stellar): the
// pairing's read and build over simulated envelopes that transfer another
// amount, another token or from another account, each declined before the
// signer is called, and the control, signed once.

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/signer"
)

func stellarBuyerRow(t *testing.T, r *jsonv.Object) {
	in := obj(t, r, "input")
	s := newATRSeller(t)
	s.serveBytes(unhex(t, str(t, in, "servesHex")))
	var now int64
	if in.Has("now") {
		now, _ = jsonv.AsSafeInt(get(t, in, "now"))
	}
	pairing := str(t, in, "pairing")
	for _, cv := range get(t, in, "cases").([]jsonv.Value) {
		c := cv.(*jsonv.Object)
		t.Run(str(t, c, "case"), func(t *testing.T) {
			sg := &countingSigner{inner: stellarKey(t, signer.StellarDevSeed)}
			if sg.Account() != str(t, in, "account") {
				t.Fatalf("signer account %s, row %s", sg.Account(), str(t, in, "account"))
			}
			_, err := s.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), pairing, sg,
				&gate.TransactOptions{Inputs: obj(t, c, "inputs")})
			want := obj(t, c, "expect")
			calls, _ := jsonv.AsSafeInt(get(t, want, "signCalls"))
			if want.Has("decline") {
				wantDecline(t, err, gate.Code(str(t, want, "decline")), str(t, want, "detail"))
			} else if err != nil {
				t.Fatalf("control declined: %v", err)
			}
			if sg.calls.Load() != calls {
				t.Fatalf("%d signer calls, want %d", sg.calls.Load(), calls)
			}
			if want.Has("signRequestKind") {
				if k, _ := sg.seen[0].GetString("kind"); k != str(t, want, "signRequestKind") {
					t.Fatalf("request kind %s", k)
				}
			}
		})
	}
}
