// Package tvmseller is the loopback seller paid on TON and its demo row. It
// checks a payment as the facilitator and the payer's W5 wallet would
// before relaying it: the message goes to the payer's wallet, its request's
// Ed25519 signature verifies under the wallet's key over the request cell's
// hash, the wallet id and seqno are the wallet's, the request has not
// expired, and its one action sends the asked amount out of the payer's
// Jetton wallet to the seller with the terms' comment as forward payload.
// It relays nothing.
package tvmseller

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/tvm"
	"github.com/termsgate/termsgate/rails/tvm/tvmrpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: tvm.ExactID, Aliases: []string{"tvm", "ton"},
		About: "0.01 USDT on TON: a W5 wallet's signed Jetton transfer whose forward payload is the comment lcp:sha256:H; seqno, wallet id and Jetton wallet from a loopback TON Center", Run: demoExact})
}

// Exact sells one resource under x402/exact/tvm.
type Exact struct {
	terms.Record
	Node                  *tvmrpc.Node
	PublicKey             ed25519.PublicKey // the payer wallet's key, as its contract holds it
	network, asset, payTo string
	amount                int64
	Now                   func() time.Time

	mu       sync.Mutex
	rejected error
	paid     string
}

const apiHost = "api.seller.example"

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.network, "amount", fmt.Sprint(s.amount), "asset", s.asset, "payTo", s.payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("areFeesSponsored", true))
}

func (s *Exact) required() (*jsonv.Object, error) {
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://"+apiHost+"/v1/report"),
		"accepts", []jsonv.Value{s.option()})
	doc, err := x402.Advertise(doc, s.Hash(), "https://atr.seller.example/"+s.Hash().String(), "")
	if err != nil {
		return nil, err
	}
	return doc, tvm.Place(doc, 0, s.Hash())
}

func (s *Exact) placed() *jsonv.Object {
	doc, _ := s.required()
	accepts, _ := doc.Get("accepts")
	o, _ := jsonv.AsObject(accepts.([]jsonv.Value)[0])
	return o
}

func (s *Exact) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", apiHost, func(w http.ResponseWriter, r *http.Request) {
		terms.ServeX402(w, r, &s.mu, &s.rejected, s.accept, s.required, []byte(`{"report":"TON/USD 5.40","as_of":"2026-12-01"}`))
	})
}

// LastRejection is why the last payment was refused, nil when taken.
func (s *Exact) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rejected
}

func (s *Exact) accept(header string) error {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return err
	}
	if acc, _ := payment.GetObject("accepted"); !x402.OptionInDocument(acc, []jsonv.Value{s.placed()}) {
		return errors.New("the payment accepts another option")
	}
	if h, err := (tvm.Exact{}).Bound(payment); err != nil || h != s.Hash().String() {
		return fmt.Errorf("the payment is not bound to the terms served: %v", err)
	}
	boc, _ := jsonv.AsString(demo.Path(payment, "payload", "settlementBoc"))
	op, err := tvm.Open(boc)
	if err != nil {
		return err
	}
	wallet, _ := tvm.ParseAddress(s.Node.Wallet)
	if *op.Wallet != *wallet {
		return errors.New("the message is not to the payer's wallet")
	}
	h := op.Request.Hash()
	if !ed25519.Verify(s.PublicKey, h[:], op.Signature) {
		return errors.New("the signature does not verify under the wallet's key")
	}
	sent := op.Sent
	if sent.WalletID != s.Node.WalletID || sent.Seqno != s.Node.Seqno {
		return fmt.Errorf("wallet id %d seqno %d, the wallet's are %d and %d", sent.WalletID, sent.Seqno, s.Node.WalletID, s.Node.Seqno)
	}
	if now := uint64(s.Now().Unix()); sent.ValidUntil <= now {
		return fmt.Errorf("expired: valid until %d, now %d", sent.ValidUntil, now)
	}
	payTo, _ := tvm.ParseAddress(s.payTo)
	jw, _ := tvm.ParseAddress(s.Node.JettonWallet)
	if *sent.JettonWallet != *jw || *sent.PayTo != *payTo || sent.Amount.Cmp(big.NewInt(s.amount)) != 0 || sent.H != s.Hash().String() {
		return errors.New("the transfer is not the asked amount out of the payer's Jetton wallet to this seller with the terms' comment")
	}
	s.mu.Lock()
	s.paid = fmt.Sprintf("%x", h)
	s.mu.Unlock()
	return nil
}

// demoExact pays the seller from the vectors' Ed25519 seed (01 × 32) on TON
// mainnet's id: seqno, wallet id and Jetton wallet from the loopback TON
// Center, a W5 request whose transfer carries the terms' comment, the
// seller's checks, then a lying link declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const (
		network = "tvm:-239"
		wallet  = "0:1da21a6e33ef22840029ae77900f61ba820b94e813a3b7bef4e3ea471007645f"
		usdt    = "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe"
		seed    = "0101010101010101010101010101010101010101010101010101010101010101"
	)
	payer, err := signer.TVMFromSeedHex(seed, wallet, network)
	if err != nil {
		return fail(err)
	}
	node := &tvmrpc.Node{Wallet: wallet, Jetton: usdt, JettonWallet: "0:1111111111111111111111111111111111111111111111111111111111111111",
		Seqno: 5, WalletID: 2147483409}
	seller := &Exact{Node: node, PublicKey: payer.PublicKey(), network: network, asset: usdt,
		payTo: "0:92433a576cbe56c4dcc86d94b497a2cf18a9baa9c8283fea28ea43eb3c25cfed", amount: 10_000, Now: time.Now}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	nodeSrv, err := loopback.Start(node, "toncenter.example")
	if err != nil {
		return fail("cannot start the local TON Center:", err)
	}
	defer nodeSrv.Close()
	inputs := &tvmrpc.Inputs{Client: &tvmrpc.Client{URL: "https://toncenter.example", HTTP: nodeSrv.Client(), Wallet: wallet, Jetton: usdt}}
	counted := demo.Count(payer)
	// The grant names the Jetton wallet the request sends from, so the limit does too.
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: network, Asset: node.JettonWallet, MaxAmount: big.NewInt(20_000), Budget: big.NewInt(1_000_000),
	}}})
	if err != nil {
		return fail(err)
	}
	var signed jsonv.Value
	var termsBytes []byte
	transport := &pay.Transport{
		Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: counted, Policy: policy, Inputs: inputs.For,
		Hooks: pay.Hooks{
			BeforeSign: func(_ context.Context, _ *http.Request, sm pay.Summary) error {
				say("   fetched the terms; SHA-256 matches the advertised H = %s", sm.H)
				say("   from TON Center (GET /api/v3/walletInformation, /api/v3/jetton/wallets): seqno %d, wallet id %d, Jetton wallet %s",
					node.Seqno, node.WalletID, node.JettonWallet)
				say("   the policy allows it: %s units out of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
					sm.PayableUntil.UTC().Format(time.RFC3339))
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				signed, termsBytes = r.Signed, r.ATR
				ref, _ := tvm.PaymentReference(r.Signed)
				say("   signed the W5 request whose transfer body %s carries the comment lcp:sha256:H", ref.TransferBodyHash)
				say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)", len(r.Header))
			},
		},
	}
	transport.NoATRCache = true // each step fetches and compares, as it prints (the lie in step 4 too)
	client := pay.NewClient(transport)
	url := "https://" + apiHost + "/v1/report"
	say("termsgate demo (x402/exact/tvm): a seller on %s (TLS, loopback only) sells %s for 0.01 USDT on TON", srv.Listener.Addr(), url)
	say("payer: %s (the vectors' development seed 01×32; never hold value with it)", payer.Account())
	say("")
	say("1. GET %s: 402 with PAYMENT-REQUIRED, the terms' hash, link and comment (extra.forwardPayload)", url)
	say("2. the gate fetches the terms, compares SHA-256 of the bytes with H, asks the policy, and only then signs")
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := client.Do(req)
	if err != nil {
		if e := inputs.Err(); e != nil {
			return fail("not paid:", err, e)
		}
		return fail("not paid:", err)
	}
	body := demo.Read(resp)
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Sprintf("the seller refused the payment (%d):", resp.StatusCode), seller.LastRejection())
	}
	seller.mu.Lock()
	paid := seller.paid
	seller.mu.Unlock()
	say("   the seller took the message apart, verified the Ed25519 signature over the request hash %s,", paid)
	say("   checked wallet id, seqno, expiry, the transfer and its comment, and answered %d: %s", resp.StatusCode, body)
	offer, _ := seller.required()
	if err := s.KeepPayment(termsBytes, x402.EncodeHeader(offer), signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(fmt.Sprint(seller.amount), 6, "USDT", network))
	say("")
	say("4. the same seller now serves other bytes at the link while its 402 still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := counted.Calls()
	_, err = client.Get(url)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s: %s", d.Code, d.Detail)
	say("   signer calls for it: %d; nothing was sent", counted.Calls()-before)
	return nil
}
