package pay_test

import (
	"bytes"
	"encoding/hex"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// termlessEnv is the loopback x402 seller of newEnv publishing no terms: its
// 402 has no legalContext and it accepts any nonce (x402seller.Plain).
func termlessEnv(t *testing.T, cfg pay.PolicyConfig) *env {
	t.Helper()
	e := newEnv(t, nil)
	e.seller.Plain = true
	policy, err := pay.NewPolicy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.transport.Policy = policy
	return e
}

func limit(max int64) []pay.Limit {
	return []pay.Limit{{Network: network, MaxAmount: big.NewInt(max)}}
}

// noncesSent reads the EIP-3009 nonce of every PAYMENT-SIGNATURE the seller
// received.
func noncesSent(t *testing.T, e *env) []string {
	t.Helper()
	var out []string
	for _, s := range e.requests("api.seller.example") {
		if s.Signature == "" {
			continue
		}
		p, err := x402.DecodeHeader(s.Signature)
		if err != nil {
			t.Fatal(err)
		}
		nonce, err := evm.ExactEIP3009{}.UnboundNonce(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, nonce)
	}
	return out
}

// Without the opt-in, an x402 seller that publishes no terms is declined
// exactly as before (the vectors pin offer-unreadable,
// x402/no-legal-context): nothing fetched, nothing signed.
func TestUnboundDeclinedByDefault(t *testing.T) {
	e := termlessEnv(t, pay.PolicyConfig{Limits: limit(10000)})
	_, _, err := get(t, e.client, e.seller.ResourceURL())
	mustDecline(t, err, gate.OfferUnreadable, x402.CodeNoLegalContext)
	if n := e.signer.calls.Load(); n != 0 {
		t.Fatalf("%d signer calls", n)
	}
	if n := e.seller.ATRFetches.Load(); n != 0 || e.seller.Paid.Load() != 0 {
		t.Fatalf("%d fetches, %d paid", n, e.seller.Paid.Load())
	}
}

// With PolicyConfig.AllowUnbound it pays, one signature per payment, each
// under a fresh random nonce that is no H; the result, the summary and the
// log say unbound; nothing is fetched.
func TestUnboundX402PaidWithOptIn(t *testing.T) {
	e := termlessEnv(t, pay.PolicyConfig{Limits: limit(10000), AllowUnbound: true})
	var logs bytes.Buffer
	var mu sync.Mutex
	e.transport.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	var nonces []string
	for i := range 2 {
		resp, body, err := get(t, e.client, e.seller.ResourceURL())
		if err != nil || resp.StatusCode != http.StatusOK || string(body) != paidBody {
			t.Fatalf("payment %d: %v %q (%v; seller: %v)", i, resp, body, err, e.seller.LastRejection())
		}
		r := pay.ResultOf(resp)
		if r == nil || !r.Unbound || !r.Summary.Unbound || r.ATR != nil || r.H != (atr.Hash{}) || r.Pairing != evm.ExactEIP3009ID {
			t.Fatalf("result %+v", r)
		}
		if !strings.Contains(r.Summary.String(), "UNBOUND") {
			t.Fatalf("summary %q does not say unbound", r.Summary)
		}
		if u, _ := r.Summary.JSON().Get("unbound"); u != true {
			t.Fatalf("summary JSON %s", jsonv.String(r.Summary.JSON()))
		}
		nonces = append(nonces, r.Nonce)
	}
	if n := e.signer.calls.Load(); n != 2 {
		t.Fatalf("%d signer calls for 2 payments", n)
	}
	if e.seller.ATRFetches.Load() != 0 {
		t.Fatal("an unbound payment fetched terms")
	}
	sent := noncesSent(t, e)
	if len(sent) != 2 || sent[0] != nonces[0] || sent[1] != nonces[1] {
		t.Fatalf("sent %v, results %v", sent, nonces)
	}
	if nonces[0] == nonces[1] {
		t.Fatalf("two payments share the nonce %s", nonces[0])
	}
	a, c := vectorATRs(t)
	for _, n := range nonces {
		if !rails32(n) || n == atr.Sum(a).String() || n == atr.Sum(c).String() || n == e.seller.Hash().String() || n == atr.Sum(nil).String() {
			t.Fatalf("nonce %q is no random 32 bytes", n)
		}
	}
	if got := logs.String(); !strings.Contains(got, "paying unbound") || strings.Count(got, "unbound=true") != 2 {
		t.Fatalf("log does not mark the payments unbound:\n%s", got)
	}
}

func rails32(s string) bool {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	return err == nil && len(b) == 32 && strings.HasPrefix(s, "0x")
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// The spend limits apply to an unbound payment as to any: over the maximum
// it is refused unsigned, and a budget counts it.
func TestUnboundStillLimited(t *testing.T) {
	e := termlessEnv(t, pay.PolicyConfig{Limits: limit(9999), AllowUnbound: true})
	_, _, err := get(t, e.client, e.seller.ResourceURL())
	mustDecline(t, err, gate.NoPayableOption, pay.DetailAmountAboveMaximum)
	if n := e.signer.calls.Load(); n != 0 {
		t.Fatalf("%d signer calls over the limit", n)
	}

	e = termlessEnv(t, pay.PolicyConfig{AllowUnbound: true,
		Limits: []pay.Limit{{Network: network, MaxAmount: big.NewInt(10000), Budget: big.NewInt(15000)}}})
	if resp, _, err := get(t, e.client, e.seller.ResourceURL()); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("first payment: %v", err)
	}
	_, _, err = get(t, e.client, e.seller.ResourceURL())
	mustDecline(t, err, gate.NoPayableOption, pay.DetailBudgetExhausted)
	if n := e.signer.calls.Load(); n != 1 {
		t.Fatalf("%d signer calls, want 1", n)
	}
}

// The gate's TransactUnbound under a Policy without the opt-in is refused
// by the Policy (policy/unbound-not-allowed), unsigned.
func TestTransactUnboundNeedsThePolicysOptIn(t *testing.T) {
	e := termlessEnv(t, pay.PolicyConfig{Limits: limit(10000)})
	doc, err := e.seller.Required()
	if err != nil {
		t.Fatal(err)
	}
	policy, _ := pay.NewPolicy(pay.PolicyConfig{Limits: limit(10000)})
	_, err = (&gate.Gate{Policy: policy}).TransactUnbound(t.Context(), doc, evm.ExactEIP3009ID, e.signer, nil)
	mustDecline(t, err, gate.NoPayableOption, pay.DetailUnboundNotAllowed)
	if e.signer.calls.Load() != 0 {
		t.Fatal("signed")
	}
	// An offer that advertises terms is never read as one without.
	e.seller.Plain = false
	doc, _ = e.seller.Required()
	_, err = (&gate.Gate{}).TransactUnbound(t.Context(), doc, evm.ExactEIP3009ID, e.signer, nil)
	mustDecline(t, err, gate.OfferUnreadable, x402.CodeLegalContextPresent)
	if e.signer.calls.Load() != 0 {
		t.Fatal("signed")
	}
}

// An offer whose legal context is there but broken is no offer without
// terms: the opt-in does not make it payable.
func TestUnboundNotForBrokenTerms(t *testing.T) {
	e := newEnv(t, func(e *env, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(pay.HeaderSignature) == "" && r.Host != e.seller.ATRHost {
				doc, _ := e.seller.Required()
				ext, _ := doc.GetObject("extensions")
				lc, _ := ext.GetObject("legalContext")
				info, _ := lc.GetObject("info")
				info.Set("legalContextUrl", "http://atr.seller.example/terms")
				w.Header().Set(pay.HeaderRequired, x402.EncodeHeader(doc))
				w.WriteHeader(http.StatusPaymentRequired)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	policy, _ := pay.NewPolicy(pay.PolicyConfig{Limits: limit(10000), AllowUnbound: true})
	e.transport.Policy = policy
	_, _, err := get(t, e.client, e.seller.ResourceURL())
	mustDecline(t, err, gate.OfferUnreadable, x402.CodeLinkNotHTTPS)
	if e.signer.calls.Load() != 0 {
		t.Fatal("signed")
	}
}

// plainChallenge is an MPP challenge as a seller without the Legal Context
// Protocol issues it: its own id, no LCP keys.
func plainChallenge(id, method string, request *jsonv.Object) *jsonv.Object {
	return jsonv.Obj("id", id, "realm", "api.seller.example", "method", method, "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", time.Now().Add(5*time.Minute).UTC().Format("2006-01-02T15:04:05Z"))
}

// A plain MPP seller of an EVM charge paid by authorization: each 402 is a
// fresh challenge with a random id; a credential is accepted when its
// challenge is one it issued, its nonce is the challenge hash of that id and
// realm, and its EIP-3009 signature recovers to its from.
type plainMPPSeller struct {
	mu      sync.Mutex
	issued  map[string]bool
	nonces  []string
	paid    atomic.Int64
	lastErr error
}

func (s *plainMPPSeller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		cid := "hmac-" + strings.ReplaceAll(time.Now().Format(time.RFC3339Nano), ":", "")
		request := jsonv.Obj("amount", "10000", "currency", usdc, "recipient", payee,
			"methodDetails", jsonv.Obj("chainId", 84532, "credentialTypes", []jsonv.Value{"authorization"}))
		s.mu.Lock()
		s.issued[cid] = true
		s.mu.Unlock()
		w.Header().Set("WWW-Authenticate", mpp.ChallengeHeader(plainChallenge(cid, "evm", request)))
		w.WriteHeader(http.StatusPaymentRequired)
		return
	}
	err := s.verify(auth)
	s.mu.Lock()
	s.lastErr = err
	s.mu.Unlock()
	if err != nil {
		w.WriteHeader(http.StatusPaymentRequired)
		return
	}
	s.paid.Add(1)
	_, _ = w.Write([]byte("paid"))
}

func (s *plainMPPSeller) verify(auth string) error {
	cred, err := mpp.ParseHeader(auth)
	if err != nil {
		return err
	}
	challenge, _ := cred.GetObject("challenge")
	payload, _ := cred.GetObject("payload")
	id, _ := challenge.GetString("id")
	realm, _ := challenge.GetString("realm")
	s.mu.Lock()
	known := s.issued[id]
	s.mu.Unlock()
	if !known {
		return errString("a challenge this seller did not issue")
	}
	want := mpp.ChallengeHash(id, realm)
	nonce, _ := payload.GetString("nonce")
	if nonce != "0x"+hex.EncodeToString(want[:]) {
		return errString("the nonce is not the challenge hash")
	}
	auth0 := jsonv.Obj()
	for _, k := range []string{"from", "to", "value", "validAfter", "validBefore", "nonce"} {
		v, _ := payload.GetString(k)
		auth0.Set(k, v)
	}
	digest, err := evm.TypedDataDigest(evm.TransferWithAuthorization("USDC", "2", 84532, usdc, auth0))
	if err != nil {
		return err
	}
	sigText, _ := payload.GetString("signature")
	sig, _ := evm.HexBytes(sigText)
	who, err := evm.Recover(digest, sig)
	if err != nil {
		return err
	}
	if from, _ := auth0.GetString("from"); !strings.EqualFold(who.Hex(), from) {
		return errString("the signature is not the payer's")
	}
	s.mu.Lock()
	s.nonces = append(s.nonces, nonce)
	s.mu.Unlock()
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }

// An MPP EVM charge without terms: declined by default (mpp/no-legal-context,
// unsigned), paid with the opt-in by one signature whose nonce is the
// challenge hash of the seller's own id, which the seller verifies.
func TestUnboundMPPAuthorization(t *testing.T) {
	seller := &plainMPPSeller{issued: map[string]bool{}}
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	s := anvil(t)
	inputs := func(pairing string) *jsonv.Object {
		return jsonv.Obj("tokenDomain", jsonv.Obj("name", "USDC", "version", "2"))
	}
	off, _ := pay.NewPolicy(pay.PolicyConfig{Limits: limit(10000)})
	tr := &pay.Transport{Base: srv.Transport(), Signer: s, Policy: off, Inputs: inputs}
	_, _, err = get(t, pay.NewClient(tr), "https://api.seller.example/v1/report")
	mustDecline(t, err, gate.OfferUnreadable, mpp.CodeNoLegalContext)
	if s.calls.Load() != 0 {
		t.Fatal("signed without the opt-in")
	}

	on, _ := pay.NewPolicy(pay.PolicyConfig{Limits: limit(10000), AllowUnbound: true})
	tr.Policy = on
	resp, body, err := get(t, pay.NewClient(tr), "https://api.seller.example/v1/report")
	if err != nil || resp.StatusCode != http.StatusOK || string(body) != "paid" {
		t.Fatalf("got %v %q (%v; seller: %v)", resp, body, err, seller.lastErr)
	}
	r := pay.ResultOf(resp)
	if r == nil || !r.Unbound || r.Pairing != evm.MPPAuthorizationID || r.Protocol != pay.ProtocolMPP {
		t.Fatalf("result %+v", r)
	}
	if s.calls.Load() != 1 || seller.paid.Load() != 1 || len(seller.nonces) != 1 || seller.nonces[0] != r.Nonce {
		t.Fatalf("%d signer calls, %d paid, nonces %v, result nonce %s", s.calls.Load(), seller.paid.Load(), seller.nonces, r.Nonce)
	}
}

// A pairing without unbound payments declines an offer without terms, with
// the opt-in, naming itself: here an MPP Tempo charge.
func TestUnboundNotSupportedNamesThePairing(t *testing.T) {
	request := jsonv.Obj("amount", "1000000", "currency", pathUSD, "recipient", mppPayee)
	challenge := plainChallenge("seller-own-id", "tempo", request)
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", mpp.ChallengeHeader(challenge))
		w.WriteHeader(http.StatusPaymentRequired)
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	l, err := signer.FromHex(signer.AnvilKey, tempoNetwork)
	if err != nil {
		t.Fatal(err)
	}
	s := &countingSigner{Signer: l}
	on, _ := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: tempoNetwork, MaxAmount: big.NewInt(1000000)}}, AllowUnbound: true})
	tr := &pay.Transport{Base: srv.Transport(), Signer: s, Policy: on}
	_, _, err = get(t, pay.NewClient(tr), "https://api.seller.example/v1/report")
	d := mustDecline(t, err, gate.NoPayableOption, gate.DetailUnboundNotSupported)
	if d.Detail != gate.UnboundNotSupported(mpp.PairingTempoMemo) {
		t.Fatalf("detail %q", d.Detail)
	}
	if s.calls.Load() != 0 {
		t.Fatal("signed")
	}
}
