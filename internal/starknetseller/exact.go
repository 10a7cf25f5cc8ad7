// Package starknetseller is the loopback seller paid on Starknet and its
// demo row. It checks a payment as a facilitator and the account contract
// would before submitting it as the fee payer: the payment is bound to the
// terms served (the signed nonce is the terms' hash's low 250 bits), the
// typed data is SNIP-9 v2's OutsideExecution of the option's transfer with
// this seller's fee payer as Caller, and the loopback node's account
// contract verifies the Stark-curve signature over its SNIP-12 hash when
// the seller submits it; the seller then reads the transaction settled by
// its receipt and trace.
package starknetseller

import (
	"context"
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
	"github.com/termsgate/termsgate/rails/starknet"
	"github.com/termsgate/termsgate/rails/starknet/starknetrpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: starknet.ExactID, Aliases: []string{"starknet"},
		About: "0.00001 STRK on Starknet Sepolia: H's low 250 bits as the SNIP-9 nonce of the payer's signed outside execution; the seller submits it as fee payer to a loopback node", Run: demoExact})
}

// The demo's network, asset (STRK), fee payer and payee.
const (
	Network  = "starknet:SN_SEPOLIA"
	STRK     = "0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"
	FeePayer = "0x5f2e02acd59f37f1e19da7ea1db6bf31d49e6e5ba66a7f1c2f0e2ba1be36f81"
	PayTo    = "0x2dd1b492765c064eac4039e3841aa5f382773b598097a40073bd8b48170ab57"
)

// Exact sells one resource under x402/exact/starknet.
type Exact struct {
	terms.Record
	Node   *starknetrpc.Node
	RPC    *starknetrpc.Client
	Amount string
	Now    func() time.Time

	mu       sync.Mutex
	rejected error
	paid     starknet.Felt
}

const apiHost = "api.seller.example"

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", Network, "amount", s.Amount, "asset", STRK, "payTo", PayTo,
		"maxTimeoutSeconds", 300, "extra", jsonv.Obj("feePayer", FeePayer))
}

func (s *Exact) required() (*jsonv.Object, error) {
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://"+apiHost+"/v1/quote"),
		"accepts", []jsonv.Value{s.option()})
	return x402.Advertise(doc, s.Hash(), "https://atr.seller.example/"+s.Hash().String(), "")
}

func (s *Exact) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", apiHost, func(w http.ResponseWriter, r *http.Request) {
		terms.ServeX402(w, r, &s.mu, &s.rejected, s.accept, s.required, []byte(`{"quote":"STRK/USD 0.14","as_of":"2026-12-01"}`))
	})
}

// LastRejection is why the last payment was refused, nil when taken.
func (s *Exact) LastRejection() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rejected
}

// Paid is the transaction of the last payment taken.
func (s *Exact) Paid() starknet.Felt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paid
}

func (s *Exact) accept(header string) error {
	payment, err := x402.DecodeHeader(header)
	if err != nil {
		return err
	}
	if acc, _ := payment.GetObject("accepted"); !x402.OptionInDocument(acc, []jsonv.Value{s.option()}) {
		return errors.New("the payment accepts another option")
	}
	if h, err := (starknet.Exact{}).Bound(payment); err != nil || h != s.Hash().String() {
		return fmt.Errorf("the payment is not bound to the terms served: %v", err)
	}
	ref, err := starknet.PaymentReference(payment)
	if err != nil {
		return err
	}
	signed, err := starknet.ReadSigned(payment)
	if err != nil {
		return err
	}
	oe, tr, err := starknet.ReadTypedData(signed.TypedData, Network)
	if err != nil {
		return err
	}
	feePayer, _ := starknet.ParseFelt(FeePayer)
	want, _ := new(big.Int).SetString(s.Amount, 10)
	if oe.Caller != feePayer || tr.Asset.String() != STRK || tr.PayTo.String() != PayTo || tr.Amount.Cmp(want) != 0 {
		return errors.New("the outside execution does not pay the option through this seller's fee payer")
	}
	tx, err := s.Node.ExecuteFromOutside(feePayer, signed.From, oe, signed.Signature, s.Now().Unix())
	if err != nil {
		return fmt.Errorf("the node refused the outside execution: %w", err)
	}
	ref.Transaction = &tx
	if st := starknet.PaymentStatus(context.Background(), ref, s.RPC); st.State != "settled" {
		return fmt.Errorf("submitted %s but its status reads %s %s", tx, st.State, st.Why)
	}
	s.mu.Lock()
	s.paid = tx
	s.mu.Unlock()
	return nil
}

// demoExact pays the seller from the published devnet key's account on
// Sepolia's chain id: the wallet reads the account's public key and the
// nonce's freshness from the loopback node, signs the outside execution,
// the seller submits it as fee payer and reads it settled; then a lying
// link is declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	node := &starknetrpc.Node{Net: Network, Block: 900}
	nodeSrv, err := loopback.Start(node, "starknet-node.example")
	if err != nil {
		return fail("cannot start the local node:", err)
	}
	defer nodeSrv.Close()
	rpc := &starknetrpc.Client{URL: "https://starknet-node.example", Net: Network}
	rpc.HTTP.HTTP = nodeSrv.Client()
	payer, err := signer.NewStarknet(signer.StarknetDevKey, signer.StarknetDevAccount, Network, rpc)
	if err != nil {
		return fail(err)
	}
	account, _ := starknet.ParseFelt(signer.StarknetDevAccount)
	strk, _ := starknet.ParseFelt(STRK)
	node.Deploy(account, payer.PublicKey())
	node.Mint(strk, account, big.NewInt(1_000_000_000_000_000))
	seller := &Exact{Node: node, RPC: rpc, Amount: "10000000000000", Now: time.Now}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	wallet := demo.Count(payer)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: Network, Asset: STRK, MaxAmount: big.NewInt(20_000_000_000_000), Budget: big.NewInt(1_000_000_000_000_000), // 0.00002 STRK a payment, 0.001 in all
	}}})
	if err != nil {
		return fail(err)
	}
	var signed jsonv.Value
	var termsBytes []byte
	transport := &pay.Transport{
		Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: wallet, Policy: policy,
		Hooks: pay.Hooks{
			BeforeSign: func(_ context.Context, _ *http.Request, sm pay.Summary) error {
				say("   fetched the terms; SHA-256 matches the advertised H = %s", sm.H)
				say("   the policy allows it: %s of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
					sm.PayableUntil.UTC().Format(time.RFC3339))
				say("   the wallet reads its account's public key and the nonce's freshness from the node (starknet_call)")
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				signed, termsBytes = r.Signed, r.ATR
				ref, _ := starknet.PaymentReference(r.Signed)
				say("   signed the SNIP-12 outside execution, nonce %s (H's low 250 bits), executable until %d", ref.Nonce, ref.SettleBy)
				say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)", len(r.Header))
			},
		},
	}
	transport.NoATRCache = true // each step fetches and compares, as it prints (the lie in step 4 too)
	client := pay.NewClient(transport)
	url := "https://" + apiHost + "/v1/quote"
	say("termsgate demo (x402/exact/starknet): a seller on %s (TLS, loopback only) sells %s for 0.00001 STRK", srv.Listener.Addr(), url)
	say("payer: %s (the published starknet-devnet key; never hold value with it)", payer.Account())
	say("")
	say("1. GET %s: 402 with PAYMENT-REQUIRED, the terms' hash and link", url)
	say("2. the gate fetches the terms, compares SHA-256 of the bytes with H, asks the policy, and only then signs")
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return fail("not paid:", err)
	}
	body := demo.Read(resp)
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Sprintf("the seller refused the payment (%d):", resp.StatusCode), seller.LastRejection())
	}
	say("   the seller checked the binding and the transfer, submitted execute_from_outside_v2 as fee payer (the account")
	say("   contract verified the Stark signature), read %s settled; it answered %d: %s", seller.Paid(), resp.StatusCode, body)
	offer, _ := seller.required()
	if err := s.KeepPayment(termsBytes, x402.EncodeHeader(offer), signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(seller.Amount, 18, "STRK", Network))
	say("")
	say("4. the same seller now serves other bytes at the link while its 402 still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := wallet.Calls()
	_, err = client.Get(url)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s: %s", d.Code, d.Detail)
	say("   signer calls for it: %d; nothing was sent", wallet.Calls()-before)
	return nil
}
