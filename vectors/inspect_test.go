package vectors_test

import (
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/solana"
)

// inspectedPayments are, for every registered pairing, a real payment of it
// from its vector file (the row its Bound test reads back), so that
// TestEveryPairingInspects can run each pairing's Inspect. A pairing added
// to rails/all adds its row here.
var inspectedPayments = map[string]func(t *testing.T) jsonv.Value{
	"x402/exact/eip155/eip3009":    buyerB6("x402-exact-eip155-eip3009.json"),
	"mpp/charge/evm/authorization": buyerB6("mpp-charge-evm-authorization.json"),
	"mpp/charge/tempo/memo":        buyerB6("mpp-charge-tempo-memo.json"),
	"mpp/charge/tempo/push":        buyerB6("mpp-charge-tempo-push.json"),
	"mpp/session/tempo":            buyerB6("mpp-session-tempo.json"),
	"mpp/subscription/tempo":       buyerB6("mpp-subscription-tempo.json"),
	evm.BatchID: func(t *testing.T) jsonv.Value {
		return get(t, batchRow(t, load(t, "x402-batch-settlement.json"), "B6", evm.BatchID), "input", "presented")
	},
	solana.BatchID: func(t *testing.T) jsonv.Value {
		return get(t, batchRow(t, load(t, "x402-batch-settlement.json"), "B6", solana.BatchID), "input", "presented")
	},
	"x402/batch-settlement/cloudflare": func(t *testing.T) jsonv.Value {
		return get(t, load(t, "x402-batch-settlement.json"), "EC1", "payload")
	},
	"x402/exact/solana": func(t *testing.T) jsonv.Value {
		v := obj(t, load(t, "x402-exact-solana.json"), "V2")
		return payment(get(t, v, "accepted"), str(t, v, "wireBase64"))
	},
	"mpp/session/solana": func(t *testing.T) jsonv.Value {
		f := load(t, "mpp-session-hedera-solana-xrpl.json")
		return solanaOpening(obj(t, f, "SS1", "solana", "placed"), str(t, f, "SV2", "channel"), str(t, f, "SV2", "wireBase64"))
	},
	"x402/exact/xrpl": func(t *testing.T) jsonv.Value {
		v := obj(t, load(t, "x402-exact-xrpl.json"), "V2")
		return jsonv.Obj("x402Version", 2, "accepted", get(t, v, "accepted"), "payload", jsonv.Obj("signedTxBlob", str(t, v, "blob")))
	},
	"mpp/charge/xrpl": func(t *testing.T) jsonv.Value {
		f := load(t, "mpp-charge-xrpl.json")
		return jsonv.Obj("challenge", obj(t, f, "place", "expect"), "payload", jsonv.Obj("type", "transaction", "blob", str(t, f, "V3", "blob")))
	},
	"mpp/session/xrpl": func(t *testing.T) jsonv.Value {
		f := load(t, "mpp-session-hedera-solana-xrpl.json")
		return jsonv.Obj("challenge", obj(t, f, "SS1", "xrpl", "placed"),
			"payload", jsonv.Obj("action", "open", "transaction", str(t, f, "XS2", "blob"), "amount", "100", "signature", "00"))
	},
	"x402/exact/stellar": func(t *testing.T) jsonv.Value {
		v3 := obj(t, load(t, "x402-exact-stellar.json"), "V3")
		return stellarPayment(obj(t, v3, "accepted"), obj(t, v3, "extensions"), str(t, v3, "envelope"))
	},
	"mpp/charge/stellar": func(t *testing.T) jsonv.Value {
		f := load(t, "mpp-charge-stellar.json")
		return jsonv.Obj("challenge", obj(t, f, "place", "expect"), "payload", jsonv.Obj("type", "transaction", "transaction", str(t, f, "V3", "envelope")))
	},
}

// unstated are members a pairing's payment cannot carry, with why: the
// test requires every other of payer, payee, asset, amount and network.
var unstated = map[string]map[string]string{
	// The agent's HTTP message signature pays; the payment names no payer.
	"x402/batch-settlement/cloudflare": {"payer": "the payment is the agent's signed HTTP request; it names no payer account"},
}

func buyerB6(file string) func(t *testing.T) jsonv.Value {
	return func(t *testing.T) jsonv.Value {
		return get(t, row(t, get(t, load(t, file), "buyer", "rows"), "B6"), "input", "presented")
	}
}

// TestEveryPairingInspects runs every registered pairing's Inspect over a
// real payment of it: the wire form has every member, payer, payee, asset,
// amount and network are stated, and H is the one Bound reads back.
func TestEveryPairingInspects(t *testing.T) {
	for _, p := range all.Default().All() {
		t.Run(p.ID(), func(t *testing.T) {
			mk, ok := inspectedPayments[p.ID()]
			if !ok {
				t.Fatalf("no payment of %s in inspectedPayments: add its vector file's row", p.ID())
			}
			in, ok := p.(rails.Inspector)
			if !ok {
				t.Fatalf("%s has no Inspect", p.ID())
			}
			payment := mk(t)
			h, err := p.Bound(payment)
			if err != nil {
				t.Fatalf("the row is no payment of %s: %v", p.ID(), err)
			}
			got, err := in.Inspect(payment)
			if err != nil {
				t.Fatal(err)
			}
			o := got.JSON()
			want := []string{"pairing", "kind", "network", "payer", "payee", "asset", "assetName", "amount", "decimals",
				"amountDecimal", "payableFrom", "payableFromTime", "payableUntil", "payableUntilTime", "period", "h", "whereH", "details"}
			if keys := o.Keys(); len(keys) != len(want) {
				t.Fatalf("members %v", keys)
			}
			for _, k := range want {
				if !o.Has(k) {
					t.Errorf("no member %s", k)
				}
			}
			for _, k := range []string{"pairing", "kind", "network", "payer", "payee", "asset", "amount", "h", "whereH"} {
				v, _ := o.Get(k)
				why, exempt := unstated[p.ID()][k]
				switch {
				case v == nil && !exempt:
					t.Errorf("%s is null: %s", k, jsonv.Marshal(o))
				case v != nil && exempt:
					t.Errorf("%s is %s now: remove it from unstated (%s)", k, jsonv.Marshal(v), why)
				}
			}
			if got.Pairing != p.ID() || got.H != h {
				t.Errorf("pairing %q h %q, want %q %q", got.Pairing, got.H, p.ID(), h)
			}
			// Unix seconds and RFC 3339 go together.
			for _, k := range []string{"payableFrom", "payableUntil"} {
				a, _ := o.Get(k)
				b, _ := o.Get(k + "Time")
				if (a == nil) != (b == nil) {
					t.Errorf("%s %v beside %sTime %v", k, a, k, b)
				}
			}
			t.Logf("%s", jsonv.Marshal(o))
		})
	}
}
