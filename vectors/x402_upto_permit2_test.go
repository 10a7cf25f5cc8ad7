package vectors_test

// x402-upto-eip155-permit2.json: the upto witness transfer built, signed
// and read back with its hex nonce (EV2), the settlement read with
// Permit2's nonce record (EV6), facilitatorMissing, and the buyer rows B2
// and B6.

import (
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
)

func TestX402UptoEIP155Permit2(t *testing.T) {
	x := loadX402Fixed(t, "x402-upto-eip155-permit2.json")
	p := evm.UptoPermit2{}
	t.Run("EV2", func(t *testing.T) {
		v := obj(t, x.f, "EV2")
		_, req := x.requestOf(t, p)
		msg := obj(t, req, "typedData", "message")
		if got := str(t, msg, "spender"); got != str(t, v, "expectSpender") {
			t.Fatalf("spender %s", got)
		}
		if got := str(t, msg, "deadline"); got != str(t, v, "expectDeadline") {
			t.Fatalf("deadline %s", got)
		}
		wantPrefixSuffix(t, keccakHex("Witness(address to,address facilitator,uint256 validAfter)"), get(t, v, "expectWitnessTypeHash"), "witness type hash")
		payment := x.permit2Payment(t, p, str(t, v, "expectDigest"))
		if got := str(t, payment, "payload", "permit2Authorization", "nonce"); got != str(t, v, "expectNonceHex") {
			t.Fatalf("payload nonce %s", got)
		}
		if h, err := p.Bound(payment); err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		ref, err := p.Reference(payment)
		if err != nil {
			t.Fatal(err)
		}
		er := obj(t, v, "expectReference")
		if str(t, ref, "transferLog", "identity") != str(t, er, "identity") || str(t, ref, "transferLog", "digest") != str(t, er, "digest") ||
			str(t, ref, "settleBy") != str(t, er, "settleBy") {
			t.Fatalf("reference %s", jsonv.String(ref))
		}
		g, err := p.Summarize(req)
		if err != nil || g.Amount.String() != str(t, x.option, "amount") || g.Payee != str(t, x.option, "payTo") {
			t.Fatalf("summary %+v (%v)", g, err)
		}
	})

	t.Run("EV6", func(t *testing.T) {
		v := obj(t, x.f, "EV6")
		ref := exactPermit2Ref(t, x, p, str(t, v, "transaction"))
		ec := obj(t, v, "expectCall")
		for _, name := range []string{"oneUnitUsed", "oneUnitUnused"} {
			c := obj(t, v, name)
			r := &callReader{fixtureReader: permit2Reader(t, v, get(t, c, "receipt")), word: str(t, c, "nonceBitmap")}
			wantStatus(t, p.Status(ref, r), get(t, c, "expect"), name)
			if len(r.calls) != 1 || r.calls[0].To != str(t, ec, "to") || r.calls[0].Data != str(t, ec, "data") ||
				r.calls[0].Block != blockOf(t, str(t, ec, "block")) {
				t.Fatalf("%s: calls %+v", name, r.calls)
			}
		}
		// A call that fails is pending, never failed nor settled.
		c := obj(t, v, "oneUnitUsed")
		wantStatus(t, p.Status(ref, &callReader{fixtureReader: permit2Reader(t, v, get(t, c, "receipt"))}),
			jsonv.Obj("state", "pending", "why", "unreadable"), "failed call")
	})

	t.Run("facilitatorMissing", func(t *testing.T) {
		v := obj(t, x.f, "facilitatorMissing")
		o := x.option.Clone()
		obj(t, o, "extra").Delete("facilitatorAddress")
		doc := jsonv.Obj("x402Version", 2, "resource", get(t, x.fixed, "resource"), "accepts", []jsonv.Value{o})
		_, err := p.Build(jsonv.Obj("required", doc, "accepted", o, "from", x.payer, "now", x.now), nil, mustHash(t, x.h))
		wantRefusal(t, err, str(t, v, "expect", "code"))
		b6 := get(t, row(t, get(t, x.f, "buyer", "rows"), "B6"), "input", "presented").(*jsonv.Object).Clone()
		obj(t, b6, "accepted", "extra").Delete("facilitatorAddress")
		_, err = p.Bound(b6)
		wantRefusal(t, err, str(t, v, "expect", "code"))
	})

	mppBuyerRows(t, x.f, x.key)
}
