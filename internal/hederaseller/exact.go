// Package hederaseller is the loopback sellers paid on Hedera
// (x402/exact/hedera, mpp/charge/hedera) and their demo rows, with a loopback Mirror Node
// answering in its documented shapes. A seller checks a payment as its fee
// payer and the network would before submitting it: the payer's Ed25519
// signature over the body bytes exactly as sent (crypto/ed25519, under the
// key it holds for the payer's account (the one the network lists for it)), the memo carrying the
// hash of the terms it serves, the transfer of its price to its account
// under its fee payer's transaction id; then it co-signs and verifies both
// signature pairs. It submits nothing.
package hederaseller

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/hedera/mirror"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: hedera.ExactID, Aliases: []string{"hedera"},
		About: "0.00001 HBAR on Hedera testnet: the signed body's memo is H's LCP string; inputs from a loopback Mirror Node",
		Run:   runExact})
}

// The demo's accounts: the payer (its key the published HederaDevSeed),
// the payee and the fee payer (its key the published seed 08×32).
const (
	Testnet      = "hedera:testnet"
	Payer        = "0.0.5555"
	PayTo        = "0.0.1234"
	FeePayer     = "0.0.1235"
	Node         = "0.0.3"
	FeePayerSeed = "0808080808080808080808080808080808080808080808080808080808080808"
	price        = "1000"
)

func seedKey(s string) ed25519.PrivateKey {
	b, _ := hex.DecodeString(s)
	return ed25519.NewKeyFromSeed(b)
}

// Mirror is a loopback Mirror Node answering /api/v1/network/nodes (one
// node) as the Mirror Node does.
type Mirror struct{}

func (m *Mirror) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/api/v1/network/nodes":
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("nodes", []jsonv.Value{jsonv.Obj("node_id", 0, "node_account_id", Node)},
			"links", jsonv.Obj("next", nil))))
	default:
		http.NotFound(w, r)
	}
}

// Exact sells under x402/exact/hedera.
type Exact struct {
	terms.Record
	feePayer ed25519.PrivateKey
	keys     map[string]ed25519.PublicKey // what the Mirror Node lists
	body     []byte
	mu       sync.Mutex
	lastErr  error
	landed   string
}

// NewExact returns a seller of body under atrBytes that knows the accounts'
// keys as the Mirror Node lists them.
func NewExact(atrBytes, body []byte, keys map[string]ed25519.PublicKey) *Exact {
	s := &Exact{feePayer: seedKey(FeePayerSeed), keys: keys, body: body}
	s.SetATR(atrBytes)
	return s
}

func (s *Exact) required() (*jsonv.Object, error) {
	h := s.Hash()
	option, err := hedera.PlaceOption(jsonv.Obj("scheme", "exact", "network", Testnet, "amount", price, "asset", hedera.HBAR,
		"payTo", PayTo, "maxTimeoutSeconds", 60, "extra", jsonv.Obj("feePayer", FeePayer)))
	if err != nil {
		return nil, err
	}
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/report"), "accepts", []jsonv.Value{option})
	return x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
}

func (s *Exact) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", "api.seller.example", func(w http.ResponseWriter, r *http.Request) {
		doc, err := s.required()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if header := r.Header.Get("PAYMENT-SIGNATURE"); header != "" {
			err := s.settle(header)
			s.mu.Lock()
			s.lastErr = err
			s.mu.Unlock()
			if err == nil {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(s.body)
				return
			}
		}
		w.Header().Set("PAYMENT-REQUIRED", x402.EncodeHeader(doc))
		w.WriteHeader(http.StatusPaymentRequired)
	})
}

// settle reads the wire Transaction with protowire field by field, as the
// node does: {5: SignedTransaction {1: bodyBytes, 2: SignatureMap}}.
func (s *Exact) settle(header string) error {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return err
	}
	payload, _ := payment.GetObject("payload")
	text, _ := payload.GetString("transaction")
	wire, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return err
	}
	signedTx, ok := only(wire, 5)
	if !ok {
		return errors.New("not a Transaction with only signedTransactionBytes")
	}
	bodyBytes, ok1 := fieldBytes(signedTx, 1)
	sigMap, ok2 := fieldBytes(signedTx, 2)
	if !ok1 || !ok2 {
		return errors.New("the SignedTransaction lacks its body or signature map")
	}
	body, ok := hedera.ReadBody(bodyBytes)
	if !ok || body.ID.Account.String() != FeePayer || body.Memo != hedera.Carrier(s.Hash()) {
		return errors.New("the body is not under this fee payer's id with the memo carrying these terms")
	}
	if len(body.HBAR) != 2 || body.Token != nil || body.HBAR[0].Amount != -1000 ||
		body.HBAR[1].Account.String() != PayTo || body.HBAR[1].Amount != 1000 {
		return errors.New("the transfer is not the price to this seller's account")
	}
	payerKey, known := s.keys[body.HBAR[0].Account.String()]
	if !known {
		return errors.New("no key known for the debited account")
	}
	pair, ok := fieldBytes(sigMap, 1)
	pub, okP := fieldBytes(pair, 1)
	sig, okS := fieldBytes(pair, 3)
	if !ok || !okP || !okS || !bytes.Equal(pub, payerKey) || !ed25519.Verify(payerKey, bodyBytes, sig) {
		return errors.New("the payer's Ed25519 signature over the body bytes does not verify under its listed key")
	}
	// Co-sign as fee payer: a second pair in the map, then both verify.
	feeSig := ed25519.Sign(s.feePayer, bodyBytes)
	feePub := s.feePayer.Public().(ed25519.PublicKey)
	if !ed25519.Verify(feePub, bodyBytes, feeSig) {
		return errors.New("the fee payer's signature does not verify")
	}
	s.mu.Lock()
	s.landed = body.ID.Text()
	s.mu.Unlock()
	return nil
}

// only is the one field num of message b (bytes), when b has no other.
func only(b []byte, num protowire.Number) ([]byte, bool) {
	var out []byte
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 || n != num || typ != protowire.BytesType || out != nil {
			return nil, false
		}
		v, m := protowire.ConsumeBytes(b[l:])
		if m < 0 {
			return nil, false
		}
		out, b = v, b[l+m:]
	}
	return out, out != nil
}

// fieldBytes is the first bytes field num of message b.
func fieldBytes(b []byte, num protowire.Number) ([]byte, bool) {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil, false
		}
		m := protowire.ConsumeFieldValue(n, typ, b[l:])
		if m < 0 {
			return nil, false
		}
		if n == num && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[l:])
			return v, true
		}
		b = b[l+m:]
	}
	return nil, false
}

// runExact pays the Hedera seller: the option from its 402, the buyer's
// inputs from a loopback Mirror Node, the gate's checks and one signature
// over the body, the seller's checks; then the lying link, declined
// unsigned.
func runExact(ctx context.Context, s *demo.Session) error {
	key, err := signer.NewHedera(Testnet+":"+Payer, signer.HederaDevSeed)
	if err != nil {
		return err
	}
	keys := map[string]ed25519.PublicKey{Payer: key.PublicKey(), FeePayer: seedKey(FeePayerSeed).Public().(ed25519.PublicKey)}
	seller := NewExact(demo.ATR, []byte(`{"report":"HBAR/USD 0.2712","as_of":"2026-12-01"}`), keys)
	node := &Mirror{}
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "localhost") {
			node.ServeHTTP(w, r)
			return
		}
		seller.ServeHTTP(w, r)
	}))
	if err != nil {
		return demo.Fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	mc := &mirror.Client{URL: "https://localhost", HTTP: client, Of: Testnet}
	wallet := demo.Count(key)
	const resource = "https://api.seller.example/v1/report"
	s.Say("termsgate demo (x402/exact/hedera): a seller on %s (TLS, loopback only) sells %s", srv.Listener.Addr(), resource)
	s.Say("payer: %s (the published seed 07×32; never hold value with it)", key.Account())
	s.Say("")
	s.Say("1. GET %s", resource)
	resp, _, err := demo.Get(ctx, client, resource, "", "")
	if err != nil {
		return err
	}
	doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
	if resp.StatusCode != http.StatusPaymentRequired || err != nil {
		return demo.Fail("no readable 402:", err)
	}
	s.Say("   402: %s tinybars of HBAR to %s on %s, fee payer %s", price, PayTo, Testnet, FeePayer)
	inputs, err := mc.Inputs(ctx, hedera.HBAR, time.Now().Unix()-10)
	if err != nil {
		return demo.Fail(err)
	}
	s.Say("2. the buyer's inputs from a Mirror Node (/api/v1/network/nodes): %s", jsonv.Marshal(inputs))
	s.Say("   the gate fetches the terms, compares SHA-256 with H, writes the body with memo lcp:sha256:H, and signs")
	paid, err := g.Transact(ctx, doc, hedera.ExactID, wallet, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		return demo.Fail("not paid:", err)
	}
	in, err := hedera.Exact{}.Inspect(paid.Signed)
	if err != nil {
		return demo.Fail(err)
	}
	s.Say("   signed (signer calls: %d); the body's memo carries H = %s", wallet.Calls(), in.H)
	s.Say("3. the same GET with PAYMENT-SIGNATURE")
	resp, body, err := demo.Get(ctx, client, resource, "PAYMENT-SIGNATURE", x402.EncodeHeader(paid.Signed))
	if err != nil {
		return err
	}
	seller.mu.Lock()
	rejected, landed := seller.lastErr, seller.landed
	seller.mu.Unlock()
	if resp.StatusCode != http.StatusOK {
		return demo.Fail("the seller refused the payment:", rejected)
	}
	s.Say("   the seller read the transaction field by field, verified the payer's Ed25519 signature over the body bytes")
	s.Say("   under the payer account's key, the memo and the transfer, co-signed as fee payer (%s)", landed)
	s.Say("   and answered %d: %s", resp.StatusCode, body)
	if err := s.KeepPayment(paid.Bytes, x402.EncodeHeader(doc), paid.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(price, 8, "HBAR", Testnet))
	s.Say("")
	s.Say("4. the link now serves other bytes while the 402 still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := wallet.Calls()
	_, err = g.Transact(ctx, doc, hedera.ExactID, wallet, &gate.TransactOptions{Inputs: inputs})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return demo.Fail("the changed terms were not declined:", err)
	}
	s.Say("   declined %s; signer calls for it: %d", d.Code, wallet.Calls()-before)
	return nil
}
