package ccd

import (
	"errors"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// D3's two signed transactions read bare (x402-exact-ccd.json): the
// transfer they move, payable until the expiry, H from the memo, no
// network; the same grant and details the pairing's Inspect states of the
// whole payment. Without signatures each reads as what the wallet signs.
func TestInspectBare(t *testing.T) {
	v := load(t)
	const (
		payer = "3ezotrLdEJLzM7cwvpkGtxGcmSFJ8MZMySUvQynXeV3P8s8wcg"
		payee = "4PnJd77jiMZB3HheYkrynfUGzZtpSERjpzy954eDD3krRf1Wpx"
		h     = "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	)
	for _, tc := range []struct {
		base, asset, amount string
		decimals            int
	}{{"ccd", CCD, "1000000", 6}, {"plt", "EURR", "5000000", 6}} {
		payment := at(t, v, "D3", tc.base, "payment")
		tx, _ := jsonv.AsObject(at(t, payment, "payload", "signedTransaction"))
		if !IsBare(tx) {
			t.Fatalf("%s: not bare", tc.base)
		}
		in, err := InspectBare(tx)
		if err != nil {
			t.Fatalf("%s: %v", tc.base, err)
		}
		g := in.Grant
		if in.Kind != KindBareSigned || in.Pairing != "" || in.H != h || g.Network != "" || g.Asset != tc.asset ||
			g.Decimals != tc.decimals || g.Amount.String() != tc.amount || g.Payer != payer || g.Payee != payee ||
			g.PayableUntil.Unix() != 1790000060 || !strings.Contains(in.WhereH, "memo") {
			t.Fatalf("%s: %+v", tc.base, in)
		}
		whole, err := Exact{}.Inspect(payment)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"nonce", "sponsor", "energy", "executionEnergy", "senderSignatures", "payload", "signDigest"} {
			a, _ := in.Details.Get(k)
			b, _ := whole.Details.Get(k)
			if !jsonv.Equal(a, b) || a == nil {
				t.Fatalf("%s: details %s: bare %v, payment %v", tc.base, k, a, b)
			}
		}
		if whole.H != in.H || whole.Grant.Payer != g.Payer || whole.Grant.Payee != g.Payee || whole.Grant.Amount.Cmp(g.Amount) != 0 {
			t.Fatalf("%s: bare %+v, payment %+v", tc.base, in, whole)
		}
		unsigned := tx.Clone()
		unsigned.Delete("signatures")
		in2, err := InspectBare(unsigned)
		if err != nil || in2.Kind != KindBareUnsigned || in2.H != h || in2.Grant.Payer != payer {
			t.Fatalf("%s unsigned: %+v, %v", tc.base, in2, err)
		}
		if n, _ := in2.Details.Get("senderSignatures"); n != jsonv.Number(0) {
			t.Fatalf("%s unsigned: %v signatures", tc.base, n)
		}
		sd1, _ := in.Details.Get("signDigest")
		sd2, _ := in2.Details.Get("signDigest")
		if sd1 != sd2 {
			t.Fatalf("%s: the unsigned form signs %v, the signed %v", tc.base, sd2, sd1)
		}
	}
}

// Every way a bare form is not the SDK's is refused with the code that
// says why, and an error naming what was wrong; IsBare routes no other
// chain's JSON here.
func TestInspectBareRefuses(t *testing.T) {
	v := load(t)
	base := func(k string) *jsonv.Object {
		o, _ := jsonv.AsObject(jsonv.Clone(at(t, v, "D3", k, "payment", "payload", "signedTransaction")))
		return o
	}
	sub := func(o *jsonv.Object, path ...string) *jsonv.Object {
		for _, p := range path {
			o, _ = o.GetObject(p)
		}
		return o
	}
	for name, tc := range map[string]struct {
		k    string
		edit func(o *jsonv.Object)
		code string
	}{
		"an extra member":        {"ccd", func(o *jsonv.Object) { o.Set("network", "ccd:4221332d34e1694168c2a0c0b3fd0f27") }, CodeTransactionMalformed},
		"no payload":             {"ccd", func(o *jsonv.Object) { o.Delete("payload") }, CodeTransactionMalformed},
		"version 0":              {"ccd", func(o *jsonv.Object) { o.Set("version", jsonv.Number(0)) }, CodeNotV1},
		"an extra header member": {"ccd", func(o *jsonv.Object) { sub(o, "header").Set("energy", jsonv.Number(1)) }, CodeTransactionMalformed},
		"no sponsor":             {"ccd", func(o *jsonv.Object) { sub(o, "header").Delete("sponsor") }, CodeTransactionMalformed},
		"an extra sponsor member": {"plt", func(o *jsonv.Object) {
			sub(o, "header", "sponsor").Set("signature", "00")
		}, CodeTransactionMalformed},
		"the nonce a string": {"ccd", func(o *jsonv.Object) { sub(o, "header").Set("nonce", "7") }, CodeTransactionMalformed},
		"a bad sponsor": {"ccd", func(o *jsonv.Object) {
			sub(o, "header", "sponsor").Set("account", "4SMYM3fzSqs6DBqMgPDWnq4XTiT2YXFCUD2dV3rPmtG42ocYte")
		}, CodeAddressMalformed},
		"an extra payload member": {"ccd", func(o *jsonv.Object) { sub(o, "payload").Set("tokenId", "EURR") }, CodeTransactionMalformed},
		"a plain transfer": {"ccd", func(o *jsonv.Object) {
			o.Set("payload", jsonv.Obj("type", "transfer", "toAddress", "4PnJd77jiMZB3HheYkrynfUGzZtpSERjpzy954eDD3krRf1Wpx", "amount", "1"))
		}, CodePayloadKind},
		"upper-case hex in the memo": {"ccd", func(o *jsonv.Object) {
			memo, _ := sub(o, "payload").GetString("memo")
			sub(o, "payload").Set("memo", strings.Replace(memo, "30786261", "30784241", 1))
		}, CodeMemoNotLCP},
		"a short signature": {"ccd", func(o *jsonv.Object) { sub(o, "signatures", "sender", "0").Set("0", "00") }, CodeTransactionMalformed},
		"signatures null":   {"ccd", func(o *jsonv.Object) { o.Set("signatures", nil) }, CodeTransactionMalformed},
		"two operations": {"plt", func(o *jsonv.Object) {
			ops, _ := sub(o, "payload").GetString("operations")
			sub(o, "payload").Set("operations", "82"+ops[2:]+ops[2:])
		}, CodeOperationCount},
		"a positive exponent": {"plt", func(o *jsonv.Object) {
			ops, _ := sub(o, "payload").GetString("operations")
			sub(o, "payload").Set("operations", strings.Replace(ops, "c48225", "c48205", 1))
		}, CodeOperationsMalformed},
		"too large": {"ccd", func(o *jsonv.Object) { o.Set("version", strings.Repeat("1", MaxTransaction)) }, CodeTooLarge},
	} {
		o := base(tc.k)
		tc.edit(o)
		_, err := InspectBare(o)
		var r *rails.Refusal
		var be *BareError
		if !errors.As(err, &r) || r.Code != tc.code || !errors.As(err, &be) || be.What == "" {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
	for _, o := range []*jsonv.Object{
		jsonv.Obj("version", 1, "header", jsonv.Obj("sender", "0x3f16efeb2ae57f7d8befb03af08a3a370562dde15149c3506ac2038ffa9be24"), "payload", jsonv.Obj()),
		jsonv.Obj("x402Version", 2, "version", 1, "header", jsonv.Obj("sender", "3ezotrLdEJLzM7cwvpkGtxGcmSFJ8MZMySUvQynXeV3P8s8wcg"), "payload", jsonv.Obj()),
		jsonv.Obj("from", "3ezotrLdEJLzM7cwvpkGtxGcmSFJ8MZMySUvQynXeV3P8s8wcg"),
	} {
		if IsBare(o) {
			t.Errorf("%s read as bare", jsonv.Marshal(o))
		}
	}
}
