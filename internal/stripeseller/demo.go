package stripeseller

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stripe"
	"github.com/termsgate/termsgate/signer"
)

// DemoBody is what the demo's paid request gets.
var DemoBody = []byte(`{"report":"q3","rows":42}` + "\n")

func init() {
	demo.Register(demo.Row{Pairing: stripe.ChargeID, Aliases: []string{"stripe"},
		About: "50.00 USD by MPP's Stripe charge: H in the challenge id, opaque and metadata.legal_context; the agreement paid first (EIP-3009), then the operator's Shared Payment Token (masked) goes in the credential; nothing signed",
		Run:   func(ctx context.Context, s *demo.Session) error { return demoStripe(ctx, s, stripe.ChargeID) }})
	demo.Register(demo.Row{Pairing: stripe.SubscriptionID, Aliases: []string{"stripe-subscription"},
		About: "50.00 USD a month by MPP's Stripe subscription: H in the challenge and metadata.legal_context; the agreement paid first, then the operator's PaymentMethod (masked) opens the subscription",
		Run:   func(ctx context.Context, s *demo.Session) error { return demoStripe(ctx, s, stripe.SubscriptionID) }})
}

// demoStripe pays the seller's Stripe challenge: the terms fetched and
// compared, the agreement paid and its receipt read, then the credential
// carrying what the operator obtained from Stripe, which the seller's
// Stripe accepts.
func demoStripe(ctx context.Context, s *demo.Session, pairing string) error {
	say, fail := s.Say, demo.Fail
	seller := New(pairing, demo.ATR, DemoBody)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	key, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return err
	}
	wallet := demo.Count(key)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	url := seller.ResourceURL()

	// What the operator obtained from Stripe before the gate runs.
	inputs, shown := jsonv.Obj(), ""
	if pairing == stripe.SubscriptionID {
		pm := seller.Stripe.SetUpPaymentMethod(NetworkID)
		inputs.Set(stripe.InputPaymentMethod, pm)
		shown = "PaymentMethod " + stripe.Mask(pm) + ", set up for " + NetworkID
	} else {
		spt := seller.Stripe.IssueToken(TokenGrant{NetworkID: NetworkID, Currency: Currency, MaxAmount: Amount,
			ExpiresAt: time.Now().Add(time.Hour)})
		inputs.Set(stripe.InputSPT, spt)
		shown = "Shared Payment Token " + stripe.Mask(spt) + ", for " + NetworkID + " up to " + strconv.Itoa(Amount) + " " + Currency
	}
	say("termsgate demo: a Stripe seller (%s) on %s, TLS, loopback only; its Stripe is in process", pairing, srv.Listener.Addr())
	say("operator's input: %s (masked; the gate never calls Stripe)", shown)
	say("agreement payer: %s (the published Anvil development key)", key.Account())
	say("")
	say("1. GET %s", url)
	resp, doc, _, err := demo.MPPOffer(ctx, client, g, url, pairing)
	if err != nil {
		return fail(err)
	}
	offer := resp.Header.Get("WWW-Authenticate")
	say("   402: a stripe %s challenge; its id, opaque and metadata.legal_context name H = %s", mppIntent(pairing), seller.Hash())
	opts := &gate.TransactOptions{AgreementSigner: wallet, Inputs: inputs}
	first, err := g.Transact(ctx, doc, pairing, wallet, opts)
	if err != nil {
		return fail("the gate declined:", err)
	}
	if first.Approve == nil {
		return fail("no approval asked")
	}
	amount, _ := first.Approve.Option.GetString("amount")
	say("2. terms fetched and compared; no public proof, so approval is asked for the agreement (signatures so far: %d)", wallet.Calls())
	opts.Approved = first.Approve
	paid, err := g.Transact(ctx, doc, pairing, wallet, opts)
	if err != nil {
		return fail("the gate declined:", err)
	}
	if paid.Agreement == nil {
		return fail("no agreement receipt")
	}
	say("3. agreement paid by EIP-3009 with nonce H, receipt for %s (signatures: %d, all of them the agreement's)", paid.Agreement.ATRHash, wallet.Calls())
	cred, ok := jsonv.AsObject(paid.Signed)
	if !ok {
		return fail("the gate returned no credential")
	}
	name, value := mpp.Header(cred)
	resp, body, err := demo.Get(ctx, client, url, name, value)
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail("the seller refused the credential:", seller.LastRejection())
	}
	ref := ""
	if r, ok := mpp.DecodeObject(resp.Header.Get("Payment-Receipt")); ok {
		ref, _ = r.GetString("reference")
	}
	say("4. %s with the credential; the seller's Stripe accepted it with legal_context in its metadata (%s): %d, %s",
		name, ref, resp.StatusCode, string(body[:len(body)-1]))
	if err := s.KeepPayment(paid.Bytes, offer, cred); err != nil {
		return err
	}
	what := demo.Amount(strconv.Itoa(Amount), 2, "USD", stripe.Network)
	if pairing == stripe.SubscriptionID {
		what += " a month"
	}
	s.Paid(what + ", after an agreement payment of " + demo.Amount(amount, 6, "USDC", "eip155:84532"))
	return nil
}

func mppIntent(pairing string) string {
	if pairing == stripe.SubscriptionID {
		return "subscription"
	}
	return "charge"
}
