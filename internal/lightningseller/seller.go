// Package lightningseller is a small seller paid over Lightning
// (docs/lightning.md): it publishes its terms, answers 402 with an x402
// lnbtc option whose fresh invoice its node (Receiver) signed with H in the
// invoice's m field and the request hash in its description hash, and names
// an agreement URL, since a Lightning payment is no public proof. It serves
// the resource to a payment whose invoice is one its node issued and was
// paid, whose preimage pays it, once, and only after an agreement to the
// terms was paid. Payer is the buyer's node, answering as LND's REST API
// does. Nothing leaves the machine.
package lightningseller

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/lightning"
	"github.com/termsgate/termsgate/rails/x402"
)

// What the resource costs: 21 sat, an invoice payable for 300 s.
const (
	AmountMsat = 21000
	Expiry     = 300
)

// Seller sells one resource for a Lightning payment.
type Seller struct {
	// Pairing is lightning.ExactID (H in the invoice's m) or
	// lightning.InvoiceNamedID (no m; each 402's terms name its invoice).
	Pairing      string
	ResourcePath string
	// MisName makes an invoice-named seller lie: its terms name another
	// invoice than the one its 402 offers.
	MisName bool
	Body    []byte
	Node    *Receiver
	// Agreements publishes the terms (its Record) and serves the agreement
	// URL; its APIHost is the resource's host too.
	Agreements *x402seller.Seller

	Unpaid, Paid, Rejected atomic.Int64

	mu      sync.Mutex
	used    map[[32]byte]bool
	terms   []byte                // the record an invoice-named seller's terms slot carries
	issued  map[[32]byte]atr.Hash // invoice-named: the ATR issued with each invoice
	current []byte                // the terms served now
	// mpp/charge/lightning: the request issued with each invoice
	issuedRequests map[[32]byte]string
	lastErr        error
}

// New returns a seller of body under terms atrBytes, its node signing with
// x402's test key.
func New(atrBytes, body []byte) *Seller {
	a := x402seller.New(atrBytes, nil)
	a.ResourcePath = "/agree"
	a.Option.Set("amount", "1")
	s := &Seller{Pairing: lightning.ExactID, ResourcePath: "/v1/report", Body: body, Node: NewReceiver(TestKey()),
		Agreements: a, used: map[[32]byte]bool{}, issued: map[[32]byte]atr.Hash{}, terms: atrBytes,
		issuedRequests: map[[32]byte]string{}}
	s.SetATR(atrBytes)
	return s
}

// NewNamed returns an x402/exact/lnbtc/invoice-named seller: each 402's
// terms are a record whose x402 slot names the option as issued, invoice
// included, with terms (a JSON record) as its terms slot.
func NewNamed(terms, body []byte) *Seller {
	s := New(terms, body)
	s.Pairing = lightning.InvoiceNamedID
	return s
}

// SetATR changes the terms, and the receipt the agreement URL sells.
func (s *Seller) SetATR(b []byte) {
	s.mu.Lock()
	s.current = b
	s.mu.Unlock()
	s.Agreements.SetATR(b)
	h := s.Agreements.Hash()
	s.Agreements.Body = jsonv.Marshal(jsonv.Obj("atrHash", h.String(), "agreed", true, "network", "eip155:84532",
		"transaction", "0x"+strings.Repeat("ab", 32)))
}

// ATR is the terms served now.
func (s *Seller) ATR() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}

// Hash is the hash of the terms served.
func (s *Seller) Hash() atr.Hash { return s.Agreements.Hash() }

// ResourceURL is the paid resource's URL.
func (s *Seller) ResourceURL() string { return "https://" + s.Agreements.APIHost + s.ResourcePath }

// LastRejection is why the last payment was refused, if one was.
func (s *Seller) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// option is the lnbtc option for a request whose hash is rh, without its
// invoice.
func (s *Seller) option(rh [32]byte) *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", lightning.Mainnet, "amount", "21000", "asset", "BTC",
		"payTo", s.Node.Pubkey(), "maxTimeoutSeconds", Expiry, "extra", jsonv.Obj(
			"assetTransferMethod", "bolt11", "paymentFlow", "upfront", "requestHash", hex.EncodeToString(rh[:]),
			"requestBindingProfile", lightning.ProfileHTTP, "requestBindingParams", jsonv.Obj("headers", []jsonv.Value{})))
}

// requestHash is the http:1 hash of the request as this seller serves it:
// its public origin, never the Host the client sent.
func (s *Seller) requestHash(r *http.Request) ([32]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil {
		return [32]byte{}, err
	}
	req := jsonv.Obj("method", r.Method, "url", "https://"+s.Agreements.APIHost+r.URL.RequestURI(), "body", string(body))
	return lightning.RequestHash(lightning.ProfileHTTP, jsonv.Obj("headers", []jsonv.Value{}), req)
}

// Required is a fresh 402 document for a request hashing to rh: a new
// invoice with m = H, advertised with the link and the agreement URL.
func (s *Seller) Required(rh [32]byte) (*jsonv.Object, error) {
	if s.Pairing == lightning.InvoiceNamedID {
		return s.requiredNamed(rh)
	}
	h := s.Hash()
	inv, _, err := s.Node.Issue(AmountMsat, Expiry, rh[:], h[:])
	if err != nil {
		return nil, err
	}
	opt := s.option(rh)
	extra, _ := opt.GetObject("extra")
	extra.Set("invoice", inv)
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", s.ResourceURL()), "accepts", []jsonv.Value{opt})
	return lightning.Exact{}.Advertise(doc, h, s.Agreements.Link(h), opt, s.Agreements.ResourceURL())
}

// requiredNamed issues an invoice without m, then the terms that name it:
// {atrVersion, id, x402: {accepts: [the option], request}, terms}, served
// at the link from now on.
func (s *Seller) requiredNamed(rh [32]byte) (*jsonv.Object, error) {
	inv, hash, err := s.Node.Issue(AmountMsat, Expiry, rh[:], nil)
	if err != nil {
		return nil, err
	}
	opt := s.option(rh)
	extra, _ := opt.GetObject("extra")
	extra.Set("invoice", inv)
	named := opt
	if s.MisName {
		other, _, err := s.Node.Issue(AmountMsat, Expiry, rh[:], nil)
		if err != nil {
			return nil, err
		}
		named = s.option(rh)
		e, _ := named.GetObject("extra")
		e.Set("invoice", other)
	}
	id := hex.EncodeToString(hash[:16])
	id = id[:8] + "-" + id[8:12] + "-" + id[12:16] + "-" + id[16:20] + "-" + id[20:]
	record, err := atr.Assemble(id, "x402", jsonv.Obj("accepts", []jsonv.Value{named},
		"request", x402.RequestCommitment("GET", s.ResourcePath, nil)), []atr.Slot{{Name: "terms", Bytes: s.terms}}, 0)
	if err != nil {
		return nil, err
	}
	s.SetATR(record)
	h := s.Hash()
	s.mu.Lock()
	s.issued[hash] = h
	s.mu.Unlock()
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", s.ResourceURL()), "accepts", []jsonv.Value{opt})
	return lightning.InvoiceNamed{}.Advertise(doc, h, s.Agreements.Link(h), opt, s.Agreements.ResourceURL())
}

// ServeHTTP serves the resource on the API host; the terms' link and the
// agreement URL go to Agreements.
func (s *Seller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != s.ResourcePath || hostOnly(r.Host) != s.Agreements.APIHost {
		s.Agreements.ServeHTTP(w, r)
		return
	}
	if s.Pairing == lightning.ChargeID || s.Pairing == lightning.SessionID {
		s.serveMPP(w, r)
		return
	}
	rh, err := s.requestHash(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if header := r.Header.Get("PAYMENT-SIGNATURE"); header == "" {
		s.Unpaid.Add(1)
	} else if err := s.verify(header, rh); err != nil {
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
	doc, err := s.Required(rh)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("PAYMENT-REQUIRED", x402.EncodeHeader(doc))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusPaymentRequired)
	_, _ = w.Write(jsonv.Marshal(jsonv.Obj("error", "payment required")))
}

// verify is the seller's settlement check, as x402's lnbtc facilitator
// makes it: the accepted option is this seller's for this very request
// (every member but the invoice), the invoice its node signed with H in m
// and this request's hash as its description hash, the preimage pays it,
// its node was paid for it, the payment hash is used once, and an
// agreement to the terms was paid.
func (s *Seller) verify(header string, rh [32]byte) error {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return err
	}
	accepted, _ := payment.GetObject("accepted")
	if s.Pairing == lightning.InvoiceNamedID {
		h, err := lightning.InvoiceNamed{}.Bound(payment) // the invoice, its signer, the preimage; the echoed H
		if err != nil {
			return err
		}
		in, _ := lightning.Decode(lightning.InvoiceOf(accepted))
		s.mu.Lock()
		issued, ok := s.issued[in.PaymentHash]
		s.mu.Unlock()
		if !ok || !atr.EqualText(h, issued) {
			return errors.New("the payment names other terms than those issued with its invoice")
		}
	} else {
		h, err := lightning.Exact{}.Bound(payment) // the signature under payTo, the preimage, m
		if err != nil {
			return err
		}
		if !atr.EqualText(h, s.Hash()) {
			return errors.New("the invoice carries other terms than those served")
		}
	}
	if string(jsonv.Canonical(lightning.Unplaced(accepted))) != string(jsonv.Canonical(s.option(rh))) {
		return errors.New("the payment is for another option or another request")
	}
	extra, _ := accepted.GetObject("extra")
	inv, _ := extra.GetString("invoice")
	in, err := lightning.Decode(inv)
	if err != nil {
		return err
	}
	if in.PayeeHex() != s.Node.Pubkey() || string(in.DescriptionHash) != string(rh[:]) {
		return errors.New("the invoice is not this node's for this request")
	}
	payload, _ := payment.GetObject("payload")
	pre, _ := payload.GetString("preimage")
	b, _ := hex.DecodeString(pre)
	if sha256.Sum256(b) != in.PaymentHash || !s.Node.Settled(in.PaymentHash) {
		return errors.New("the invoice was not paid")
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

func hostOnly(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		return host[:i]
	}
	return host
}
