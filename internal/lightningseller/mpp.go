package lightningseller

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/lightning"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The MPP Lightning charge (mpp/charge/lightning): the seller answers 402
// with one WWW-Authenticate: Payment challenge whose request names a fresh
// invoice its node signed with H as the description hash.

// Realm is the MPP seller's realm.
const Realm = "api.seller.example"

// Challenges issues a fresh invoice and its placed challenge list.
func (s *Seller) Challenges() ([]jsonv.Value, error) {
	h := s.Hash()
	inv, hash, err := s.Node.Issue(AmountMsat, Expiry, h[:], nil)
	if err != nil {
		return nil, err
	}
	in, err := lightning.Decode(inv)
	if err != nil {
		return nil, err
	}
	expires := time.Unix(in.ExpiresAt(), 0).UTC().Format("2006-01-02T15:04:05Z")
	if s.Pairing == lightning.SessionID {
		// A deposit of 21 sat; each request after the open costs 1 sat.
		request := jsonv.Obj("amount", "1", "currency", "sat", "depositInvoice", inv, "paymentHash", hex.EncodeToString(hash[:]))
		c := jsonv.Obj("realm", Realm, "method", "lightning", "intent", "session", "request", mpp.EncodeObject(request), "expires", expires)
		s.mu.Lock()
		s.issuedRequests[hash] = mpp.String(c, "request")
		s.mu.Unlock()
		return lightning.Session{}.Advertise([]jsonv.Value{c}, h, s.Agreements.Link(h), c, s.Agreements.ResourceURL())
	}
	request := jsonv.Obj("amount", "21", "currency", "sat", "methodDetails", jsonv.Obj(
		"invoice", inv, "network", "mainnet", "paymentHash", hex.EncodeToString(hash[:])))
	c := jsonv.Obj("realm", Realm, "method", "lightning", "intent", "charge", "request", mpp.EncodeObject(request), "expires", expires)
	s.mu.Lock()
	s.issuedRequests[hash] = mpp.String(c, "request")
	s.mu.Unlock()
	return lightning.Charge{}.Advertise([]jsonv.Value{c}, h, s.Agreements.Link(h), c, s.Agreements.ResourceURL())
}

func (s *Seller) serveMPP(w http.ResponseWriter, r *http.Request) {
	header := r.Header.Get(mpp.PaymentAuthorization)
	if a := r.Header.Get("Authorization"); header == "" && len(a) >= 8 && strings.EqualFold(a[:8], "payment ") {
		header = a
	}
	if header == "" {
		s.Unpaid.Add(1)
	} else if err := s.verifyMPP(header); err != nil {
		s.Rejected.Add(1)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
	} else {
		s.Paid.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.Body)
		return
	}
	doc, err := s.Challenges()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, c := range doc {
		o, _ := jsonv.AsObject(c)
		w.Header().Add("WWW-Authenticate", mpp.ChallengeHeader(o))
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusPaymentRequired)
	_, _ = w.Write(jsonv.Marshal(jsonv.Obj("status", http.StatusPaymentRequired, "detail", "payment required")))
}

// verifyMPP: the credential's challenge names these terms and a request
// this seller issued (its invoice, unchanged), unexpired; the invoice is its
// node's with H as its description hash; the preimage pays it and its node
// was paid; the payment hash is used once; an agreement was paid.
func (s *Seller) verifyMPP(header string) error {
	cred, err := mpp.ParseHeader(header)
	if err != nil {
		return err
	}
	var p interface {
		Bound(jsonv.Value) (string, error)
	} = lightning.Charge{}
	if s.Pairing == lightning.SessionID {
		p = lightning.Session{} // the open action: the deposit paid, a return invoice registered
	}
	h, err := p.Bound(cred) // id, opaque, the invoice's h, the paymentHash, the preimage
	if err != nil {
		return err
	}
	if !atr.EqualText(h, s.Hash()) {
		return errors.New("the challenge names other terms than those served")
	}
	challenge, _ := cred.GetObject("challenge")
	req, _ := mpp.DecodeObject(mpp.String(challenge, "request"))
	d, _ := req.GetObject("methodDetails")
	inv := mpp.String(d, "invoice")
	if s.Pairing == lightning.SessionID {
		inv = mpp.String(req, "depositInvoice")
	}
	in, err := lightning.Decode(inv)
	if err != nil {
		return err
	}
	s.mu.Lock()
	issued := s.issuedRequests[in.PaymentHash]
	s.mu.Unlock()
	if issued == "" || issued != mpp.String(challenge, "request") || mpp.String(challenge, "realm") != Realm {
		return errors.New("the challenge is not one this seller issued")
	}
	if exp, _ := mpp.UnixOf(mpp.String(challenge, "expires")); exp <= s.Node.Now().Unix() {
		return errors.New("the challenge has expired")
	}
	payload, _ := cred.GetObject("payload")
	pre, _ := hex.DecodeString(mpp.String(payload, "preimage"))
	if in.PayeeHex() != s.Node.Pubkey() || sha256.Sum256(pre) != in.PaymentHash || !s.Node.Settled(in.PaymentHash) {
		return errors.New("the invoice was not paid to this node")
	}
	if s.Agreements.Paid.Load() == 0 {
		return errors.New("no agreement to these terms was paid")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used[in.PaymentHash] {
		return errors.New("this payment was already used")
	}
	s.used[in.PaymentHash] = true
	return nil
}

// NewCharge returns an mpp/charge/lightning seller.
func NewCharge(atrBytes, body []byte) *Seller {
	s := New(atrBytes, body)
	s.Pairing = lightning.ChargeID
	return s
}

// NewSession returns an mpp/session/lightning seller: the open pays a
// 21 sat deposit invoice and serves the first request.
func NewSession(atrBytes, body []byte) *Seller {
	s := New(atrBytes, body)
	s.Pairing = lightning.SessionID
	return s
}
