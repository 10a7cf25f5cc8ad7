// Package checkoutseller is a loopback test seller of the eight agentic
// checkout pairings (rails/checkout): it publishes terms that name its
// checkout, serves the checkout (an AP2 checkout JWT, a UCP checkout or
// booking, an ACP checkout session, an ACK payment request) with H and the
// agreement URL in the pairing's place, sells the agreement at that URL (an
// x402 EIP-3009 payment whose nonce is H, its receipt naming H), and completes
// the checkout only once an agreement to its terms was paid and the
// completion checks as the merchant would check it: the merchant's own
// ES256 signature on what it issued, the user's ES256 signature on a closed
// Checkout Mandate, H read back where the pairing puts it, an ACP vault
// token held by its PSP to the session named by H. It moves no money.
package checkoutseller

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/checkout"
	"github.com/termsgate/termsgate/rails/sdjwt"
)

// What every demo checkout sells.
const (
	Total      = 19900 // minor units
	MerchantID = "acct_demo_merchant"
	checkoutID = "chk_demo_1"
	bookingID  = "bkg_demo_1"
	optionID   = "opt-card-usd"
)

// Seller serves one pairing's checkout, the terms and the agreement URL.
type Seller struct {
	Pairing string
	// Agreements is the agreement URL's x402 seller, which also publishes
	// the terms (on its ATR host); its APIHost is the checkout's host.
	Agreements *x402seller.Seller
	Now        func() time.Time

	// Counters of completions, for tests and the demo's printout.
	Completed, Rejected atomic.Int64

	mu      sync.Mutex
	lastErr error
	doc     jsonv.Value // the checkout as last issued
	issued  string      // the AP2 or UCP checkout JWT as last issued
	sid     string      // the ACP session's id, H
	vault   map[string]*jsonv.Object
}

// New returns the seller of pairing, one of the eight checkout pairings.
func New(pairing string) (*Seller, error) {
	if _, ok := slots[pairing]; !ok {
		return nil, fmt.Errorf("checkoutseller: no checkout for %s", pairing)
	}
	a := x402seller.New(terms(pairing), nil)
	a.ResourcePath = "/agree"
	a.Option.Set("amount", "1")
	s := &Seller{Pairing: pairing, Agreements: a, Now: time.Now, vault: map[string]*jsonv.Object{}}
	h := s.Hash()
	a.Body = jsonv.Marshal(jsonv.Obj("atrHash", h.String(), "agreed", true, "network", "eip155:84532",
		"transaction", "0x"+strings.Repeat("ab", 32)))
	if err := s.issue(); err != nil {
		return nil, err
	}
	return s, nil
}

// slots is each pairing's ATR slot: what the terms say they were minted for.
var slots = map[string]string{
	checkout.AP2ID:                    `"ap2":{"options":[{"checkout":"` + checkoutID + `"}]}`,
	checkout.UCPCheckoutMandate.ID():  `"ucp":{"options":[{"checkout":"` + checkoutID + `"}]}`,
	checkout.UCPCheckoutUnsigned.ID(): `"ucp":{"options":[{"checkout":"` + checkoutID + `"}]}`,
	checkout.UCPBookingMandate.ID():   `"ucp":{"options":[{"booking":"` + bookingID + `"}]}`,
	checkout.UCPBookingUnsigned.ID():  `"ucp":{"options":[{"booking":"` + bookingID + `"}]}`,
	checkout.ACPDelegatedID:           `"acp":{"options":[{"requires_delegate_payment":true}]}`,
	checkout.ACPUndelegatedID:         `"acp":{"options":[{"requires_delegate_payment":false}]}`,
	checkout.ACKID:                    `"ack":{"paymentOptions":[` + string(jsonv.Marshal(ackOption())) + `]}`,
}

// terms are the ATR's exact bytes for pairing.
func terms(pairing string) []byte {
	return []byte(`{"atrVersion":"1","id":"2b7e1516-28ae-4d2a-a6d2-abf7158809cf",` + slots[pairing] +
		`,"line_items":[{"id":"li_1","item":{"id":"sku_1","title":"Quarterly report"},"quantity":1}],` +
		`"totals":[{"type":"total","amount":19900}]}`)
}

func ackOption() *jsonv.Object {
	return jsonv.Obj("id", optionID, "currency", "USD", "network", "card", "amount", "19900", "decimals", 2,
		"recipient", MerchantID)
}

// Hash is the hash of the terms.
func (s *Seller) Hash() atr.Hash { return s.Agreements.Hash() }

// ATR is the terms' bytes.
func (s *Seller) ATR() []byte { return terms(s.Pairing) }

// CheckoutURL is where the checkout is served; CompleteURL where it is
// completed; PSPURL the ACP PSP's delegate_payment endpoint.
func (s *Seller) CheckoutURL() string { return "https://" + s.Agreements.APIHost + "/checkout" }
func (s *Seller) CompleteURL() string { return "https://" + s.Agreements.APIHost + "/complete" }
func (s *Seller) PSPURL() string      { return "https://" + s.Agreements.APIHost + "/psp/delegate_payment" }

// AgreementURL is the agreement URL the checkout names.
func (s *Seller) AgreementURL() string { return s.Agreements.ResourceURL() }

// LastRejection is why the last completion was refused, if one was.
func (s *Seller) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// Doc is the checkout as issued.
func (s *Seller) Doc() jsonv.Value {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc
}

var merchantHeader = jsonv.Obj("alg", "ES256", "typ", "JWT", "kid", "merchant-key-1")

// issue writes the checkout with H, the link and the agreement URL in the
// pairing's place, signed by the merchant where the pairing signs it.
func (s *Seller) issue() error {
	h := s.Hash()
	link, agreement := s.Agreements.Link(h), s.AgreementURL()
	var doc jsonv.Value
	var issued, sid string
	switch s.Pairing {
	case checkout.AP2ID:
		p, err := checkout.AdvertiseAgreement(jsonv.Obj("id", checkoutID, "currency", "USD", "merchant_id", MerchantID,
			"totals", []jsonv.Value{jsonv.Obj("type", "total", "amount", Total)}), jsonv.Obj("checkout", checkoutID), h.String(), link, agreement)
		if err != nil {
			return err
		}
		issued = JWS(MerchantKey, merchantHeader, jsonv.Marshal(p))
		doc = issued
	case checkout.UCPCheckoutMandate.ID(), checkout.UCPCheckoutUnsigned.ID(), checkout.UCPBookingMandate.ID(), checkout.UCPBookingUnsigned.ID():
		u := ucpOf(s.Pairing)
		id, key := checkoutID, "checkout"
		if u.Booking {
			id, key = bookingID, "booking"
		}
		c, err := u.AdvertiseAgreement(jsonv.Obj("ucp", jsonv.Obj("version", "2026-08-25"), "id", id, "status", "ready_for_complete",
			"currency", "USD", "totals", []jsonv.Value{jsonv.Obj("type", "total", "amount", Total)},
			"links", []jsonv.Value{jsonv.Obj("type", "terms_of_service", "url", "https://seller.example/tos")}),
			h.String(), link, jsonv.Obj(key, id), agreement)
		if err != nil {
			return err
		}
		if u.Mandate {
			// The merchant signs the checkout; the authorization is the
			// detached form of the checkout JWT the mandate names.
			issued = JWS(MerchantKey, jsonv.Obj("alg", "ES256", "kid", "merchant-key-1"), jsonv.Marshal(c))
			parts := strings.Split(issued, ".")
			c = c.Clone()
			c.Set("ap2", jsonv.Obj("merchant_authorization", parts[0]+".."+parts[2]))
		}
		doc = c
	case checkout.ACPDelegatedID, checkout.ACPUndelegatedID:
		c, err := checkout.ACPAdvertiseAgreement(jsonv.Obj("status", "ready_for_payment", "currency", "usd",
			"line_items", []jsonv.Value{jsonv.Obj("id", "li_1", "item", jsonv.Obj("id", "sku_1", "quantity", 1))},
			"totals", []jsonv.Value{jsonv.Obj("type", "total", "amount", Total)},
			"metadata", jsonv.Obj("order_ref", "A-100")), h.String(), link,
			jsonv.Obj("requires_delegate_payment", s.Pairing == checkout.ACPDelegatedID), agreement)
		if err != nil {
			return err
		}
		sid, _ = c.GetString("id")
		doc = c
	case checkout.ACKID:
		tok := JWS(MerchantKey, jsonv.Obj("alg", "ES256", "typ", "JWT"), jsonv.Marshal(jsonv.Obj(
			"id", checkout.ACKIDPrefix+h.String(), "paymentOptions", []jsonv.Value{ackOption()},
			"iss", "did:web:seller.example", "iat", s.Now().Unix())))
		b, err := checkout.ACKAdvertiseAgreement(jsonv.Obj("paymentRequestToken", tok,
			"paymentRequest", jsonv.Obj("id", checkout.ACKIDPrefix+h.String(), "paymentOptions", []jsonv.Value{ackOption()})),
			h.String(), link, ackOption(), agreement)
		if err != nil {
			return err
		}
		doc = b
	}
	s.mu.Lock()
	s.doc, s.issued, s.sid = doc, issued, sid
	s.mu.Unlock()
	return nil
}

func ucpOf(id string) checkout.UCP {
	for _, u := range []checkout.UCP{checkout.UCPCheckoutMandate, checkout.UCPCheckoutUnsigned, checkout.UCPBookingMandate, checkout.UCPBookingUnsigned} {
		if u.ID() == id {
			return u
		}
	}
	return checkout.UCP{}
}

// ServeHTTP serves the checkout, its completion and the ACP PSP on the API
// host; every other request (the terms' link, the agreement URL) goes to
// Agreements.
func (s *Seller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if hostOnly(r.Host) != hostOnly(s.Agreements.APIHost) {
		s.Agreements.ServeHTTP(w, r)
		return
	}
	switch {
	case r.URL.Path == "/checkout" && r.Method == http.MethodGet:
		status := http.StatusOK
		if s.Pairing == checkout.ACKID {
			status = http.StatusPaymentRequired // ACK's payment request is a 402 body
		}
		writeJSON(w, status, s.Doc())
	case r.URL.Path == "/complete" && r.Method == http.MethodPost:
		body, err := readBody(r)
		if err == nil {
			var out jsonv.Value
			if out, err = s.complete(body); err == nil {
				s.Completed.Add(1)
				writeJSON(w, http.StatusOK, out)
				return
			}
		}
		s.Rejected.Add(1)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
		writeJSON(w, http.StatusBadRequest, jsonv.Obj("error", err.Error()))
	case r.URL.Path == "/psp/delegate_payment" && r.Method == http.MethodPost && s.Pairing == checkout.ACPDelegatedID:
		body, err := readBody(r)
		if err == nil {
			var tok string
			if tok, err = s.delegate(body); err == nil {
				writeJSON(w, http.StatusCreated, jsonv.Obj("id", tok, "created", s.Now().UTC().Format(time.RFC3339)))
				return
			}
		}
		writeJSON(w, http.StatusBadRequest, jsonv.Obj("error", err.Error()))
	default:
		s.Agreements.ServeHTTP(w, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, v jsonv.Value) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(jsonv.Marshal(v))
}

func readBody(r *http.Request) (*jsonv.Object, error) {
	b := make([]byte, 0, 4096)
	buf := make([]byte, 4096)
	for len(b) <= 256<<10 {
		n, err := r.Body.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			break
		}
	}
	if len(b) > 256<<10 {
		return nil, errors.New("the request is too large")
	}
	v, err := jsonv.Parse(b)
	if err != nil {
		return nil, errors.New("the request is not JSON")
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, errors.New("the request is not a JSON object")
	}
	return o, nil
}

func hostOnly(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		return host[:i]
	}
	return host
}

var errNoAgreement = errors.New("no agreement to these terms was paid")

// complete is the merchant's check of a completion, by pairing.
func (s *Seller) complete(body *jsonv.Object) (jsonv.Value, error) {
	if s.Agreements.Paid.Load() == 0 {
		return nil, errNoAgreement
	}
	h := s.Hash()
	s.mu.Lock()
	doc, issued, sid := s.doc, s.issued, s.sid
	s.mu.Unlock()
	order := jsonv.Obj("status", "completed", "order", "ord_"+randomHex(6), "atrHash", h.String())
	switch s.Pairing {
	case checkout.AP2ID, checkout.UCPCheckoutMandate.ID(), checkout.UCPBookingMandate.ID():
		if err := s.checkMandate(body, issued, h); err != nil {
			return nil, err
		}
		return order, nil
	case checkout.UCPCheckoutUnsigned.ID(), checkout.UCPBookingUnsigned.ID(), checkout.ACPUndelegatedID:
		key := "checkout"
		if ucpOf(s.Pairing).Booking {
			key = "booking"
		}
		want, _ := jsonv.AsObject(doc)
		id, _ := want.GetString("id")
		if s.Pairing == checkout.ACPUndelegatedID {
			key = "session"
		}
		if got, _ := body.GetString(key); got != id {
			return nil, fmt.Errorf("the completion names %s %q, not the one issued", key, got)
		}
		if tok, _ := jsonv.AsObject(demoPath(body, "payment")); tok == nil {
			return nil, errors.New("the completion carries no payment")
		}
		return order, nil
	case checkout.ACPDelegatedID:
		if got, _ := body.GetString("session"); got != sid {
			return nil, errors.New("the completion names another session")
		}
		tok, _ := jsonv.AsString(demoPath(body, "payment_data", "token"))
		s.mu.Lock()
		a := s.vault[tok]
		s.mu.Unlock()
		if a == nil {
			return nil, errors.New("the PSP holds no such vault token")
		}
		if err := s.checkAllowance(a, sid, h); err != nil {
			return nil, err
		}
		return order, nil
	case checkout.ACKID:
		return s.checkACK(body, doc, h)
	}
	return nil, errors.New("no such pairing")
}

// checkMandate: the presented checkout JWT is the one the merchant last
// issued, under its own signature; the closed mandate is the user's, under
// the user's key, and unexpired; and H, read back where the pairing reads
// it, is the terms' hash.
func (s *Seller) checkMandate(body *jsonv.Object, issued string, h atr.Hash) error {
	m, _ := body.GetString("checkout_mandate")
	j, _ := body.GetString("checkout_jwt")
	if j != issued {
		return errors.New("the mandate's checkout is not the one last issued")
	}
	if err := verifyES256(&MerchantKey.PublicKey, j); err != nil {
		return fmt.Errorf("the checkout JWT: %w", err)
	}
	p, err := sdjwt.Parse(m)
	if err != nil {
		return fmt.Errorf("the mandate: %w", err)
	}
	if err := verifyES256(&UserKey.PublicKey, p.Issuer.Signed+"."+b64(p.Issuer.Signature)); err != nil {
		return fmt.Errorf("the mandate: %w", err)
	}
	if exp, ok := jsonv.AsSafeInt(demoPath(p.Claims, "exp")); !ok || exp < s.Now().Unix() {
		return errors.New("the mandate has expired")
	}
	var bound string
	if s.Pairing == checkout.AP2ID {
		bound, err = checkout.AP2{}.Bound(body)
	} else {
		bound, err = ucpOf(s.Pairing).Bound(body)
	}
	if err != nil {
		return err
	}
	if !atr.EqualText(bound, h) {
		return errors.New("the mandate's checkout names other terms")
	}
	return nil
}

// delegate is the PSP's delegate_payment: a one_time allowance and a card;
// it answers a vault token held to that allowance. The card number is
// checked (Luhn) and never kept, logged or answered.
func (s *Seller) delegate(body *jsonv.Object) (string, error) {
	a, _ := body.GetObject("allowance")
	if _, err := checkout.ACPBound(jsonv.Obj("allowance", a)); err != nil {
		return "", err
	}
	card, _ := jsonv.AsString(demoPath(body, "payment_method", "number"))
	if !luhn(card) {
		return "", errors.New("the payment method is no card number")
	}
	tok := "vt_" + randomHex(12)
	s.mu.Lock()
	s.vault[tok] = a.Clone()
	s.mu.Unlock()
	return tok, nil
}

// checkAllowance: the vault token's allowance names this session (H), this
// merchant, the session's currency and at least its total, and has not
// expired.
func (s *Seller) checkAllowance(a *jsonv.Object, sid string, h atr.Hash) error {
	bound, err := checkout.ACPBound(jsonv.Obj("allowance", a))
	if err != nil {
		return err
	}
	if bound != sid || !atr.EqualText(bound, h) {
		return errors.New("the vault token is held to another session")
	}
	g, err := checkout.ACPDelegated{}.Grant(jsonv.Obj("allowance", a))
	if err != nil {
		return err
	}
	if g.Payee != MerchantID || g.Asset != "USD" || g.Amount.Int64() < Total {
		return errors.New("the allowance does not cover this merchant's total")
	}
	if !g.PayableUntil.After(s.Now()) {
		return errors.New("the allowance has expired")
	}
	return nil
}

// checkACK: the presented token is the merchant's own, unchanged and under
// its signature, its id names the terms, and the option is one it offers;
// the answer is a receipt embedding the token.
func (s *Seller) checkACK(body *jsonv.Object, doc jsonv.Value, h atr.Hash) (jsonv.Value, error) {
	tok, _ := body.GetString("paymentRequestToken")
	if want, _ := jsonv.AsString(demoPath(doc, "paymentRequestToken")); tok != want {
		return nil, errors.New("the payment request token is not the one issued")
	}
	if err := verifyES256(&MerchantKey.PublicKey, tok); err != nil {
		return nil, err
	}
	r, err := checkout.ACKReadBody(doc)
	if err != nil || !atr.EqualText(r.H, h) {
		return nil, errors.New("the payment request names other terms")
	}
	if opt, _ := body.GetString("paymentOptionId"); opt != optionID {
		return nil, errors.New("no such payment option")
	}
	if p, _ := body.GetObject("payment"); p == nil {
		return nil, errors.New("the completion carries no payment")
	}
	return jsonv.Obj("status", "completed", "order", "ord_"+randomHex(6), "receipt", jsonv.Obj("type", []jsonv.Value{"VerifiableCredential", "PaymentReceiptCredential"},
		"issuer", "did:web:seller.example", "credentialSubject",
		jsonv.Obj("paymentRequestToken", tok, "paymentOptionId", optionID))), nil
}

func demoPath(v jsonv.Value, keys ...string) jsonv.Value {
	for _, k := range keys {
		o, ok := jsonv.AsObject(v)
		if !ok {
			return nil
		}
		v, _ = o.Get(k)
	}
	return v
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func luhn(s string) bool {
	if len(s) < 12 || len(s) > 19 {
		return false
	}
	sum := 0
	for i := 0; i < len(s); i++ {
		c := s[len(s)-1-i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}
