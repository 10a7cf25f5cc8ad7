package checkoutseller

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/checkout"
	"github.com/termsgate/termsgate/signer"
)

func newSeller(t *testing.T, pairing string) *Seller {
	t.Helper()
	s, err := New(pairing)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func refused(t *testing.T, s *Seller, body *jsonv.Object, want string) {
	t.Helper()
	if _, err := s.complete(body); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("completion %s: got %v, want a refusal saying %q", jsonv.Marshal(body), err, want)
	}
}

// mandateBody is a completion the merchant accepts once the agreement is
// paid: the user's mandate over the checkout JWT it issued.
func mandateBody(t *testing.T, s *Seller) *jsonv.Object {
	t.Helper()
	j, err := checkoutJWT(s.Doc())
	if err != nil {
		t.Fatal(err)
	}
	return jsonv.Obj("checkout_mandate", UserMandate(j, s.Now()), "checkout_jwt", j)
}

// Nothing completes before an agreement to the terms was paid.
func TestNoCompletionWithoutAgreement(t *testing.T) {
	for id := range about {
		s := newSeller(t, id)
		refused(t, s, jsonv.Obj(), errNoAgreement.Error())
	}
}

// The merchant checks the mandate as it would: the user's key, the checkout
// it last issued under its own key, an unexpired mandate.
func TestMandateChecks(t *testing.T) {
	for _, id := range []string{checkout.AP2ID, checkout.UCPCheckoutMandate.ID(), checkout.UCPBookingMandate.ID()} {
		t.Run(strings.ReplaceAll(id, "/", "_"), func(t *testing.T) {
			s := newSeller(t, id)
			s.Agreements.Paid.Add(1)
			good := mandateBody(t, s)
			if _, err := s.complete(good); err != nil {
				t.Fatalf("the good mandate: %v", err)
			}
			j, _ := good.GetString("checkout_jwt")
			// Signed by the merchant's key, not the user's.
			m, _ := good.GetString("checkout_mandate")
			parts := strings.SplitN(m, "~", 2)
			seg := strings.Split(parts[0], ".")
			forged := JWS(MerchantKey, jsonv.Obj("alg", "ES256", "typ", "dc+sd-jwt"), mustB64(seg[1])) + "~" + parts[1]
			refused(t, s, jsonv.Obj("checkout_mandate", forged, "checkout_jwt", j), "signature")
			// A checkout JWT the merchant did not issue (re-signed by the user).
			other := JWS(UserKey, jsonv.Obj("alg", "ES256"), mustB64(strings.Split(j, ".")[1]))
			refused(t, s, jsonv.Obj("checkout_mandate", UserMandate(other, s.Now()), "checkout_jwt", other), "not the one last issued")
			// Expired.
			refused(t, s, jsonv.Obj("checkout_mandate", UserMandate(j, s.Now().Add(-time.Hour)), "checkout_jwt", j), "expired")
		})
	}
}

// The ACP PSP vaults only a card and a one_time allowance; the merchant
// accepts a vault token only when it is held to this session (H), this
// merchant and the total.
func TestACPVaultChecks(t *testing.T) {
	s := newSeller(t, checkout.ACPDelegatedID)
	s.Agreements.Paid.Add(1)
	sid, _ := jsonv.AsString(demoPath(s.Doc(), "id"))
	allowance := func(session string, amount int) *jsonv.Object {
		return jsonv.Obj("reason", "one_time", "max_amount", amount, "currency", "usd", "checkout_session_id", session,
			"merchant_id", MerchantID, "expires_at", s.Now().Add(time.Minute).UTC().Format(time.RFC3339))
	}
	card := jsonv.Obj("type", "card", "number", TestCard)
	if _, err := s.delegate(jsonv.Obj("allowance", allowance(sid, Total), "payment_method", jsonv.Obj("number", "4242424242424241"))); err == nil {
		t.Fatal("a number failing Luhn was vaulted")
	}
	for _, c := range []struct {
		a    *jsonv.Object
		want string
	}{
		{allowance("0x"+strings.Repeat("11", 32), Total), "another session"},
		{allowance(sid, Total-1), "does not cover"},
	} {
		tok, err := s.delegate(jsonv.Obj("allowance", c.a, "payment_method", card))
		if err != nil {
			t.Fatal(err)
		}
		refused(t, s, jsonv.Obj("session", sid, "payment_data", jsonv.Obj("token", tok)), c.want)
	}
	refused(t, s, jsonv.Obj("session", sid, "payment_data", jsonv.Obj("token", "vt_unknown")), "no such vault token")
	tok, err := s.delegate(jsonv.Obj("allowance", allowance(sid, Total), "payment_method", card))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.complete(jsonv.Obj("session", sid, "payment_data", jsonv.Obj("token", tok))); err != nil {
		t.Fatal(err)
	}
	for _, a := range s.vault {
		if strings.Contains(string(jsonv.Marshal(a)), TestCard[12:]) {
			t.Fatal("the PSP kept the card with the allowance")
		}
	}
}

// The ACK merchant takes back only its own token, unchanged.
func TestACKTokenChecks(t *testing.T) {
	s := newSeller(t, checkout.ACKID)
	s.Agreements.Paid.Add(1)
	tok, _ := jsonv.AsString(demoPath(s.Doc(), "paymentRequestToken"))
	pay := jsonv.Obj("service", "card", "token", "tok_x")
	if _, err := s.complete(jsonv.Obj("paymentRequestToken", tok, "paymentOptionId", optionID, "payment", pay)); err != nil {
		t.Fatal(err)
	}
	seg := strings.Split(tok, ".")
	resigned := JWS(UserKey, jsonv.Obj("alg", "ES256", "typ", "JWT"), mustB64(seg[1]))
	refused(t, s, jsonv.Obj("paymentRequestToken", resigned, "paymentOptionId", optionID, "payment", pay), "not the one issued")
	refused(t, s, jsonv.Obj("paymentRequestToken", tok, "paymentOptionId", "other", "payment", pay), "no such payment option")
}

// transact runs the gate against s over loopback: approve, then pay. It
// returns the agreement payer's and the main signer's call counts and the
// decline, if any.
func transact(t *testing.T, s *Seller) (agreed, signed int, err error) {
	t.Helper()
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	wallet, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	payer, main := demo.Count(wallet), demo.Count(wallet)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}
	opts := &gate.TransactOptions{AgreementSigner: payer, Inputs: inputs(s.Pairing, s.Now)}
	ctx := context.Background()
	first, err := g.Transact(ctx, s.Doc(), s.Pairing, main, opts)
	if err != nil {
		return payer.Calls(), main.Calls(), err
	}
	opts.Approved = first.Approve
	_, err = g.Transact(ctx, s.Doc(), s.Pairing, main, opts)
	return payer.Calls(), main.Calls(), err
}

// Through the gate: one fetch of the terms per Transact, one agreement
// signature, none for the checkout; and a seller whose link serves other
// bytes is declined hash-mismatch with nothing signed and no agreement paid.
func TestGateCountsFetchesAndSignatures(t *testing.T) {
	for id := range about {
		t.Run(strings.ReplaceAll(id, "/", "_"), func(t *testing.T) {
			s := newSeller(t, id)
			agreed, signed, err := transact(t, s)
			if err != nil || agreed != 1 || signed != 0 {
				t.Fatalf("paid: %v, agreement signatures %d, checkout signatures %d", err, agreed, signed)
			}
			if n := s.Agreements.ATRFetches.Load(); n != 2 {
				t.Errorf("%d fetches of the terms for two Transact calls", n)
			}
			if n := s.Agreements.Paid.Load(); n != 1 {
				t.Errorf("%d agreement payments", n)
			}
			liar := newSeller(t, id)
			liar.Agreements.Lie([]byte(`{"atrVersion":"1","other":"terms"}`))
			agreed, signed, err = transact(t, liar)
			var d *gate.Decline
			if !errors.As(err, &d) || d.Code != gate.HashMismatch || agreed != 0 || signed != 0 || liar.Agreements.Paid.Load() != 0 {
				t.Fatalf("a lying link: %v, %d agreement and %d checkout signatures, %d paid", err, agreed, signed, liar.Agreements.Paid.Load())
			}
		})
	}
}
