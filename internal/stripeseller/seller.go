// Package stripeseller is a small seller paid by MPP's Stripe methods
// (docs/stripe.md): it publishes its terms, answers 402 with one
// WWW-Authenticate: Payment challenge (mpp/charge/stripe or
// mpp/subscription/stripe) whose id, opaque and metadata.legal_context
// carry H, and names an agreement URL, since a Stripe payment is no public
// proof. It serves the resource to a credential echoing a challenge it
// issued, unexpired, for the terms it serves, only after an agreement to
// them was paid, and once Stripe (Processor, in process) accepted the
// token: a charge on the Shared Payment Token, or a subscription on the
// PaymentMethod, with legal_context in its metadata. Nothing leaves the
// machine.
package stripeseller

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stripe"
)

// What the resource costs: 50.00 USD, or 50.00 USD a month; a challenge
// lives 300 s.
const (
	Amount    = 5000
	Currency  = "usd"
	Realm     = "api.seller.example"
	NetworkID = "profile_1MqDcVKA5fEO2tZvKQm9g8Yj"
	Expiry    = 300
)

// Seller sells one resource for a Stripe payment.
type Seller struct {
	Pairing      string // stripe.ChargeID or stripe.SubscriptionID
	ResourcePath string
	Body         []byte
	Stripe       *Processor
	// Agreements publishes the terms and serves the agreement URL; its
	// APIHost is the resource's host too.
	Agreements *x402seller.Seller
	Now        func() time.Time

	Unpaid, Paid, Rejected atomic.Int64

	mu      sync.Mutex
	issued  map[string]bool // the requests of the challenges issued
	lastErr error
}

// New returns a seller of body under terms atrBytes, paid by pairing.
func New(pairing string, atrBytes, body []byte) *Seller {
	a := x402seller.New(atrBytes, nil)
	a.ResourcePath = "/agree"
	a.Option.Set("amount", "1")
	s := &Seller{Pairing: pairing, ResourcePath: "/v1/report", Body: body, Stripe: NewProcessor(), Agreements: a,
		Now: time.Now, issued: map[string]bool{}}
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

type advertiser interface {
	Advertise(doc []jsonv.Value, h atr.Hash, link string, offer *jsonv.Object, agreement string) ([]jsonv.Value, error)
}

// Challenges is the placed challenge list a 402 carries.
func (s *Seller) Challenges() ([]jsonv.Value, error) {
	details := jsonv.Obj("networkId", NetworkID, "paymentMethodTypes", []jsonv.Value{"card", "link"},
		"metadata", jsonv.Obj("order", "demo-1"))
	request := jsonv.Obj("amount", strconv.Itoa(Amount), "currency", Currency, "methodDetails", details)
	intent := "charge"
	var p advertiser = stripe.Charge{}
	if s.Pairing == stripe.SubscriptionID {
		intent, p = "subscription", stripe.Subscription{}
		request.Set("periodUnit", "month")
		request.Set("periodCount", "1")
	}
	expires := s.Now().Add(Expiry * time.Second).UTC().Format("2006-01-02T15:04:05Z")
	c := jsonv.Obj("realm", Realm, "method", "stripe", "intent", intent, "request", mpp.EncodeObject(request), "expires", expires)
	h := s.Hash()
	doc, err := p.Advertise([]jsonv.Value{c}, h, s.Agreements.Link(h), c, s.Agreements.ResourceURL())
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	for _, v := range doc {
		o, _ := jsonv.AsObject(v)
		s.issued[mpp.String(o, "request")] = true
	}
	s.mu.Unlock()
	return doc, nil
}

// ServeHTTP serves the resource on the API host; the terms' link and the
// agreement URL go to Agreements.
func (s *Seller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != s.ResourcePath || hostOnly(r.Host) != s.Agreements.APIHost {
		s.Agreements.ServeHTTP(w, r)
		return
	}
	header := r.Header.Get(mpp.PaymentAuthorization)
	if a := r.Header.Get("Authorization"); header == "" && len(a) >= 8 && strings.EqualFold(a[:8], "payment ") {
		header = a
	}
	if header == "" {
		s.Unpaid.Add(1)
	} else if receipt, err := s.verify(header); err != nil {
		s.Rejected.Add(1)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
	} else {
		s.Paid.Add(1)
		w.Header().Set("Payment-Receipt", mpp.EncodeB64URL(jsonv.Marshal(receipt)))
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

// verify: the credential reads as the pairing's (its echoed challenge's
// id, opaque and legal_context naming one hash; the token of its form),
// that hash is the terms served, the challenge is one this seller issued
// and unexpired, an agreement was paid, and Stripe accepts the token with
// legal_context copied into the metadata. It returns the receipt.
func (s *Seller) verify(header string) (*jsonv.Object, error) {
	cred, err := mpp.ParseHeader(header)
	if err != nil {
		return nil, err
	}
	var p interface {
		Bound(jsonv.Value) (string, error)
	} = stripe.Charge{}
	if s.Pairing == stripe.SubscriptionID {
		p = stripe.Subscription{}
	}
	// Bound refuses no-signed-place only once everything it reads checks.
	var ref *rails.Refusal
	if _, err := p.Bound(cred); !errors.As(err, &ref) || ref.Code != stripe.CodeNoSignedPlace {
		return nil, errors.Join(errors.New("the credential does not read as this pairing's"), err)
	}
	challenge, _ := cred.GetObject("challenge")
	h, err := mpp.HOfChallenge(challenge)
	if err != nil || !h.Equal(s.Hash()) {
		return nil, errors.New("the challenge names other terms than those served")
	}
	s.mu.Lock()
	issued := s.issued[mpp.String(challenge, "request")]
	s.mu.Unlock()
	if !issued || mpp.String(challenge, "realm") != Realm {
		return nil, errors.New("the challenge is not one this seller issued")
	}
	if exp, _ := mpp.UnixOf(mpp.String(challenge, "expires")); exp <= s.Now().Unix() {
		return nil, errors.New("the challenge has expired")
	}
	if s.Agreements.Paid.Load() == 0 {
		return nil, errors.New("no agreement to these terms was paid")
	}
	req, _ := mpp.DecodeObject(mpp.String(challenge, "request"))
	meta := map[string]string{}
	if d, ok := req.GetObject("methodDetails"); ok {
		if m, ok := d.GetObject("metadata"); ok {
			for _, mem := range m.Members() {
				meta[mem.Key], _ = mem.Value.(string)
			}
		}
	}
	meta["challenge_id"] = mpp.String(challenge, "id")
	amount, _ := strconv.ParseInt(mpp.String(req, "amount"), 10, 64)
	payload, _ := cred.GetObject("payload")
	if s.Pairing == stripe.SubscriptionID {
		count, _ := strconv.ParseInt(mpp.String(req, "periodCount"), 10, 64)
		sub, err := s.Stripe.CreateSubscription(NetworkID, mpp.String(payload, "paymentMethod"), amount, mpp.String(req, "currency"),
			mpp.String(req, "periodUnit"), count, meta)
		if err != nil {
			return nil, err
		}
		return jsonv.Obj("method", "stripe", "reference", sub.Invoice, "status", "success", "subscriptionId", sub.ID,
			"stripeSubscription", sub.ID, "timestamp", s.Now().UTC().Format(time.RFC3339)), nil
	}
	pi, err := s.Stripe.CreatePaymentIntent(NetworkID, amount, mpp.String(req, "currency"), mpp.String(payload, "spt"), meta)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("method", "stripe", "reference", pi.ID, "status", "success", "timestamp", s.Now().UTC().Format(time.RFC3339)), nil
}

func hostOnly(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		return host[:i]
	}
	return host
}
