package checkoutseller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/checkout"
	"github.com/termsgate/termsgate/rails/sdjwt"
	"github.com/termsgate/termsgate/signer"
)

// TestCard is the card the demo's agent hands the ACP PSP: Stripe's
// published Visa test number. It is printed only masked (Mask).
const TestCard = "4242424242424242"

var about = map[string]string{
	checkout.AP2ID:                    "AP2 checkout JWT with legalContext, the agreement paid first by EIP-3009, the user's closed Checkout Mandate (ES256) verified by the merchant",
	checkout.UCPCheckoutMandate.ID():  "UCP checkout with a legal_context link, the agreement paid first, the merchant-signed checkout named by the user's AP2 mandate",
	checkout.UCPCheckoutUnsigned.ID(): "UCP checkout with a legal_context link, the agreement paid first, completed with nothing signed by the buyer",
	checkout.UCPBookingMandate.ID():   "UCP booking with a legal_context link, the agreement paid first, the merchant-signed booking named by the user's AP2 mandate",
	checkout.UCPBookingUnsigned.ID():  "UCP booking with a legal_context link, the agreement paid first, completed with nothing signed by the buyer",
	checkout.ACPDelegatedID:           "ACP session named by H, the agreement paid first, a one_time allowance for H vaulted by the PSP (card masked)",
	checkout.ACPUndelegatedID:         "ACP session named by H, the agreement paid first, completed with nothing signed by the buyer",
	checkout.ACKID:                    "ACK payment request signed with id lcp:sha256:H, the agreement paid first, the receipt read back for H",
}

func init() {
	for id, a := range about {
		demo.Register(demo.Row{Pairing: id, About: a, Run: func(ctx context.Context, s *demo.Session) error { return Run(ctx, s, id) }})
	}
}

// Mask shows a card number or token by its last four characters only.
func Mask(s string) string {
	if len(s) <= 4 {
		return "••••"
	}
	return "••••" + s[len(s)-4:]
}

// Run pays pairing's seller end to end: the checkout fetched, the terms
// compared by the gate, the agreement approved and paid by EIP-3009 with its
// receipt read, then the checkout completed as the pairing completes it.
func Run(ctx context.Context, s *demo.Session, pairing string) error {
	say, fail := s.Say, demo.Fail
	seller, err := New(pairing)
	if err != nil {
		return fail(err)
	}
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	wallet, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return fail(err)
	}
	payer, main := demo.Count(wallet), demo.Count(wallet)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	h := seller.Hash()

	say("termsgate demo: an agentic checkout (%s) on %s, TLS, loopback only", pairing, srv.Listener.Addr())
	say("agreement payer: %s (the published Anvil development key)", wallet.Account())
	say("")
	say("1. GET %s", seller.CheckoutURL())
	resp, body, err := demo.Get(ctx, client, seller.CheckoutURL(), "", "")
	if err != nil {
		return fail(err)
	}
	doc, err := jsonv.Parse(body)
	if err != nil || resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusPaymentRequired {
		return fail("the seller served no readable checkout:", err)
	}
	offer, err := g.Read(doc, pairing)
	if err != nil {
		return fail(err)
	}
	say("   %d: the checkout names terms H = %s, their link and an agreement URL (%s)", resp.StatusCode, offer.H, offer.Agreement)
	say("2. the gate fetches the terms and compares SHA-256 with H; the payment is no public proof, so it asks the")
	say("   agreement URL what an agreement costs, and returns that for approval, signing nothing")
	opts := &gate.TransactOptions{AgreementSigner: payer, Inputs: inputs(pairing, seller.Now)}
	first, err := g.Transact(ctx, doc, pairing, main, opts)
	if err != nil {
		return fail("no approval asked:", err)
	}
	if first.Approve == nil {
		return fail("no approval asked")
	}
	a := first.Approve
	amount, _ := a.Option.GetString("amount")
	network, _ := a.Option.GetString("network")
	say("   approval asked: %s atomic units on %s at %s (signer calls so far: %d)", amount, network, a.URL, payer.Calls()+main.Calls())
	say("3. approved: the gate pays the agreement by EIP-3009 with nonce H and waits for its receipt")
	opts.Approved = a
	paid, err := g.Transact(ctx, doc, pairing, main, opts)
	if err != nil {
		return fail("not paid:", err)
	}
	if paid.Agreement == nil || !atr.EqualText(paid.Agreement.ATRHash, h) {
		return fail("no agreement receipt for H")
	}
	say("   receipt: agreed to %s, recorded in %s on %s (agreement signatures: %d)",
		paid.Agreement.ATRHash, paid.Agreement.Transaction, paid.Agreement.Network, payer.Calls())
	if main.Calls() != 0 {
		return fail("the gate asked the signer to sign for a confirm-only checkout")
	}
	say("4. the checkout is confirm-only: the gate's signer signs nothing for it (signer calls: %d)", main.Calls())
	kept, err := completeCheckout(ctx, s, seller, client, doc, paid)
	if err != nil {
		return err
	}
	if err := s.KeepPayment(paid.Bytes, string(jsonv.Marshal(doc)), kept); err != nil {
		return err
	}
	s.Paid(demo.Amount(fmt.Sprint(Total), 2, "USD", "the merchant's checkout") + " (" + pairing + "), after an agreement payment of " +
		demo.Amount(amount, 6, "USDC", network))
	return nil
}

// inputs are the buyer's own limits for an ACP delegated allowance: the
// checkout's total, its currency and merchant, for ten minutes.
func inputs(pairing string, now func() time.Time) jsonv.Value {
	if pairing != checkout.ACPDelegatedID {
		return nil
	}
	return jsonv.Obj("max_amount", Total, "currency", "usd", "merchant_id", MerchantID,
		"expires_at", now().Add(10*time.Minute).UTC().Format(time.RFC3339))
}

func post(ctx context.Context, c *http.Client, url string, body jsonv.Value) (int, jsonv.Value, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(jsonv.Marshal(body)))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	v, err := jsonv.Parse(demo.Read(resp))
	return resp.StatusCode, v, err
}

// completeCheckout is the main step, as the pairing completes a checkout;
// it returns the payment kept for inspect.
func completeCheckout(ctx context.Context, s *demo.Session, seller *Seller, client *http.Client, doc jsonv.Value, paid *gate.Transacted) (jsonv.Value, error) {
	say, fail := s.Say, demo.Fail
	pairing := seller.Pairing
	var presented, kept *jsonv.Object
	switch pairing {
	case checkout.AP2ID, checkout.UCPCheckoutMandate.ID(), checkout.UCPBookingMandate.ID():
		j, err := checkoutJWT(doc)
		if err != nil {
			return nil, fail(err)
		}
		m := UserMandate(j, seller.Now())
		presented = jsonv.Obj("checkout_mandate", m, "checkout_jwt", j)
		if u := ucpOf(pairing); u.Mandate {
			key, _ := checkoutKey(u)
			id, _ := jsonv.AsString(demo.Path(doc, "id"))
			presented.Set(key, id)
		}
		say("5. the user's trusted surface signs a closed Checkout Mandate (ES256) whose checkout_hash names the")
		say("   merchant-signed checkout JWT: checkout_hash = %s", sdjwt.Digest(j))
		kept = presented
	case checkout.UCPCheckoutUnsigned.ID(), checkout.UCPBookingUnsigned.ID(), checkout.ACPUndelegatedID:
		key := "session"
		if u := ucpOf(pairing); pairing != checkout.ACPUndelegatedID {
			key, _ = checkoutKey(u)
		}
		id, _ := jsonv.AsString(demo.Path(doc, "id"))
		tok := "tok_" + randomHex(12)
		presented = jsonv.Obj(key, id, "payment", jsonv.Obj("handler", "com.example.card", "token", tok))
		say("5. the platform completes the %s with its payment handler's token %s; nothing the buyer signs names H", key, Mask(tok))
		kept = jsonv.Obj(key, doc)
	case checkout.ACPDelegatedID:
		allowance, _ := jsonv.AsObject(paid.Signed)
		if allowance == nil {
			return nil, fail("the gate finished no allowance")
		}
		a, _ := allowance.GetObject("allowance")
		until, _ := a.GetString("expires_at")
		say("5. the gate finished the allowance: one_time, at most %d.%02d USD to %s until %s, checkout_session_id = H",
			Total/100, Total%100, MerchantID, until)
		req := allowance.Clone()
		req.Set("payment_method", jsonv.Obj("type", "card", "number", TestCard, "exp_month", 12, "exp_year", 2030))
		say("   the agent sends it with the card %s to the PSP's delegate_payment", Mask(TestCard))
		code, v, err := post(ctx, client, seller.PSPURL(), req)
		tok, _ := jsonv.AsString(demo.Path(v, "id"))
		if err != nil || code != http.StatusCreated || tok == "" {
			return nil, fail("the PSP vaulted nothing:", err)
		}
		say("   the PSP answers a vault token %s, held to that allowance (the processor's, not the gate's)", Mask(tok))
		id, _ := jsonv.AsString(demo.Path(doc, "id"))
		presented = jsonv.Obj("session", id, "payment_data", jsonv.Obj("token", tok, "provider", "psp.example"))
		kept = allowance
	case checkout.ACKID:
		tok, _ := jsonv.AsString(demo.Path(doc, "paymentRequestToken"))
		ptok := "tok_" + randomHex(12)
		presented = jsonv.Obj("paymentRequestToken", tok, "paymentOptionId", optionID,
			"payment", jsonv.Obj("service", "card", "token", ptok))
		say("5. the agent's payment service pays option %s with a card token %s; ACK has no payer signature", optionID, Mask(ptok))
		kept, _ = jsonv.AsObject(doc)
	}
	say("6. POST %s", seller.CompleteURL())
	code, v, err := post(ctx, client, seller.CompleteURL(), presented)
	if err != nil {
		return nil, fail(err)
	}
	if code != http.StatusOK {
		return nil, fail("the merchant refused the completion:", seller.LastRejection())
	}
	if pairing == checkout.ACKID {
		h, err := checkout.ACKFromReceipt(demo.Path(v, "receipt", "credentialSubject"))
		if err != nil || !atr.EqualText(h, paid.H) {
			return nil, fail("the receipt names other terms:", err)
		}
		say("   the receipt embeds the signed payment request; its id reads back H = %s", h)
	}
	order, _ := jsonv.AsString(demo.Path(v, "order"))
	say("   the merchant checked what it issued, the signatures it expects and the agreement, and answered %d: order %s", code, order)
	return kept, nil
}

func checkoutKey(u checkout.UCP) (string, string) {
	if u.Booking {
		return "booking", "checkout"
	}
	return "checkout", "booking"
}

// checkoutJWT is the merchant-signed checkout JWT the mandate names: the
// AP2 document itself, or a UCP checkout's merchant_authorization with the
// checkout (less its ap2 member) put back as its payload.
func checkoutJWT(doc jsonv.Value) (string, error) {
	if j, ok := jsonv.AsString(doc); ok {
		return j, nil
	}
	o, _ := jsonv.AsObject(doc)
	auth, _ := jsonv.AsString(demo.Path(o, "ap2", "merchant_authorization"))
	parts := strings.Split(auth, ".")
	if o == nil || len(parts) != 3 || parts[1] != "" {
		return "", errors.New("the checkout carries no detached merchant_authorization")
	}
	c := o.Clone()
	c.Delete("ap2")
	return parts[0] + "." + b64(jsonv.Marshal(c)) + "." + parts[2], nil
}

// UserMandate is the user's trusted surface's closed AP2 Checkout Mandate
// over checkout JWT j: an SD-JWT whose issuer JWT (signed with UserKey)
// carries vct mandate.checkout.1, checkout_hash and, disclosed, the JWT.
func UserMandate(j string, now time.Time) string {
	disclosure := b64(jsonv.Marshal([]jsonv.Value{randomHex(16), "checkout_jwt", j}))
	payload := jsonv.Obj("vct", checkout.CheckoutVct, "checkout_hash", sdjwt.Digest(j),
		"_sd", []jsonv.Value{sdjwt.Digest(disclosure)}, "_sd_alg", "sha-256",
		"iat", now.Unix(), "exp", now.Add(10*time.Minute).Unix())
	return JWS(UserKey, jsonv.Obj("alg", "ES256", "typ", "dc+sd-jwt", "kid", "platform-key-1"), jsonv.Marshal(payload)) + "~" + disclosure + "~"
}
