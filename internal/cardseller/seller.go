// Package cardseller is a card checkout whose payment is no public proof
// of its terms, for the card pairings' demo rows and tests: it shows its
// terms (the legal context with an agreement URL, or a checkout JWT that
// carries it, or MPP card challenges), sells the agreement receipt through
// an x402 EIP-3009 seller (internal/x402seller) and takes the card step
// only once that agreement was paid, checking it as the card network
// would: the agent's TAP message signature under its registered Ed25519
// key, the Verifiable Intent layers under the issuer's, user's and agent's
// P-256 keys, the MPP card credential's token decrypted with the seller's
// key. Card numbers are test numbers and never printed unmasked. It charges
// nothing.
package cardseller

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/card"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/sdjwt"
)

// Test card numbers (the card networks' published test numbers) and the
// network token the card wallet holds for the MPP card charge.
const (
	VisaTestPAN       = "4242424242424242"
	MastercardTestPAN = "5555555555554444"
	NetworkToken      = "tok_4895370012003478"
	Checkout          = "chk_1001"
	Amount            = 2799 // USD cents
)

// Seller is the checkout.
type Seller struct {
	// Agreements sells the agreement receipt and publishes the terms (its
	// ATRHost and APIHost are the checkout's too).
	Agreements *x402seller.Seller
	Merchant   *ecdsa.PrivateKey // signs the checkout JWT
	Issuer     *ecdsa.PublicKey  // the card issuer's key the network trusts
	AgentTAP   ed25519.PublicKey // the agent's registered TAP key
	CardKey    *rsa.PrivateKey   // the key card credentials are encrypted to
	Now        func() time.Time

	Paid, Rejected atomic.Int64

	mu          sync.Mutex
	lastErr     error
	charged     []string          // how each accepted card step paid
	credentials map[string]string // the L1s the network issued, by digest
}

// New returns a checkout under terms atrBytes.
func New(atrBytes []byte, issuer *ecdsa.PublicKey, agentTAP ed25519.PublicKey) (*Seller, error) {
	a := x402seller.New(atrBytes, nil)
	a.ResourcePath = "/agree"
	a.Option.Set("amount", "1")
	merchant, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	ck, err := cardKey()
	if err != nil {
		return nil, err
	}
	s := &Seller{Agreements: a, Merchant: merchant, Issuer: issuer, AgentTAP: agentTAP, CardKey: ck, Now: time.Now}
	s.SetATR(atrBytes)
	return s, nil
}

var (
	keyOnce sync.Once
	theKey  *rsa.PrivateKey
	keyErr  error
)

// cardKey is the seller's encryption key, made once per process.
func cardKey() (*rsa.PrivateKey, error) {
	keyOnce.Do(func() { theKey, keyErr = rsa.GenerateKey(rand.Reader, 2048) })
	return theKey, keyErr
}

// SetATR changes the terms, and the receipt the agreement URL sells.
func (s *Seller) SetATR(b []byte) {
	s.Agreements.SetATR(b)
	h := s.Agreements.Hash()
	s.Agreements.Body = jsonv.Marshal(jsonv.Obj("atrHash", h.String(), "agreed", true, "network", "eip155:84532",
		"transaction", "0x"+strings.Repeat("cd", 32)))
}

// Hash is the hash of the terms.
func (s *Seller) Hash() atr.Hash { return s.Agreements.Hash() }

// URL is the checkout's URL for path.
func (s *Seller) URL(path string) string { return "https://" + s.Agreements.APIHost + path }

// Authority is the host the agent's TAP signature covers.
func (s *Seller) Authority() string { return s.Agreements.APIHost }

// LastRejection is why the last card step was refused.
func (s *Seller) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

func (s *Seller) legalContext(scheme string) (*jsonv.Object, error) {
	h := s.Hash()
	v, err := card.Advertise(h.String(), s.Agreements.Link(h), jsonv.Obj("scheme", scheme, "checkout", Checkout), s.Agreements.ResourceURL())
	if err != nil {
		return nil, err
	}
	return v.LegalContext, nil
}

// Shown is the JSON the checkout shows for scheme visa-tap or
// seller-reference: {checkout, amount, currency, legalContext}.
func (s *Seller) Shown(scheme string) (*jsonv.Object, error) {
	lc, err := s.legalContext(scheme)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("checkout", Checkout, "amount", fmt.Sprint(Amount), "currency", "USD", "legalContext", lc), nil
}

// CheckoutJWT is the merchant-signed checkout JWT carrying the legal
// context, for Verifiable Intent.
func (s *Seller) CheckoutJWT() (string, error) {
	lc, err := s.legalContext("mastercard-vi")
	if err != nil {
		return "", err
	}
	return card.SignJWS(s.Merchant, jsonv.Obj("alg", "ES256", "typ", "JWT", "kid", "merchant-1"),
		jsonv.Obj("iss", "https://seller.example", "checkout", Checkout, "legalContext", lc))
}

// Challenges is the MPP card challenge list, placed.
func (s *Seller) Challenges() ([]jsonv.Value, error) {
	pub := s.CardKey.Public().(*rsa.PublicKey)
	req := jsonv.Obj("amount", fmt.Sprint(Amount), "currency", "usd", "recipient", "merch_1001",
		"methodDetails", jsonv.Obj("acceptedNetworks", []jsonv.Value{"visa", "mastercard"}, "merchantName", "Seller Example",
			"encryptionKey", base64.RawURLEncoding.EncodeToString(pub.N.Bytes())))
	c := jsonv.Obj("realm", s.Agreements.APIHost, "method", "card", "intent", "charge", "request", mpp.EncodeObject(req),
		"expires", s.Now().Add(5*time.Minute).UTC().Format(time.RFC3339))
	h := s.Hash()
	return card.MPPCharge{}.Advertise([]jsonv.Value{c}, h, s.Agreements.Link(h), c, s.Agreements.ResourceURL())
}

// ServeHTTP serves the checkout on the API host; the terms and the
// agreement URL go to Agreements.
func (s *Seller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if hostOnly(r.Host) != hostOnly(s.Agreements.APIHost) || !strings.HasPrefix(r.URL.Path, "/checkout/") {
		s.Agreements.ServeHTTP(w, r)
		return
	}
	var out jsonv.Value
	var err error
	switch r.URL.Path {
	case "/checkout/visa-tap", "/checkout/seller-reference":
		out, err = s.Shown(strings.TrimPrefix(r.URL.Path, "/checkout/"))
	case "/checkout/mastercard-vi":
		out, err = s.CheckoutJWT()
	case "/checkout/mpp":
		s.serveMPP(w, r)
		return
	case "/checkout/pay":
		out, err = s.pay(r)
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		s.Rejected.Add(1)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusPaymentRequired)
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("error", err.Error())))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(jsonv.Marshal(out))
}

func (s *Seller) serveMPP(w http.ResponseWriter, r *http.Request) {
	if v := r.Header.Get("Authorization"); v != "" {
		cred, err := mpp.ParseHeader(v)
		if err == nil {
			var rec *jsonv.Object
			if rec, err = s.chargeMPP(cred); err == nil {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(jsonv.Marshal(rec))
				return
			}
		}
		s.Rejected.Add(1)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
	}
	list, err := s.Challenges()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, c := range list {
		o, _ := jsonv.AsObject(c)
		w.Header().Add("WWW-Authenticate", mpp.ChallengeHeader(o))
	}
	w.WriteHeader(http.StatusPaymentRequired)
}

// agreed is the card step's first check: an agreement to these terms was
// paid at the agreement URL.
func (s *Seller) agreed(h string) error {
	if !atr.EqualText(h, s.Hash()) {
		return errors.New("the card step names other terms")
	}
	if s.Agreements.Paid.Load() == 0 {
		return errors.New("no agreement to these terms was paid")
	}
	return nil
}

// pay takes a card step, by its form: a TAP request (headers
// Signature-Input, Signature, lcp-hash), a Verifiable Intent presentation
// ({l2} or {l1, l2, l3b}), or a plain card ({scheme: seller-reference,
// pan, network}).
func (s *Seller) pay(r *http.Request) (jsonv.Value, error) {
	if si := r.Header.Get("Signature-Input"); si != "" {
		presented := jsonv.Obj("signatureInput", si, "signature", r.Header.Get("Signature"), "lcpHash", lines(r.Header.Values(card.TAPField)))
		h, ok := card.VerifyTAP(presented, r.Host, r.URL.Path, s.AgentTAP, s.Now().Unix())
		if !ok {
			return nil, errors.New("the agent's TAP signature does not verify, or does not cover lcp-hash")
		}
		if err := s.agreed(h); err != nil {
			return nil, err
		}
		return s.charge(h, "visa", "agent TAP signature")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, card.MaxVILayer*3+1024))
	if err != nil {
		return nil, err
	}
	v, err := jsonv.Parse(body)
	if err != nil {
		return nil, err
	}
	o, _ := jsonv.AsObject(v)
	switch {
	case o.Has("l3b"):
		c, err := card.ReadAutonomous(o)
		if err != nil {
			return nil, err
		}
		if err := s.issued(o); err != nil {
			return nil, err
		}
		if err := s.agreed(c.Mandate.H); err != nil {
			return nil, err
		}
		return s.charge(c.Mandate.H, "mastercard", "agent L3b mandate")
	case o.Has("l2"):
		m, err := card.ReadImmediate(o)
		if err != nil {
			return nil, err
		}
		if err := s.userSigned(o); err != nil {
			return nil, err
		}
		if err := s.agreed(m.H); err != nil {
			return nil, err
		}
		return s.charge(m.H, "mastercard", "user L2 mandate")
	case o.Has("pan"):
		pan, _ := o.GetString("pan")
		if len(pan) < 12 {
			return nil, errors.New("no card number")
		}
		// Nothing the buyer sends names the terms: the seller places its
		// own terms' hash in the processor reference.
		if err := s.agreed(s.Hash().String()); err != nil {
			return nil, err
		}
		return s.chargeCard(s.Hash().String(), "visa", pan)
	}
	return nil, errors.New("no card step in the request")
}

func lines(vs []string) []jsonv.Value {
	out := make([]jsonv.Value, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// issued checks L1's issuer signature, what the network does before it
// trusts the key L1 binds.
func (s *Seller) issued(o *jsonv.Object) error {
	l1, _ := o.GetString("l1")
	p, err := sdjwt.Parse(l1)
	if err != nil || !card.VerifyJWS(p.Issuer, s.Issuer) {
		return errors.New("L1 is not the issuer's")
	}
	return nil
}

// userSigned is the network's check of an Immediate L2: L1 the issuer's,
// and L2 signed under the key L1 binds.
func (s *Seller) userSigned(o *jsonv.Object) error {
	if err := s.issued(jsonv.Obj("l1", s.holderL1(o))); err != nil {
		return err
	}
	l1, _ := sdjwt.Parse(s.holderL1(o))
	cnf, _ := l1.Claims.GetObject("cnf")
	jwk, _ := cnf.GetObject("jwk")
	pub, ok := card.PublicKeyOf(jwk)
	l2, _ := o.GetString("l2")
	p, err := sdjwt.Parse(l2)
	if !ok || err != nil || !card.VerifyJWS(p.Issuer, pub) {
		return errors.New("L2 is not signed by the card holder")
	}
	return nil
}

// holderL1 is the L1 the network holds for the card (an Immediate
// presentation carries only L2; the network knows the credential it
// issued by L2's sd_hash).
func (s *Seller) holderL1(o *jsonv.Object) string {
	l2, _ := o.GetString("l2")
	p, err := sdjwt.Parse(l2)
	if err != nil {
		return ""
	}
	sh, _ := p.Issuer.Payload.GetString("sd_hash")
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.credentials[sh]
}

// Enroll tells the network of a card credential it issued (L1).
func (s *Seller) Enroll(l1 string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.credentials == nil {
		s.credentials = map[string]string{}
	}
	s.credentials[sdjwt.Digest(l1)] = l1
}

// chargeMPP is the MPP card charge's check: the echoed challenge is one it
// issued for these terms, the agreement was paid, and the encrypted token
// decrypts under its key to a network token.
func (s *Seller) chargeMPP(cred *jsonv.Object) (*jsonv.Object, error) {
	e, err := card.Echoed(cred)
	if err != nil {
		return nil, err
	}
	if err := s.agreed(e.H.String()); err != nil {
		return nil, err
	}
	enc, _ := e.Payload.GetString("encryptedPayload")
	ct, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return nil, errors.New("the card credential is not encrypted to this seller")
	}
	tok, err := rsa.DecryptOAEP(sha256.New(), nil, s.CardKey, ct, []byte("mpp/charge/card"))
	if err != nil || !strings.HasPrefix(string(tok), "tok_") {
		return nil, errors.New("the card credential does not decrypt to a network token")
	}
	network, _ := e.Payload.GetString("network")
	return s.charge(e.H.String(), network, "network token")
}

func (s *Seller) charge(h, network, by string) (*jsonv.Object, error) {
	return s.record(h, network, by, "")
}

func (s *Seller) chargeCard(h, network, pan string) (*jsonv.Object, error) {
	return s.record(h, network, "card", pan)
}

// record is the processor's record of an accepted charge: the reference
// lcp:sha256:<H> the seller placed, the amount, the merchant, the network
// and the card's last four digits (never the number).
func (s *Seller) record(h, network, by, pan string) (*jsonv.Object, error) {
	s.Paid.Add(1)
	rec := jsonv.Obj("reference", "lcp:sha256:"+h, "amount", fmt.Sprint(Amount), "currency", "USD", "merchant", "merch_1001",
		"network", network, "processor", "demo processor", "status", "succeeded")
	if len(pan) >= 4 {
		rec.Set("panLastFour", pan[len(pan)-4:])
	}
	s.mu.Lock()
	s.charged = append(s.charged, by)
	s.mu.Unlock()
	return rec, nil
}

// EncryptToken is the card wallet's side of the MPP card credential: the
// network token encrypted (RSA-OAEP, SHA-256) to the seller's key.
func EncryptToken(pub *rsa.PublicKey, token string) (string, error) {
	ct, err := rsa.EncryptOAEP(sha256.New(), rand.Reader, pub, []byte(token), []byte("mpp/charge/card"))
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(ct), nil
}

func hostOnly(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		return host[:i]
	}
	return host
}

func base64RawURL(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }

type ecdsaKey = ecdsa.PrivateKey

func newKey() (*ecdsa.PrivateKey, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) }
