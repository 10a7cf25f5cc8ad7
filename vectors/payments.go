package vectors

import (
	"fmt"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
)

// Payments returns, for every pairing termsgate registers, one real payment
// of it from its vector file: the row its Bound test reads back. Tests run
// each pairing's Inspect over it (vectors' TestEveryPairingInspects) and
// fuzz targets start from it. A pairing added to rails/all adds its row.
func Payments() (map[string]jsonv.Value, error) {
	r := &reader{files: map[string]*jsonv.Object{}}
	b6 := func(file string) jsonv.Value { return r.get(r.row(file, "B6", ""), "input", "presented") }
	batchB6 := func(pairing string) jsonv.Value {
		return r.get(r.row("x402-batch-settlement.json", "B6", pairing), "input", "presented")
	}
	const session = "mpp-session-hedera-solana-xrpl.json"
	b2doc := func(file string) jsonv.Value {
		doc, _ := jsonv.AsArray(r.get(r.row(file, "B2", ""), "input", "doc"))
		if len(doc) == 0 {
			return nil
		}
		return doc[0]
	}
	out := map[string]jsonv.Value{
		"x402/exact/eip155/eip3009":        b6("x402-exact-eip155-eip3009.json"),
		"mpp/charge/evm/authorization":     b6("mpp-charge-evm-authorization.json"),
		"mpp/charge/tempo/memo":            b6("mpp-charge-tempo-memo.json"),
		"mpp/charge/tempo/push":            b6("mpp-charge-tempo-push.json"),
		"mpp/session/tempo":                b6("mpp-session-tempo.json"),
		"mpp/subscription/tempo":           b6("mpp-subscription-tempo.json"),
		"x402/exact/eip155/permit2":        b6("x402-exact-eip155-permit2.json"),
		"x402/upto/eip155/permit2":         b6("x402-upto-eip155-permit2.json"),
		"x402/auth-capture/eip155/eip3009": b6("x402-auth-capture-eip155-eip3009.json"),
		"x402/auth-capture/eip155/permit2": b6("x402-auth-capture-eip155-permit2.json"),
		"mpp/charge/usdc/evm":              b6("mpp-charge-usdc-evm.json"),
		"mpp/charge/evm/permit2":           b6("mpp-charge-evm-permit2.json"),
		"mpp/session/evm":                  b6("mpp-session-evm.json"),
		"x402/exact/eip155/erc7710-salt":   b6("x402-exact-eip155-erc7710-salt.json"),
		"x402/exact/eip155/erc7710":        b6("x402-exact-eip155-erc7710.json"),
		"x402/exact/lnbtc":                 b6("x402-exact-lnbtc.json"),
		"x402/exact/lnbtc/invoice-named":   b6("x402-exact-lnbtc-invoice-named.json"),
		"mpp/charge/lightning":             b6("mpp-charge-lightning.json"),
		"mpp/session/lightning":            b6("mpp-session-lightning.json"),
		"mpp/charge/usdc/gateway":          b6("mpp-charge-usdc-gateway.json"),
		"mpp/charge/solana":                b6("mpp-charge-solana.json"),
		"mpp/charge/usdc/solana":           b6("mpp-charge-usdc-solana.json"),
		"x402/upto/solana":                 b6("x402-upto-solana.json"),
		"x402/exact/hedera":                b6("x402-exact-hedera.json"),
		"mpp/charge/hedera":                b6("mpp-charge-hedera.json"),
		"x402/batch-settlement/eip155":     batchB6("x402/batch-settlement/eip155"),
		"x402/batch-settlement/solana":     batchB6("x402/batch-settlement/solana"),
		"x402/batch-settlement/cloudflare": r.get(r.file("x402-batch-settlement.json"), "EC1", "payload"),
		"x402/exact/solana": jsonv.Obj("x402Version", 2, "accepted", r.get(r.file("x402-exact-solana.json"), "V2", "accepted"),
			"payload", jsonv.Obj("transaction", r.get(r.file("x402-exact-solana.json"), "V2", "wireBase64"))),
		"mpp/session/solana": jsonv.Obj("challenge", r.get(r.file(session), "SS1", "solana", "placed"),
			"payload", jsonv.Obj("action", "open", "channelId", r.get(r.file(session), "SV2", "channel"),
				"transaction", r.get(r.file(session), "SV2", "wireBase64"))),
		"x402/exact/xrpl": jsonv.Obj("x402Version", 2, "accepted", r.get(r.file("x402-exact-xrpl.json"), "V2", "accepted"),
			"payload", jsonv.Obj("signedTxBlob", r.get(r.file("x402-exact-xrpl.json"), "V2", "blob"))),
		"mpp/charge/xrpl": jsonv.Obj("challenge", r.get(r.file("mpp-charge-xrpl.json"), "place", "expect"),
			"payload", jsonv.Obj("type", "transaction", "blob", r.get(r.file("mpp-charge-xrpl.json"), "V3", "blob"))),
		"mpp/session/xrpl": jsonv.Obj("challenge", r.get(r.file(session), "SS1", "xrpl", "placed"),
			"payload", jsonv.Obj("action", "open", "transaction", r.get(r.file(session), "XS2", "blob"), "amount", "100", "signature", "00")),
		"x402/exact/stellar": jsonv.Obj("x402Version", 2, "accepted", r.get(r.file("x402-exact-stellar.json"), "V3", "accepted"),
			"payload", jsonv.Obj("transaction", r.get(r.file("x402-exact-stellar.json"), "V3", "envelope")),
			"extensions", r.get(r.file("x402-exact-stellar.json"), "V3", "extensions")),
		"mpp/charge/stellar": jsonv.Obj("challenge", r.get(r.file("mpp-charge-stellar.json"), "place", "expect"),
			"payload", jsonv.Obj("type", "transaction", "transaction", r.get(r.file("mpp-charge-stellar.json"), "V3", "envelope"))),
		"x402/exact/algorand":            b6("x402-exact-algorand.json"),
		"x402/exact/tron/lcp-trc20-memo": b6("x402-exact-tron-lcp-trc20-memo.json"),
		"x402/exact/sui":                 b6("x402-exact-sui.json"),
		"mpp/charge/usdc/stacks":         b6("mpp-charge-usdc-stacks.json"),
		"x402/exact/near":                b6("x402-exact-near.json"),
		"x402/exact/cardano":             b6("x402-exact-cardano.json"),
		"x402/exact/tvm":                 b6("x402-exact-tvm.json"),
		"x402/exact/casper":              b6("x402-exact-casper.json"),
		"x402/exact/ccd":                 b6("x402-exact-ccd.json"),
		"mpp/charge/nearintents":         b6("mpp-charge-nearintents.json"),
		"ap2/checkout-mandate":           b6("ap2-checkout-mandate.json"),
		"ucp/checkout/ap2-mandate":       r.get(r.row("ucp.json", "B6", "ucp/checkout/ap2-mandate"), "input", "presented"),
		"ucp/booking/ap2-mandate":        r.get(r.row("ucp.json", "B6", "ucp/booking/ap2-mandate"), "input", "presented"),
		"acp/checkout/delegated":         r.get(r.row("acp-checkout.json", "B6", "acp/checkout/delegated"), "input", "presented"),
		// The Stripe files hold no payment (the buyer signs nothing): the
		// credential answering B2's placed challenge with the Stripe specs'
		// example token and PaymentMethod.
		"mpp/charge/stripe": jsonv.Obj("challenge", b2doc("mpp-charge-stripe.json"),
			"payload", jsonv.Obj("spt", "spt_1N4Zv32eZvKYlo2CPhVPkJlW")),
		"mpp/subscription/stripe": jsonv.Obj("challenge", b2doc("mpp-subscription-stripe.json"),
			"payload", jsonv.Obj("paymentMethod", "pm_1Qabc32eZvKYlo2C7b8H1234")),
		"card/visa-tap":                 r.get(r.row("card.json", "B6", "card/visa-tap"), "input", "presented"),
		"card/mastercard-vi/immediate":  r.get(r.row("card.json", "B6", "card/mastercard-vi/immediate"), "input", "presented"),
		"card/mastercard-vi/autonomous": r.get(r.row("card.json", "B6", "card/mastercard-vi/autonomous"), "input", "presented"),
	}
	out["x402/exact/hedera/transfer-executor"] = b6("x402-exact-hedera-transfer-executor.json")
	out["mpp/session/hedera"] = r.get(r.row(session, "B6", "mpp/session/hedera"), "input", "presented")
	out["x402/exact/aptos"] = aptosPayment(r)
	out["x402/exact/polkadot/lcp-assets-remark"] = b6("x402-exact-polkadot-lcp-assets-remark.json")
	out["x402/exact/starknet"] = b6("x402-exact-starknet.json")
	if r.err != nil {
		return nil, r.err
	}
	for k, v := range out {
		out[k] = jsonv.Clone(v)
	}
	return out, nil
}

// reader walks the vector files, keeping the first error.
type reader struct {
	files map[string]*jsonv.Object
	err   error
}

func (r *reader) file(name string) *jsonv.Object {
	if f, ok := r.files[name]; ok {
		return f
	}
	f, err := Load(name)
	if err != nil && r.err == nil {
		r.err = err
	}
	r.files[name] = f
	return f
}

func (r *reader) get(v jsonv.Value, path ...string) jsonv.Value {
	for _, k := range path {
		o, _ := jsonv.AsObject(v)
		var ok bool
		if v, ok = o.Get(k); !ok {
			if r.err == nil {
				r.err = fmt.Errorf("vectors: no %s", strings.Join(path, "."))
			}
			return nil
		}
	}
	return v
}

// row is the buyer row named name (for pairing, when not "") of file.
func (r *reader) row(file, name, pairing string) jsonv.Value {
	rows, _ := jsonv.AsArray(r.get(r.file(file), "buyer", "rows"))
	for _, v := range rows {
		o, _ := jsonv.AsObject(v)
		n, _ := o.GetString("name")
		p, _ := o.GetString("pairing")
		if n == name && (pairing == "" || p == pairing) {
			return o
		}
	}
	if r.err == nil {
		r.err = fmt.Errorf("vectors: %s has no buyer row %s %s", file, name, pairing)
	}
	return nil
}

// Strings returns every string value of the named members anywhere in a
// vector file, in document order: the blobs, envelopes and wire
// transactions (canonical serialization rows among them) that fuzz targets
// start from.
func Strings(file string, members ...string) ([]string, error) {
	f, err := Load(file)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, m := range members {
		want[m] = true
	}
	var out []string
	var walk func(v jsonv.Value)
	walk = func(v jsonv.Value) {
		switch x := v.(type) {
		case *jsonv.Object:
			for _, m := range x.Members() {
				if s, ok := m.Value.(string); ok && want[m.Key] {
					out = append(out, s)
				}
				walk(m.Value)
			}
		case []jsonv.Value:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(f)
	return out, nil
}
