// Package suiseller is the loopback seller paid on Sui and its demo row.
// It checks a payment as a facilitator and the network would before
// executing it: the transaction decodes canonically, carries the terms'
// hash as its one unused Pure input, is bounded by an epoch not yet past,
// is signed by its sender's Ed25519 key over the intent message, and moves
// the asked amount of SUI to the seller; it then executes it on the
// loopback node and reads its status back by digest.
package suiseller

import (
	"context"
	"encoding/base64"
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
	"github.com/termsgate/termsgate/rails/sui"
	"github.com/termsgate/termsgate/rails/sui/suirpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: sui.ExactID, Aliases: []string{"sui"},
		About: "0.00001 SUI on Sui testnet: H as the one unused Pure input of the payer's transaction; gas, epoch and coins from a loopback full node", Run: demoExact})
}

// Exact sells one resource under x402/exact/sui.
type Exact struct {
	terms.Record
	Node   *suirpc.Node
	RPC    *suirpc.Client
	payTo  string
	amount uint64

	mu       sync.Mutex
	rejected error
	paid     string
}

const apiHost = "api.seller.example"

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.RPC.Net, "amount", fmt.Sprint(s.amount), "asset", sui.SUI, "payTo", s.payTo,
		"maxTimeoutSeconds", 60)
}

func (s *Exact) required() (*jsonv.Object, error) {
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://"+apiHost+"/v1/report"),
		"accepts", []jsonv.Value{s.option()})
	return x402.Advertise(doc, s.Hash(), "https://atr.seller.example/"+s.Hash().String(), "")
}

func (s *Exact) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", apiHost, func(w http.ResponseWriter, r *http.Request) {
		terms.ServeX402(w, r, &s.mu, &s.rejected, s.accept, s.required, []byte(`{"report":"SUI/USD 3.10","as_of":"2026-12-01"}`))
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
	if h, err := (sui.Exact{}).Bound(payment); err != nil || h != s.Hash().String() {
		return fmt.Errorf("the payment is not bound to the terms served: %v", err)
	}
	ref, err := sui.PaymentReference(payment)
	if err != nil {
		return err
	}
	ctx := context.Background()
	epoch, err := s.RPC.Epoch(ctx)
	if err != nil || ref.UntilEpoch < epoch {
		return fmt.Errorf("the transaction's epoch bound %d has passed (epoch %d, %v)", ref.UntilEpoch, epoch, err)
	}
	text, _ := jsonv.AsString(demo.Path(payment, "payload", "transaction"))
	sig, _ := jsonv.AsString(demo.Path(payment, "payload", "signature"))
	tx, raw, err := sui.DecodeTransaction(text)
	if err != nil {
		return err
	}
	if !sui.VerifySignature(sig, raw, tx.Sender) {
		return errors.New("the signature is not the sender's over the transaction")
	}
	if !sui.Pays(tx, s.option()) || tx.GasOwner != tx.Sender || len(tx.GasPayment) == 0 {
		return errors.New("the transaction does not move the asked SUI to this seller from the sender's own gas")
	}
	rawSig, _ := base64.StdEncoding.DecodeString(sig)
	digest := s.Node.Execute(raw, rawSig, true, 7)
	if st := sui.PaymentStatus(ctx, ref, s.Hash(), s.RPC); st.State != "settled" {
		return fmt.Errorf("executed %s but its status reads %s %s", digest, st.State, st.Why)
	}
	s.mu.Lock()
	s.paid = digest
	s.mu.Unlock()
	return nil
}

// demoExact pays the seller from the published Sui development key on
// testnet's id: gas price, epoch and a gas coin from the loopback node, a
// transfer carrying the terms' hash as an unused input, the seller's
// checks and execution, then a lying link declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const network = "sui:testnet"
	node := &suirpc.Node{GasPrice: 1000, Epoch: 1233}
	nodeSrv, err := loopback.Start(node, "fullnode.sui.example")
	if err != nil {
		return fail("cannot start the local full node:", err)
	}
	defer nodeSrv.Close()
	rpc := &suirpc.Client{URL: "https://fullnode.sui.example", Net: network, HTTP: nodeSrv.Client()}
	payer, err := signer.SuiFromSeed(signer.SuiDevSeed, network, rpc)
	if err != nil {
		return fail(err)
	}
	node.AddCoin(payer.Address(), sui.SUI, sui.Coin{Ref: sui.ObjectRef{ID: sui.Address{0x5c}, Version: 42, Digest: [32]byte{0xd1}}, Balance: 1_000_000_000})
	seller := &Exact{Node: node, RPC: rpc, payTo: "0x209693bc6afc0c5328ba36faf03c514ef312287c209693bc6afc0c5328ba36fa", amount: 10_000}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	wallet := demo.Count(payer)
	// A Sui signature stays good until the epoch after the current one has
	// passed: up to two epochs, which the policy must allow.
	policy, err := pay.NewPolicy(pay.PolicyConfig{MaxPayable: 2 * sui.EpochSeconds * time.Second, Limits: []pay.Limit{{
		Network: network, Asset: sui.SUI, MaxAmount: big.NewInt(20_000), Budget: big.NewInt(1_000_000), // 0.00002 SUI a payment, 0.001 in all
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
				say("   the policy allows it: %s MIST of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
					sm.PayableUntil.UTC().Format(time.RFC3339))
				say("   the wallet reads the gas price %d, epoch %d and its gas coin from the full node (JSON-RPC)", node.GasPrice, node.Epoch)
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				signed, termsBytes = r.Signed, r.ATR
				ref, _ := sui.PaymentReference(r.Signed)
				say("   signed transaction %s, valid until epoch %d, H as its one unused Pure input", ref.Digest, ref.UntilEpoch)
				say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)", len(r.Header))
			},
		},
	}
	transport.NoATRCache = true // each step fetches and compares, as it prints (the lie in step 4 too)
	client := pay.NewClient(transport)
	url := "https://" + apiHost + "/v1/report"
	say("termsgate demo (x402/exact/sui): a seller on %s (TLS, loopback only) sells %s for 0.00001 SUI", srv.Listener.Addr(), url)
	say("payer: %s (the published Sui development key; never hold value with it)", payer.Account())
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
	say("   the seller decoded the transaction canonically, verified the sender's signature over its intent message,")
	say("   checked the epoch bound and the transfer, executed %s and read it settled; it answered %d: %s", paid, resp.StatusCode, body)
	offer, _ := seller.required()
	if err := s.KeepPayment(termsBytes, x402.EncodeHeader(offer), signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(fmt.Sprint(seller.amount), 9, "SUI", network))
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
