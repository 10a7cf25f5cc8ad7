// Package x402seller is a small x402 v2 seller that publishes its terms (an
// ATR) under the Legal Context Protocol and accepts a PAYMENT-SIGNATURE only
// after checking it: the EIP-3009 signature recovers to the payer, the nonce
// is SHA-256 of the ATR it serves, and amount, payee, token and network are
// the ones it offered. The demo and the tests pay it; it settles only when
// given a Settler (the settlement tests and `termsgate demo --settle`).
package x402seller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
)

// Seller serves an ATR and one paid resource.
type Seller struct {
	ATRHost, APIHost string // host names the links use
	ResourcePath     string
	Option           *jsonv.Object // the one x402 option offered
	Body             []byte        // what a paid request gets
	Now              func() time.Time
	// Settler, when set, settles each verified payment before the resource
	// is served, as a facilitator does, and returns the settling
	// transaction's hash; an error refuses the payment.
	Settler func(ctx context.Context, payment *jsonv.Object) (tx string, err error)
	// Verify, when set, checks a payment in place of the EIP-3009 check,
	// once it accepts the offered option: a seller of another x402 EVM
	// pairing (internal/permit2seller) verifies as its chain would. h is
	// the hash of the terms served; it returns the payer.
	Verify func(payment *jsonv.Object, h atr.Hash, now time.Time) (payer string, err error)
	// Plain makes it a seller that publishes no terms, as x402 sellers
	// without the Legal Context Protocol are: its 402 has no legalContext
	// and it accepts any nonce (a buyer pays it only unbound, by choice).
	Plain bool

	// The published terms: SetATR, Lie, Hash and the ATRFetches counter.
	terms.Record

	// Counters, for tests and the demo's printout.
	Unpaid, Paid, Rejected atomic.Int64

	mu sync.Mutex
	// The 402 header for the terms, option and hosts named by cachedFor.
	cachedHeader string
	cachedFor    string
	lastErr      error
	payer        string
}

// DefaultOption is the vectors' option: 0.01 USDC on Base Sepolia.
func DefaultOption() *jsonv.Object {
	return jsonv.Obj(
		"scheme", "exact", "network", "eip155:84532", "amount", "10000",
		"asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
		"payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("name", "USDC", "version", "2"))
}

// New returns a seller of body under terms atrBytes.
func New(atrBytes, body []byte) *Seller {
	s := &Seller{
		ATRHost: "atr.seller.example", APIHost: "api.seller.example", ResourcePath: "/v1/report",
		Option: DefaultOption(), Body: body, Now: time.Now,
	}
	s.SetATR(atrBytes)
	return s
}

// LastRejection is why the last payment was refused, if one was.
func (s *Seller) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// ResourceURL is the paid resource's URL.
func (s *Seller) ResourceURL() string { return "https://" + s.APIHost + s.ResourcePath }

// Link is the ATR's URL for hash h.
func (s *Seller) Link(h atr.Hash) string { return "https://" + s.ATRHost + "/" + h.String() }

// Required is the PAYMENT-REQUIRED document the seller answers with.
func (s *Seller) Required() (*jsonv.Object, error) {
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", s.ResourceURL()), "accepts", []jsonv.Value{s.Option.Clone()})
	if s.Plain {
		return doc, nil
	}
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
	payer, err := s.check(header)
	tx := "0x" + strings.Repeat("00", 32)
	if err == nil && s.Settler != nil {
		p, _ := x402.DecodeHeader(header) // verify read it
		if tx, err = s.Settler(r.Context(), p); err != nil {
			err = fmt.Errorf("settlement failed: %w", err)
		}
	}
	if err != nil {
		s.Rejected.Add(1)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
		s.paymentRequired(w, err.Error())
		return
	}
	s.Paid.Add(1)
	resp := jsonv.Obj("success", true, "transaction", tx, "network", s.network(), "payer", payer)
	w.Header().Set("PAYMENT-RESPONSE", x402.EncodeHeader(resp))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.Body)
}

func (s *Seller) network() string { n, _ := s.Option.GetString("network"); return n }

func (s *Seller) paymentRequired(w http.ResponseWriter, reason string) {
	header, err := s.requiredHeader(reason)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("PAYMENT-REQUIRED", header)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusPaymentRequired)
	_, _ = w.Write(jsonv.Marshal(jsonv.Obj("error", "payment required")))
}

// requiredHeader is the PAYMENT-REQUIRED value, kept while the terms stay the
// same: the seller answers many 402s with one document (the benchmarks pay it
// in a loop, and its work is on their clock).
func (s *Seller) requiredHeader(reason string) (string, error) {
	if reason != "" {
		doc, err := s.Required()
		if err != nil {
			return "", err
		}
		doc.Set("error", reason)
		return x402.EncodeHeader(doc), nil
	}
	// Tests edit Option and the hosts in place: they are part of the key.
	key := strconv.FormatBool(s.Plain) + " " + s.Hash().String() + " " + s.ResourceURL() + " " + s.ATRHost + " " + jsonv.String(s.Option)
	s.mu.Lock()
	cached, ok := s.cachedHeader, s.cachedFor == key && s.cachedHeader != ""
	s.mu.Unlock()
	if ok {
		return cached, nil
	}
	doc, err := s.Required()
	if err != nil {
		return "", err
	}
	header := x402.EncodeHeader(doc)
	s.mu.Lock()
	s.cachedHeader, s.cachedFor = header, key
	s.mu.Unlock()
	return header, nil
}

// check is verify, or Verify once the payment accepts the option offered.
func (s *Seller) check(header string) (string, error) {
	if s.Verify == nil {
		return s.verify(header)
	}
	p, err := x402.DecodeHeader(header)
	if err != nil {
		return "", err
	}
	accepted, ok := p.GetObject("accepted")
	if !ok || !x402.OptionInDocument(accepted, []jsonv.Value{s.Option}) {
		return "", errors.New("the payment accepts another option than the one offered")
	}
	return s.Verify(p, s.Hash(), s.Now())
}

// verify checks a PAYMENT-SIGNATURE as a facilitator would before settling,
// and returns the payer.
func (s *Seller) verify(header string) (string, error) {
	p, err := x402.DecodeHeader(header)
	if err != nil {
		return "", err
	}
	accepted, ok := p.GetObject("accepted")
	if !ok || !x402.OptionInDocument(accepted, []jsonv.Value{s.Option}) {
		return "", errors.New("the payment accepts another option than the one offered")
	}
	auth, ok := jsonv.AsObject(get(p, "payload", "authorization"))
	if !ok {
		return "", errors.New("the payment has no authorization")
	}
	field := func(k string) string { v, _ := auth.GetString(k); return v }
	amount, _ := s.Option.GetString("amount")
	payTo, _ := s.Option.GetString("payTo")
	if field("value") != amount || !strings.EqualFold(field("to"), payTo) {
		return "", errors.New("the authorization pays another amount or payee")
	}
	if want := s.Hash().String(); !s.Plain && !strings.EqualFold(field("nonce"), want) {
		return "", fmt.Errorf("the nonce %s is not the hash of the terms served, %s", field("nonce"), want)
	}
	before, err := strconv.ParseInt(field("validBefore"), 10, 64)
	if err != nil || before <= s.Now().Unix() {
		return "", errors.New("the authorization has expired")
	}
	extra, _ := s.Option.GetObject("extra")
	name, _ := extra.GetString("name")
	version, _ := extra.GetString("version")
	asset, _ := s.Option.GetString("asset")
	chain, _ := evm.ChainID(s.network())
	digest, err := evm.TypedDataDigest(evm.TransferWithAuthorization(name, version, chain, asset, auth))
	if err != nil {
		return "", err
	}
	sigText, _ := jsonv.AsString(get(p, "payload", "signature"))
	sig, ok := evm.HexBytes(sigText)
	if !ok {
		return "", errors.New("the signature is not hex")
	}
	who, err := evm.Recover(digest, sig)
	if err != nil {
		return "", fmt.Errorf("the signature does not recover: %w", err)
	}
	if !strings.EqualFold(who.Hex(), field("from")) {
		return "", fmt.Errorf("the signature recovers to %s, not the payer %s", who.Hex(), field("from"))
	}
	s.mu.Lock()
	s.payer = who.Hex()
	s.mu.Unlock()
	return who.Hex(), nil
}

func get(o *jsonv.Object, path ...string) jsonv.Value {
	var v jsonv.Value = o
	for _, k := range path {
		obj, ok := jsonv.AsObject(v)
		if !ok {
			return nil
		}
		v, _ = obj.Get(k)
	}
	return v
}
