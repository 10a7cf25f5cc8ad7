// Package exactseller is the skeleton every loopback x402 exact seller
// shares, so that a seller package holds only what its chain checks.
//
// A Seller serves its terms at https://atr.seller.example/<hash> and one
// resource at https://api.seller.example/v1/report. A request without a
// payment, or with one refused, gets 402 with the PAYMENT-REQUIRED document
// (x402 version 2, the one option, the terms' hash and link advertised); a
// PAYMENT-SIGNATURE whose accepted option is the one offered, whose bound
// hash is the terms served and which the chain's Verify takes gets Body.
//
// To add a seller (see internal/suiseller for a small one):
//
//	s := &Exact{...}                  // your chain's nodes, payee, amount
//	s.Body = []byte(`{"report":…}`)   // what a taken payment buys
//	s.Option = s.option               // the one option, built afresh each call
//	s.Bound = mychain.Exact{}.Bound   // the rail's reading of the bound hash
//	s.Verify = s.verify               // the chain's checks; returns what it paid
//
// Place is for a rail whose offer carries the hash inside the option
// (tvm.Place). Demo then plays the demo row's story over the seller: pay
// once, show what was checked, keep the payment, and decline a lying link
// unsigned; a seller adds only its own lines to it.
package exactseller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/x402"
)

// The seller's two names and the resource it sells.
const (
	ATRHost = "atr.seller.example"
	APIHost = "api.seller.example"
	URL     = "https://" + APIHost + "/v1/report"
)

// Seller is one x402 exact seller. Option, Bound and Verify must be set
// before it serves; Place is optional.
type Seller struct {
	terms.Record
	// Body is the resource a taken payment gets.
	Body []byte
	// Option is the one payment option offered.
	Option func() *jsonv.Object
	// Place, when set, edits the advertised document (after the legal
	// context is added) to carry the terms' hash h.
	Place func(doc *jsonv.Object, h atr.Hash) error
	// Bound reads the hash the payment is bound to, as the rail does.
	Bound func(payment jsonv.Value) (string, error)
	// Verify checks the payment as the chain would and returns what was
	// paid (a transaction id or digest) for the demo to show.
	Verify func(payment *jsonv.Object) (string, error)

	mu       sync.Mutex
	rejected error
	paid     string
}

// Required is the PAYMENT-REQUIRED document the seller serves.
func (s *Seller) Required() (*jsonv.Object, error) {
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", URL), "accepts", []jsonv.Value{s.Option()})
	doc, err := x402.Advertise(doc, s.Hash(), "https://"+ATRHost+"/"+s.Hash().String(), "")
	if err != nil || s.Place == nil {
		return doc, err
	}
	return doc, s.Place(doc, s.Hash())
}

func (s *Seller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, ATRHost, APIHost, func(w http.ResponseWriter, r *http.Request) {
		terms.ServeX402(w, r, &s.mu, &s.rejected, s.accept, s.Required, s.Body)
	})
}

// LastRejection is why the last payment was refused, nil when taken.
func (s *Seller) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rejected
}

// Paid is what Verify returned for the last payment taken.
func (s *Seller) Paid() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paid
}

// accept takes a payment only for the option this seller offers now (as
// placed, where Place edits it) and the terms it serves now; the chain's
// checks come after.
func (s *Seller) accept(header string) error {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return err
	}
	doc, err := s.Required()
	if err != nil {
		return err
	}
	accepts, _ := doc.Get("accepts")
	offered, _ := jsonv.AsArray(accepts)
	if acc, _ := payment.GetObject("accepted"); !x402.OptionInDocument(acc, offered) {
		return errors.New("the payment accepts another option")
	}
	if h, err := s.Bound(payment); err != nil || h != s.Hash().String() {
		return fmt.Errorf("the payment is not bound to the terms served: %v", err)
	}
	paid, err := s.Verify(payment)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.paid = paid
	s.mu.Unlock()
	return nil
}

// Demo is a demo row's story over a Seller: a 402, the gate's fetch and
// compare, the policy, the signature, the paid retry, then the same seller
// lying at its link and the gate declining with no signer call. The seller
// packages fill in what their chain reads and checks.
type Demo struct {
	Seller *Seller
	Wallet *demo.Counting
	Policy *pay.Policy
	// Inputs and InputsErr are the buyer inputs provider, when the pairing
	// needs one, and its last failure (told with a payment not made).
	Inputs    func(pairing string) *jsonv.Object
	InputsErr func() error

	Pairing string // in the first line: "termsgate demo (<Pairing>): …"
	Price   string // "… sells <URL> for <Price>"
	Payer   string // "payer: <account> (<Payer>)"
	Offer   string // "1. GET …: 402 with PAYMENT-REQUIRED, <Offer>"; the terms' hash and link when empty
	Retry   string // appended to "3. the same GET again, with PAYMENT-SIGNATURE (n bytes)"
	Amount  string // what was paid, for the session (demo.Amount)

	// BeforeSign says what the wallet read and the policy allowed, after the
	// gate's hash comparison; AfterSign says what was signed; Checked says
	// what the seller checked of the payment paid, given its answer.
	BeforeSign func(sm pay.Summary)
	AfterSign  func(r *pay.Result)
	Checked    func(paid string, status int, body []byte)
}

// Run plays the story on s, serving the seller on loopback with demo.ATR.
func (d *Demo) Run(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	seller := d.Seller
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	var signed jsonv.Value
	var termsBytes []byte
	transport := &pay.Transport{
		Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: d.Wallet, Policy: d.Policy, Inputs: d.Inputs,
		Hooks: pay.Hooks{
			BeforeSign: func(_ context.Context, _ *http.Request, sm pay.Summary) error {
				say("   fetched the terms; SHA-256 matches the advertised H = %s", sm.H)
				d.BeforeSign(sm)
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				signed, termsBytes = r.Signed, r.ATR
				d.AfterSign(r)
				say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)%s", len(r.Header), d.Retry)
			},
		},
	}
	transport.NoATRCache = true // each step fetches and compares, as it prints (the lie in step 4 too)
	client := pay.NewClient(transport)
	offer := d.Offer
	if offer == "" {
		offer = "the terms' hash and link"
	}
	say("termsgate demo (%s): a seller on %s (TLS, loopback only) sells %s for %s", d.Pairing, srv.Listener.Addr(), URL, d.Price)
	say("payer: %s (%s)", d.Wallet.Account(), d.Payer)
	say("")
	say("1. GET %s: 402 with PAYMENT-REQUIRED, %s", URL, offer)
	say("2. the gate fetches the terms, compares SHA-256 of the bytes with H, asks the policy, and only then signs")
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, URL, nil)
	resp, err := client.Do(req)
	if err != nil {
		if d.InputsErr != nil {
			if e := d.InputsErr(); e != nil {
				return fail("not paid:", err, e)
			}
		}
		return fail("not paid:", err)
	}
	body := demo.Read(resp)
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Sprintf("the seller refused the payment (%d):", resp.StatusCode), seller.LastRejection())
	}
	d.Checked(seller.Paid(), resp.StatusCode, body)
	offered, _ := seller.Required()
	if err := s.KeepPayment(termsBytes, x402.EncodeHeader(offered), signed); err != nil {
		return err
	}
	s.Paid(d.Amount)
	say("")
	say("4. the same seller now serves other bytes at the link while its 402 still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := d.Wallet.Calls()
	_, err = client.Get(URL)
	var decline *gate.Decline
	if !errors.As(err, &decline) || decline.Code != gate.HashMismatch {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s: %s", decline.Code, decline.Detail)
	say("   signer calls for it: %d; nothing was sent", d.Wallet.Calls()-before)
	return nil
}
