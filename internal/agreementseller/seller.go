// Package agreementseller is a small seller whose payment is no public
// proof of its terms, so that a buyer must run the agreement exchange
// first (docs/agreement.md): its 402 offers one such option under its
// published terms and names an agreement URL, an x402 seller of a receipt
// (1 atomic unit of USDC on Base Sepolia, its EIP-3009 nonce H). The
// resource is served to a payment that echoes the terms' legal context only
// once an agreement to those terms was paid, and that passes the option's
// own check. New offers x402/batch-settlement/cloudflare (paid by the
// agent's identity, off chain; termsgatetest and termsgate seller
// --agreement serve it); NewERC7710 offers x402/exact/eip155/erc7710, whose
// delegation it redeems as its manager would. It settles nothing.
package agreementseller

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/cloudflare"
	"github.com/termsgate/termsgate/rails/x402"
)

// Seller serves the resource, and through Agreements the terms and the
// agreement URL.
type Seller struct {
	ResourcePath string
	Body         []byte
	// Agreements is the agreement URL's seller, which also publishes the
	// terms (its Record: SetATR, Lie, Hash, ATRFetches). Its APIHost is the
	// resource's host too.
	Agreements *x402seller.Seller
	// Option is the resource's one payment option; Bound reads H back from
	// a payment of it; Check, when set, is the payment's own check (the
	// redemption of an ERC-7710 delegation), after H and the agreement.
	Option *jsonv.Object
	Bound  func(jsonv.Value) (string, error)
	Check  func(payment *jsonv.Object) (payer string, err error)

	// Counters of the resource, for tests and termsgate seller.
	Unpaid, Paid, Rejected atomic.Int64

	mu      sync.Mutex
	lastErr error
	payer   string
}

// AgentAccount is an agent account the offer can be paid by: a
// cloudflare:402 identity, whose HTTP stack signs requests (the gate asks
// it to sign nothing).
const AgentAccount = "cloudflare:402:agent.example"

// New returns a seller of body under terms atrBytes, on the hosts of
// x402seller.New; set Agreements.ATRHost and Agreements.APIHost to move it.
func New(atrBytes, body []byte) *Seller {
	option := jsonv.Obj("scheme", "batch-settlement", "network", cloudflare.Network, "amount", "5", "asset", "USD",
		"payTo", "merchant", "maxTimeoutSeconds", 30, "extra", jsonv.Obj("version", "1.0.0"))
	return newSeller(atrBytes, body, option, cloudflare.Batch{}.Bound, nil)
}

func newSeller(atrBytes, body []byte, option *jsonv.Object, bound func(jsonv.Value) (string, error),
	check func(*jsonv.Object) (string, error)) *Seller {
	a := x402seller.New(atrBytes, nil)
	a.ResourcePath = "/agree"
	a.Option.Set("amount", "1")
	s := &Seller{ResourcePath: "/v1/report", Body: body, Agreements: a, Option: option, Bound: bound, Check: check}
	s.SetATR(atrBytes)
	return s
}

// SetATR changes the terms, and the receipt the agreement URL sells.
func (s *Seller) SetATR(b []byte) {
	s.Agreements.SetATR(b)
	h := s.Agreements.Hash()
	s.Agreements.Body = jsonv.Marshal(jsonv.Obj("atrHash", h.String(), "agreed", true, "network", "eip155:84532",
		"transaction", "0x"+strings.Repeat("ab", 32)))
}

// Hash is the hash of the terms the offer advertises.
func (s *Seller) Hash() atr.Hash { return s.Agreements.Hash() }

// ResourceURL is the paid resource's URL.
func (s *Seller) ResourceURL() string { return "https://" + s.Agreements.APIHost + s.ResourcePath }

// AgreementURL is the agreement URL the offer names.
func (s *Seller) AgreementURL() string { return s.Agreements.ResourceURL() }

// LastRejection is why the last payment was refused, if one was.
func (s *Seller) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// LastPayer is who the last accepted payment's check named (the
// delegator of a redeemed delegation); "" when the option has no check.
func (s *Seller) LastPayer() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.payer
}

// Required is the PAYMENT-REQUIRED document of the resource.
func (s *Seller) Required() (*jsonv.Object, error) {
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", s.ResourceURL()), "accepts", []jsonv.Value{s.Option.Clone()})
	h := s.Hash()
	return x402.Advertise(doc, h, s.Agreements.Link(h), s.AgreementURL())
}

// ServeHTTP serves the resource at ResourcePath on the API host; every
// other request (the terms' link, the agreement URL) goes to Agreements.
func (s *Seller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != s.ResourcePath || hostOnly(r.Host) != hostOnly(s.Agreements.APIHost) {
		s.Agreements.ServeHTTP(w, r)
		return
	}
	doc, err := s.Required()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	header := r.Header.Get("PAYMENT-SIGNATURE")
	if header == "" {
		s.Unpaid.Add(1)
	} else if payer, err := s.verify(header, doc); err != nil {
		s.Rejected.Add(1)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
	} else {
		s.mu.Lock()
		s.payer = payer
		s.mu.Unlock()
		s.Paid.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.Body)
		return
	}
	w.Header().Set("PAYMENT-REQUIRED", x402.EncodeHeader(doc))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusPaymentRequired)
	_, _ = w.Write(jsonv.Marshal(jsonv.Obj("error", "payment required")))
}

// verify is the seller's side: the payment is for its option and echoes the
// hash of the terms it serves, an agreement to them was paid at its
// agreement URL (what Cloudflare, or the facilitator, and the seller's
// agreement service share), and the option's own check passes.
func (s *Seller) verify(header string, doc *jsonv.Object) (string, error) {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return "", err
	}
	h, err := s.Bound(payment)
	if err != nil {
		return "", err
	}
	if !atr.EqualText(h, s.Hash()) {
		return "", errors.New("the payment names other terms")
	}
	accepted, _ := payment.GetObject("accepted")
	accepts, _ := doc.Get("accepts")
	if list, _ := jsonv.AsArray(accepts); !x402.OptionInDocument(accepted, list) {
		return "", errors.New("the payment is for an option not offered")
	}
	if s.Agreements.Paid.Load() == 0 {
		return "", errors.New("no agreement to these terms was paid")
	}
	if s.Check == nil {
		return "", nil
	}
	return s.Check(payment)
}

func hostOnly(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		return host[:i]
	}
	return host
}
