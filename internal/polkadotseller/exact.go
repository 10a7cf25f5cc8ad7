// Package polkadotseller is the loopback seller paid on Polkadot Asset Hub
// and its demo row. It checks a payment as the profile's facilitator
// would before submitting it: the extrinsic is a signed v4 one that ends
// with payload.call, the call is exactly the profile's batch of the asked
// transfer to the seller and the terms' hash as the remark, the era is
// mortal; it then submits it to the loopback Sidecar, whose chain checks
// it as the runtime does (signature over the signing payload, era, nonce)
// and lands it, and reads it settled by its timepoint.
package polkadotseller

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
	"github.com/termsgate/termsgate/rails/polkadot"
	"github.com/termsgate/termsgate/rails/polkadot/polkadotrpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: polkadot.ExactID, Aliases: []string{"polkadot"},
		About: "0.01 USDC on Polkadot Asset Hub: a transfer batched with a remark lcp:sha256:H in one signed extrinsic; nonce, runtime versions and the era's block from a loopback Sidecar", Run: demoExact})
}

// Exact sells one resource under x402/exact/polkadot/lcp-assets-remark.
type Exact struct {
	terms.Record
	Node   *polkadotrpc.Node
	RPC    *polkadotrpc.Client
	asset  uint32
	payTo  string
	amount int64

	mu       sync.Mutex
	rejected error
	paid     string
}

const apiHost = "api.seller.example"

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.RPC.Net, "amount", fmt.Sprint(s.amount), "asset", fmt.Sprint(s.asset), "payTo", s.payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("assetTransferMethod", polkadot.TransferMethod))
}

func (s *Exact) required() (*jsonv.Object, error) {
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://"+apiHost+"/v1/report"),
		"accepts", []jsonv.Value{s.option()})
	return x402.Advertise(doc, s.Hash(), "https://atr.seller.example/"+s.Hash().String(), "")
}

func (s *Exact) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", apiHost, func(w http.ResponseWriter, r *http.Request) {
		terms.ServeX402(w, r, &s.mu, &s.rejected, s.accept, s.required, []byte(`{"report":"DOT/USD 4.20","as_of":"2026-12-01"}`))
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
	if acc, _ := payment.GetObject("accepted"); !x402.OptionInDocument(acc, []jsonv.Value{s.option()}) {
		return errors.New("the payment accepts another option")
	}
	c, err := polkadot.Carry(payment)
	if err != nil {
		return err
	}
	if c.H != s.Hash() {
		return errors.New("the payment is not bound to the terms served")
	}
	if !polkadot.Pays(c.Call, s.option()) {
		return errors.New("the call does not move the asked amount of the asset to this seller")
	}
	if x, ok := polkadot.ExtraOf(c.Extrinsic, c.Signed, len(c.CallBytes)); !ok || x.Era.Immortal {
		return errors.New("the extrinsic is not mortal, or has extensions this seller does not read")
	}
	ctx := context.Background()
	hash, err := s.RPC.Submit(ctx, c.Extrinsic)
	if err != nil {
		return fmt.Errorf("the chain refused the extrinsic: %w", err)
	}
	ref, _ := polkadot.PaymentReference(payment)
	tp := s.Node.Landed(ref.ExtrinsicHash)
	if st := polkadot.PaymentStatus(ctx, ref, s.Hash(), tp, s.RPC); st.State != "settled" || st.Finality != "finalized" {
		return fmt.Errorf("submitted %s but its status reads %s %s", hash, st.State, st.Why)
	}
	s.mu.Lock()
	s.paid = tp
	s.mu.Unlock()
	return nil
}

// demoExact pays the seller from the published Polkadot development key on
// Polkadot Asset Hub: nonce, runtime versions and the era's block from the
// loopback Sidecar, an extrinsic batching the transfer with the terms'
// hash as a remark, the seller's checks and submission, then a lying link
// declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const network = "polkadot:68d56f15f85d3136970ec16946040bc1"
	node := polkadotrpc.NewNode(network, 9_000_000)
	nodeSrv, err := loopback.Start(node, "sidecar.polkadot.example")
	if err != nil {
		return fail("cannot start the local Sidecar:", err)
	}
	defer nodeSrv.Close()
	rpc := &polkadotrpc.Client{URL: "https://sidecar.polkadot.example", Net: network, HTTP: nodeSrv.Client()}
	payer, err := signer.PolkadotFromSeed(signer.PolkadotDevSeed, network, rpc)
	if err != nil {
		return fail(err)
	}
	seller := &Exact{Node: node, RPC: rpc, asset: 1337, payTo: "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5", amount: 10_000}
	node.Fund(seller.asset, payer.AccountID(), big.NewInt(1_000_000))
	node.SetNonce(payer.AccountID(), 7)
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	wallet := demo.Count(payer)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: network, Asset: "1337", MaxAmount: big.NewInt(20_000), Budget: big.NewInt(1_000_000), // 0.02 USDC a payment, 1 in all
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
				say("   the policy allows it: %s units of asset %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
					sm.PayableUntil.UTC().Format(time.RFC3339))
				say("   the wallet reads its nonce, the runtime versions and the finalized block %d from Sidecar", node.Head())
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				signed, termsBytes = r.Signed, r.ATR
				ref, _ := polkadot.PaymentReference(r.Signed)
				say("   signed extrinsic %s: utility.batch_all of the transfer and system.remark_with_event(lcp:sha256:H)", ref.ExtrinsicHash)
				say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)", len(r.Header))
			},
		},
	}
	transport.NoATRCache = true // each step fetches and compares, as it prints (the lie in step 4 too)
	client := pay.NewClient(transport)
	url := "https://" + apiHost + "/v1/report"
	say("termsgate demo (%s): a seller on %s (TLS, loopback only) sells %s for 0.01 USDC", polkadot.ExactID, srv.Listener.Addr(), url)
	say("payer: %s (the published Polkadot development key, Ed25519; never hold value with it)", payer.Account())
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
	seller.mu.Lock()
	paid := seller.paid
	seller.mu.Unlock()
	say("   the seller checked the call, the remark and the era; the chain checked the signature and nonce and landed it")
	say("   at %s, read settled (Assets.Transferred and System.Remarked); it answered %d: %s", paid, resp.StatusCode, body)
	offer, _ := seller.required()
	if err := s.KeepPayment(termsBytes, x402.EncodeHeader(offer), signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(fmt.Sprint(seller.amount), 6, "USDC", network))
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
