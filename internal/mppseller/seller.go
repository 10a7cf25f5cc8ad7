// Package mppseller is a small MPP seller that publishes its terms (an ATR)
// under the Legal Context Protocol: it answers 402 with a WWW-Authenticate:
// Payment challenge for mpp/charge/tempo/memo whose opaque carries
// legalContext and the ATR link, and accepts an Authorization: Payment
// credential only after checking it: the signed Tempo transaction carries the
// attribution memo of a challenge this seller issued for the ATR it serves,
// pays the amount to the recipient it asked for on its chain, and its
// signature recovers to the payer the credential names. The demo and the
// tests pay it; it broadcasts and settles nothing.
package mppseller

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

// Seller serves an ATR and one resource paid by a Tempo pull charge.
type Seller struct {
	ATRHost, APIHost string // host names the links use
	ResourcePath     string
	Realm            string
	Amount           string         // base units of Currency
	Currency         common.Address // a TIP-20 token
	Recipient        string         // the payee, as written in the challenge
	ChainID          int64
	Body             []byte        // what a paid request gets
	ChallengeTTL     time.Duration // how long a challenge may be answered
	Now              func() time.Time

	// The published terms: SetATR, Lie, Hash and the ATRFetches counter.
	terms.Record

	// Counters, for tests and the demo's printout.
	Unpaid, Paid, Rejected atomic.Int64

	secret [32]byte // binds the challenges it issues (MPP leaves binding to the seller)

	mu      sync.Mutex
	lastErr error
	payer   string
}

// New returns a seller of body under terms atrBytes: 1 pathUSD on Tempo
// Moderato (the vectors' C_T), to the vectors' recipient.
func New(atrBytes, body []byte) *Seller {
	s := &Seller{
		ATRHost: "atr.seller.example", APIHost: "api.seller.example", ResourcePath: "/v1/report",
		Realm: "api.seller.example", Amount: "1000000", Currency: tempo.PathUSD,
		Recipient: "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00", ChainID: mpp.TempoChargeDefaultChain,
		Body: body, ChallengeTTL: 5 * time.Minute, Now: time.Now,
	}
	s.SetATR(atrBytes)
	if _, err := rand.Read(s.secret[:]); err != nil {
		panic(fmt.Sprintf("mppseller: no randomness: %v", err)) // crypto/rand does not fail on supported platforms
	}
	return s
}

// LastRejection is why the last credential was refused, if one was.
func (s *Seller) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// Payer is the address the last accepted credential's signature recovered
// to.
func (s *Seller) Payer() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.payer
}

// ResourceURL is the paid resource's URL.
func (s *Seller) ResourceURL() string { return "https://" + s.APIHost + s.ResourcePath }

// Link is the ATR's URL for hash h.
func (s *Seller) Link(h atr.Hash) string { return "https://" + s.ATRHost + "/" + h.String() }

// request is the Tempo charge request the challenge carries.
func (s *Seller) request() *jsonv.Object {
	return jsonv.Obj("amount", s.Amount, "currency", strings.ToLower(s.Currency.Hex()), "recipient", s.Recipient,
		"methodDetails", jsonv.Obj("chainId", s.ChainID, "supportedModes", []jsonv.Value{"pull"}))
}

// binding is the seller's own opaque key: an HMAC over what it issued, so
// that it recognises an echoed challenge without keeping state. LCP's id
// names H, so the MPP-recommended HMAC id is not available to it.
func (s *Seller) binding(c *jsonv.Object) string {
	mac := hmac.New(sha256.New, s.secret[:])
	for _, k := range []string{"realm", "method", "intent", "request", "expires"} {
		mac.Write([]byte(mpp.String(c, k)))
		mac.Write([]byte{'|'})
	}
	return mpp.EncodeB64URL(mac.Sum(nil))
}

// Challenges is the challenge list a 402 carries: one Tempo pull charge,
// placed with H and the link.
func (s *Seller) Challenges() ([]jsonv.Value, error) {
	expires := s.Now().Add(s.ChallengeTTL).UTC().Format("2006-01-02T15:04:05Z")
	c := jsonv.Obj("realm", s.Realm, "method", "tempo", "intent", "charge",
		"request", mpp.EncodeObject(s.request()), "expires", expires)
	c.Set("opaque", mpp.EncodeObject(jsonv.Obj("binding", s.binding(c))))
	h := s.Hash()
	return mpp.Place([]jsonv.Value{c}, h, s.Link(h), c, "")
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
	// A credential is the Payment scheme, in Payment-Authorization or in
	// Authorization; another scheme in Authorization (a caller's Bearer
	// token) is not one.
	header := r.Header.Get(mpp.PaymentAuthorization)
	if a := r.Header.Get("Authorization"); header == "" && len(a) >= 8 && strings.EqualFold(a[:8], "payment ") {
		header = a
	}
	if header == "" {
		s.Unpaid.Add(1)
		s.paymentRequired(w, nil)
		return
	}
	reference, err := s.verify(header)
	if err != nil {
		s.Rejected.Add(1)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
		s.paymentRequired(w, err)
		return
	}
	s.Paid.Add(1)
	receipt := jsonv.Obj("method", "tempo", "reference", reference, "status", "success",
		"timestamp", s.Now().UTC().Format(time.RFC3339))
	w.Header().Set("Payment-Receipt", mpp.EncodeB64URL(jsonv.Marshal(receipt)))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.Body)
}

// paymentRequired answers 402 with a fresh challenge and, after a refused
// credential, the MPP problem for its reason.
func (s *Seller) paymentRequired(w http.ResponseWriter, reason error) {
	doc, err := s.Challenges()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, c := range doc {
		o, _ := jsonv.AsObject(c)
		w.Header().Add("WWW-Authenticate", mpp.ChallengeHeader(o))
	}
	w.Header().Set("Cache-Control", "no-store")
	status, typ := http.StatusPaymentRequired, "https://paymentauth.org/problems/payment-required"
	detail := "payment required"
	if reason != nil {
		code := "verification-failed"
		var ref *rails.Refusal
		if errors.As(reason, &ref) {
			code = ref.Code
		}
		status, typ = mpp.Problem(code)
		detail = reason.Error()
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_, _ = w.Write(jsonv.Marshal(jsonv.Obj("type", typ, "status", status, "detail", detail)))
}

// verify checks a credential as a seller must before it broadcasts the
// transaction, and returns the transaction's hash.
func (s *Seller) verify(header string) (reference string, err error) {
	cred, err := mpp.ParseHeader(header)
	if err != nil {
		return "", err
	}
	h, err := tempo.Memo{}.Bound(cred) // the memo names the echoed challenge, whose id names H
	if err != nil {
		return "", err
	}
	if want := s.Hash().String(); h != want {
		return "", fmt.Errorf("the credential carries %s, not the hash of the terms served, %s", h, want)
	}
	challenge, _ := cred.GetObject("challenge")
	m, _ := mpp.DecodeStringMap(mpp.String(challenge, "opaque"))
	if got := mpp.String(m, "binding"); !hmac.Equal([]byte(got), []byte(s.binding(challenge))) {
		return "", errors.New("the challenge is not one this seller issued")
	}
	if mpp.String(challenge, "request") != mpp.EncodeObject(s.request()) || mpp.String(challenge, "realm") != s.Realm {
		return "", errors.New("the challenge asks for another payment than this seller's")
	}
	expires, _ := mpp.UnixOf(mpp.String(challenge, "expires"))
	if expires <= s.Now().Unix() {
		return "", errors.New("the challenge has expired")
	}
	payload, _ := cred.GetObject("payload")
	wire, _ := mpp.HexBytes(mpp.String(payload, "signature"), 1, tempo.MaxWireBytes)
	tx, err := tempo.DecodeTx(wire)
	if err != nil {
		return "", err
	}
	if tx.ChainID.Cmp(big.NewInt(s.ChainID)) != 0 {
		return "", fmt.Errorf("the transaction is for chain %s, not %d", tx.ChainID, s.ChainID)
	}
	if err := s.pays(tx, challenge); err != nil {
		return "", err
	}
	who, err := tx.Sender()
	if err != nil {
		return "", fmt.Errorf("the transaction's signature does not recover: %w", err)
	}
	from, ok := strings.CutPrefix(mpp.String(cred, "source"), "did:pkh:eip155:"+strconv.FormatInt(s.ChainID, 10)+":")
	if !ok || !mpp.IsAddress(from) || common.HexToAddress(from) != who {
		return "", fmt.Errorf("the signature recovers to %s, not the payer %s", who.Hex(), mpp.String(cred, "source"))
	}
	s.mu.Lock()
	s.payer = who.Hex()
	s.mu.Unlock()
	return "0x" + common.Bytes2Hex(crypto.Keccak256(wire)), nil
}

// pays checks that the memo call pays the amount asked to the recipient.
func (s *Seller) pays(tx *tempo.DecodedTx, challenge *jsonv.Object) error {
	realm, id := mpp.String(challenge, "realm"), mpp.String(challenge, "id")
	amount, _ := new(big.Int).SetString(s.Amount, 10)
	recipient := common.HexToAddress(s.Recipient)
	for _, c := range tx.Calls {
		memo, ok := tempo.MemoOf(c, s.Currency)
		if !ok || mpp.CheckAttributionBytes(memo, realm, id) != nil {
			continue
		}
		if common.BytesToAddress(c.Input[16:36]) != recipient || new(big.Int).SetBytes(c.Input[36:68]).Cmp(amount) != 0 {
			return errors.New("the transfer pays another amount or payee")
		}
		return nil
	}
	return errors.New("no transfer carries this challenge's memo")
}
