package vectors_test

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/vectors"
)

// unstated are members a pairing's payment cannot carry, with why: the
// test requires every other of payer, payee, asset, amount and network.
var unstated = map[string]map[string]string{
	// The agent's HTTP message signature pays; the payment names no payer.
	"x402/batch-settlement/cloudflare": {"payer": "the payment is the agent's signed HTTP request; it names no payer account"},
	// A Lightning payment is a preimage: the invoice names its payee, never who paid.
	"x402/exact/lnbtc":               {"payer": "the payer's node paid an invoice; the payment is its preimage and names no payer"},
	"x402/exact/lnbtc/invoice-named": {"payer": "the payer's node paid an invoice; the payment is its preimage and names no payer"},
	"mpp/charge/lightning":           {"payer": "the payer's node paid an invoice; the credential is its preimage and names no payer"},
	"mpp/session/lightning":          {"payer": "the payer's node paid the deposit invoice; the open names only its return invoice"},
	// A checkout mandate commits to the merchant's checkout, which states its currency and total; the card
	// network, the payer's instrument and the merchant's account are the credential provider's, after it.
	"ap2/checkout-mandate":     checkoutUnstated,
	"ucp/checkout/ap2-mandate": checkoutUnstated,
	"ucp/booking/ap2-mandate":  checkoutUnstated,
	// An ACP allowance names the merchant, the currency and the most it lets be charged; the card is the PSP's.
	"acp/checkout/delegated": {"payer": "the PSP's vault token holds the payment method; the allowance names no payer",
		"network": "a card payment through the PSP: the allowance names no network"},
	// Stripe's token pays: the credential names no payer account.
	"mpp/charge/stripe":       {"payer": "the payment is a Shared Payment Token Stripe issued; it names no payer"},
	"mpp/subscription/stripe": {"payer": "the payment is a PaymentMethod Stripe holds; it names no payer"},
	// A card step names the card network and the terms; the charge is the processor's.
	"card/visa-tap": {"payer": "the agent's TAP signature names its key, not a payer account", "payee": "the TAP request names no merchant account; its @authority is the seller's host",
		"asset": "the TAP request names no currency", "amount": "the TAP request names no amount: the card authorization does"},
	"card/mastercard-vi/immediate":  {"payer": "the user's L2 names no card holder; its L1, which does, stays with the network"},
	"card/mastercard-vi/autonomous": {"asset": "the agent's L3b discloses the checkout mandate only, no payment mandate", "amount": "the agent's L3b discloses no payment mandate"},
}

var checkoutUnstated = map[string]string{
	"payer":   "the mandate names no payer account: the credential provider's payment credential follows it",
	"payee":   "the checkout names the merchant's checkout, not a payee account",
	"network": "the checkout names no payment network: the credential provider picks the card rail",
}

// TestEveryPairingInspects runs every registered pairing's Inspect over a
// real payment of it (vectors.Payments): the wire form has every member, payer, payee, asset,
// amount and network are stated, and H is the one Bound reads back.
//
// noVectorPayment names pairings whose vector file holds no signed payment,
// with where one is inspected instead.
var noVectorPayment = map[string]string{
	"mpp/charge/evm/transaction": "no public proof: the file has B2 only; rails/evm's TestMPPInspect inspects one the Anvil key signs",
	"mpp/charge/evm/hash":        "no public proof: the file has B2 only; rails/evm's TestMPPInspect inspects one the Anvil key signs",
	"ucp/checkout/unsigned":      "the buyer signs nothing (noSignedPayment in ucp.json); internal/checkoutseller's demo keeps the completed checkout, which inspect reads",
	"ucp/booking/unsigned":       "the buyer signs nothing (noSignedPayment in ucp.json); internal/checkoutseller's demo keeps the completed booking, which inspect reads",
	"acp/checkout/undelegated":   "the buyer signs nothing (noSignedPayment in acp-checkout.json); internal/checkoutseller's demo keeps the completed session, which inspect reads",
	"ack/payment-request":        "ACK has no payer signature (noSignedPayment in ack-payment-request.json); internal/checkoutseller's demo keeps the payment request, which inspect reads",
	"card/seller-reference":      "the buyer signs nothing (C8); internal/cardseller's TestDemoMasksCards inspects the processor record its demo keeps",
	"mpp/charge/card":            "the buyer signs nothing (B2 only); vectors' TestMPPChargeCard and internal/cardseller's TestDemoMasksCards inspect a card credential",
}

func TestEveryPairingInspects(t *testing.T) {
	payments, err := vectors.Payments()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all.Default().All() {
		t.Run(p.ID(), func(t *testing.T) {
			in, ok := p.(rails.Inspector)
			if !ok {
				// rails/all's TestEveryPairingHasAnInspector holds the pending list.
				t.Skipf("%s has no Inspect yet", p.ID())
			}
			payment, ok := payments[p.ID()]
			if why, none := noVectorPayment[p.ID()]; none && !ok {
				t.Skip(why)
			}
			if !ok {
				t.Fatalf("no payment of %s in vectors.Payments: add its vector file's row", p.ID())
			}
			h, err := p.Bound(payment)
			if r, ok := err.(*rails.Refusal); ok && !p.Pattern().PublicProof && strings.HasSuffix(r.Code, "/no-signed-place") {
				// Nothing signed carries H: Inspect states the H its echoed
				// challenge names, which must be there.
				h, err = "", nil
			}
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
			if got.Pairing != p.ID() || got.H != h && h != "" || got.H == "" {
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
