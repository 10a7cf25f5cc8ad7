package main

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/casper"
	"github.com/termsgate/termsgate/vectors"
)

// The bare forms a Casper payment carries (B6's payment): its CEP-3009
// typed data states the whole grant, its payload and its authorization the
// transfer without the domain (network and asset null); H is the nonce in
// each, and every form has the members every inspection has.
func TestInspectBareCasper(t *testing.T) {
	payments, err := vectors.Payments()
	if err != nil {
		t.Fatal(err)
	}
	payment := payments[casper.ExactID]
	c, err := casper.ReadPayment(payment)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := casper.PaymentAuthorization(c)
	if !ok {
		t.Fatal("the vector's authorization does not read")
	}
	p, _ := jsonv.AsObject(payment)
	payload, _ := p.GetObject("payload")
	h := `"h":"` + c.Nonce.String() + `"`
	payer, payee := `"payer":"`+a.From+`"`, `"payee":"`+a.To+`"`
	for name, tc := range map[string]struct {
		in   jsonv.Value
		want []string
	}{
		"typed data": {a.TypedData(), []string{`"kind":"casper-typed-data"`, `"network":"casper:casper-test"`,
			`"asset":"` + strings.ToLower(strOf(c.Accepted, "asset")) + `"`, `"assetName":"Casper X402 Token"`}},
		"payload":       {payload, []string{`"kind":"casper-payload"`, `"network":null`, `"asset":null`, `"keyIsPayer":`}},
		"authorization": {c.Authorization, []string{`"kind":"casper-authorization"`, `"network":null`, `"asset":null`}},
	} {
		code, out, errs := runCLI(t, jsonv.String(tc.in), "inspect")
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		for _, want := range append(tc.want, h, payer, payee, `"amount":"`+a.Value.String()+`"`, `"payableUntil":"`+a.ValidBefore.String()+`"`, `"pairing":null`) {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %s in %s", name, want, out)
			}
		}
		v, err := jsonv.Parse([]byte(out))
		o, _ := jsonv.AsObject(v)
		if err != nil || o.Len() != 18 {
			t.Errorf("%s: %d members, %v", name, o.Len(), err)
		}
	}
	// A form that is none of them is refused, never read as EIP-3009's.
	bad := c.Authorization.Clone()
	bad.Set("to", "0x"+strings.Repeat("11", 20))
	if code, out, _ := runCLI(t, jsonv.String(bad), "inspect"); code == exitOK {
		t.Fatalf("a Casper payer paying an EVM address read: %s", out)
	}
}

// A bare signed Polkadot extrinsic (B6's payload.extrinsic) reads as
// polkadot.InspectExtrinsic: the signer, the call's payee, asset and
// amount, and H from the remark.
func TestInspectBarePolkadot(t *testing.T) {
	payments, err := vectors.Payments()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := jsonv.AsObject(payments["x402/exact/polkadot/lcp-assets-remark"])
	payload, _ := p.GetObject("payload")
	xt := strOf(payload, "extrinsic")
	code, out, errs := runCLI(t, xt, "inspect")
	for _, want := range []string{`"kind":"polkadot-extrinsic"`, `"h":"0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"`,
		`"asset":"`, `"amount":"`, `"payer":"0x`, `"payee":"0x`} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Fatalf("exit %d, no %s in %s %s", code, want, out, errs)
		}
	}
}

func strOf(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }
