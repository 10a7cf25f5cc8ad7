// Package stellarseller is a small x402 v2 seller paid on Stellar
// (x402/exact/stellar) that publishes its terms (an ATR) under the Legal
// Context Protocol. Its payTo is its account muxed with the first 8 bytes of
// the terms' hash, and it accepts a PAYMENT-SIGNATURE only after checking the
// signed authorization as a facilitator would before submitting it: the
// envelope read with the Stellar SDK's XDR (through rails/stellar), the
// payee the offered muxed address carrying the hash of the terms it serves,
// the token and amount offered, the authorization not expired at the current
// ledger, and the payer's Ed25519 signature over the authorization preimage.
// The demo and the tests pay it; it submits nothing.
package stellarseller

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/x402"
)

// Seller serves an ATR and one resource paid on Stellar.
type Seller struct {
	ATRHost, APIHost string
	ResourcePath     string
	Option           *jsonv.Object // the option before placement: payTo is the seller's G… account
	Body             []byte
	Ledger           func() uint32 // the current ledger, for the expiration check

	terms.Record

	Unpaid, Paid, Rejected atomic.Int64

	mu      sync.Mutex
	lastErr error
	payer   string
}

// Seller is the vectors' seller account (seed 04×32); the asset is the
// contract of 06×32.
const (
	SellerAccount = "GDFJHLAXAUMHA4OWPOB4P7YO72AQR2HMIUYFOXLXE2DZGM633K7HZDQP"
	Asset         = "CADAMBQGAYDAMBQGAYDAMBQGAYDAMBQGAYDAMBQGAYDAMBQGAYDAMSST"
)

// DefaultOption is the vectors' option: 10000000 stroops-units of the token
// on testnet, fees sponsored.
func DefaultOption() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", stellar.Testnet, "amount", "10000000", "asset", Asset,
		"payTo", SellerAccount, "maxTimeoutSeconds", 60, "extra", jsonv.Obj("areFeesSponsored", true))
}

// New returns a seller of body under terms atrBytes; ledger is the current
// ledger.
func New(atrBytes, body []byte, ledger func() uint32) *Seller {
	s := &Seller{ATRHost: "atr.seller.example", APIHost: "api.seller.example", ResourcePath: "/v1/report",
		Option: DefaultOption(), Body: body, Ledger: ledger}
	s.SetATR(atrBytes)
	return s
}

// ResourceURL is the paid resource's URL.
func (s *Seller) ResourceURL() string { return "https://" + s.APIHost + s.ResourcePath }

// Link is the ATR's URL for hash h.
func (s *Seller) Link(h atr.Hash) string { return "https://" + s.ATRHost + "/" + h.String() }

// LastRejection is why the last payment was refused, if one was.
func (s *Seller) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// Payer is the account of the last accepted payment.
func (s *Seller) Payer() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.payer
}

// offer is the placed option: payTo muxed with the terms' hash.
func (s *Seller) offer() (*jsonv.Object, error) { return stellar.PlaceOption(s.Option, s.Hash()) }

// Required is the PAYMENT-REQUIRED document.
func (s *Seller) Required() (*jsonv.Object, error) {
	opt, err := s.offer()
	if err != nil {
		return nil, err
	}
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", s.ResourceURL()), "accepts", []jsonv.Value{opt})
	h := s.Hash()
	return x402.Advertise(doc, h, s.Link(h), "")
}

// ServeHTTP routes by host: the ATR host serves the terms, the API host the
// paid resource.
func (s *Seller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, s.ATRHost, s.APIHost, s.serveResource)
}

func (s *Seller) serveResource(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != s.ResourcePath {
		http.NotFound(w, r)
		return
	}
	header := r.Header.Get("PAYMENT-SIGNATURE")
	if header == "" {
		s.Unpaid.Add(1)
		s.paymentRequired(w, "")
		return
	}
	payer, err := s.verify(header)
	if err != nil {
		s.Rejected.Add(1)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
		s.paymentRequired(w, err.Error())
		return
	}
	s.Paid.Add(1)
	resp := jsonv.Obj("success", true, "transaction", strings.Repeat("0", 64), "network", stellar.Testnet, "payer", payer)
	w.Header().Set("PAYMENT-RESPONSE", x402.EncodeHeader(resp))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.Body)
}

func (s *Seller) paymentRequired(w http.ResponseWriter, reason string) {
	doc, err := s.Required()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if reason != "" {
		doc.Set("error", reason)
	}
	w.Header().Set("PAYMENT-REQUIRED", x402.EncodeHeader(doc))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusPaymentRequired)
	_, _ = w.Write(jsonv.Marshal(jsonv.Obj("error", "payment required")))
}

// verify checks a payment as a facilitator would before submitting it, and
// returns the payer.
func (s *Seller) verify(header string) (string, error) {
	p, err := x402.DecodeHeader(header)
	if err != nil {
		return "", err
	}
	offer, err := s.offer()
	if err != nil {
		return "", err
	}
	accepted, ok := p.GetObject("accepted")
	if !ok || !x402.OptionInDocument(accepted, []jsonv.Value{offer}) {
		return "", errors.New("the payment accepts another option than the one offered")
	}
	t, h, err := stellar.Exact{}.ReadPayment(p)
	if err != nil {
		return "", fmt.Errorf("the payment does not read: %w", err)
	}
	if want := s.Hash().String(); h != want || t.ToMux.ID != stellar.MuxedID(s.Hash()) {
		return "", fmt.Errorf("the payment carries %s, not the hash of the terms served, %s", h, want)
	}
	payTo, _ := offer.GetString("payTo")
	amount, _ := offer.GetString("amount")
	asset, _ := offer.GetString("asset")
	if err := checkTransfer(t, payTo, asset, amount, s.Ledger()); err != nil {
		return "", err
	}
	s.mu.Lock()
	s.payer = t.From
	s.mu.Unlock()
	return t.From, nil
}

// checkTransfer checks a signed transfer as the token contract and the
// account contract would run it: it pays amount of asset to payTo, its
// authorization has not expired at ledger, and it carries the payer's
// Ed25519 signature over the authorization preimage.
func checkTransfer(t *stellar.Transfer, payTo, asset, amount string, ledger uint32) error {
	if t.To != payTo || t.Asset != asset || t.Amount.String() != amount {
		return errors.New("the authorization pays another payee, token or amount")
	}
	if exp := uint32(t.Creds.SignatureExpirationLedger); exp < ledger {
		return fmt.Errorf("the authorization expired at ledger %d", exp)
	}
	pub, sig, err := signatureOf(t.Creds.Signature)
	if err != nil {
		return err
	}
	key, ok := stellar.DecodeAccount(t.From)
	if !ok || !bytes.Equal(pub, key[:]) {
		return errors.New("the signature's public key is not the payer's")
	}
	digest, err := t.PreimageHash(stellar.Testnet)
	if err != nil {
		return err
	}
	if !ed25519.Verify(pub, digest[:], sig) {
		return errors.New("the payer's signature does not verify over the authorization")
	}
	return nil
}

// signatureOf reads an account's signature as the Stellar account contract
// does: a vector of one map {public_key: bytes(32), signature: bytes(64)}.
func signatureOf(v xdr.ScVal) (pub, sig []byte, err error) {
	bad := errors.New("the authorization's signature is not [{public_key, signature}]")
	vec, ok := v.GetVec()
	if !ok || vec == nil || len(*vec) != 1 {
		return nil, nil, bad
	}
	m, ok := (*vec)[0].GetMap()
	if !ok || m == nil || len(*m) != 2 {
		return nil, nil, bad
	}
	for _, e := range *m {
		sym, ok1 := e.Key.GetSym()
		b, ok2 := e.Val.GetBytes()
		if !ok1 || !ok2 {
			return nil, nil, bad
		}
		switch sym {
		case "public_key":
			pub = b
		case "signature":
			sig = b
		}
	}
	if len(pub) != ed25519.PublicKeySize || len(sig) != ed25519.SignatureSize {
		return nil, nil, bad
	}
	return pub, sig, nil
}
