// Package nearseller is the loopback seller paid on NEAR and its demo row.
// It checks a payment as a facilitator and the runtime would before
// relaying it: the signed delegate action decodes canonically, its
// signature verifies under the payer's access key as the node holds it,
// its nonce is above the key's, its block height bound is not past, and
// its one ft_transfer moves the asked amount of the token to the seller
// with the terms' hash as the memo, 1 yoctoNEAR attached. It then relays it
// on the loopback node and reads the outcome back through the relayer.
package nearseller

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
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
	"github.com/termsgate/termsgate/rails/near"
	"github.com/termsgate/termsgate/rails/near/nearrpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: near.ExactID, Aliases: []string{"near"},
		About: "1 USDC on NEAR testnet: an ft_transfer whose memo is lcp:sha256:H inside a NEP-366 delegate action; key nonce and final height from a loopback RPC node", Run: demoExact})
}

// Exact sells one resource under x402/exact/near.
type Exact struct {
	terms.Record
	Node         *nearrpc.Node
	RPC          *nearrpc.Client
	asset, payTo string
	amount       int64
	relayer      string

	mu       sync.Mutex
	rejected error
	paid     string
}

const apiHost = "api.seller.example"

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.RPC.Net, "amount", fmt.Sprint(s.amount), "asset", s.asset, "payTo", s.payTo,
		"maxTimeoutSeconds", 60)
}

func (s *Exact) required() (*jsonv.Object, error) {
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://"+apiHost+"/v1/report"),
		"accepts", []jsonv.Value{s.option()})
	return x402.Advertise(doc, s.Hash(), "https://atr.seller.example/"+s.Hash().String(), "")
}

func (s *Exact) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", apiHost, func(w http.ResponseWriter, r *http.Request) {
		terms.ServeX402(w, r, &s.mu, &s.rejected, s.accept, s.required, []byte(`{"report":"NEAR/USD 2.40","as_of":"2026-12-01"}`))
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
	if h, err := (near.Exact{}).Bound(payment); err != nil || h != s.Hash().String() {
		return fmt.Errorf("the payment is not bound to the terms served: %v", err)
	}
	text, _ := jsonv.AsString(demo.Path(payment, "payload", "signedDelegateAction"))
	c, err := near.DecodeSDA(text)
	if err != nil {
		return err
	}
	d := c.Signed.Action
	keyNonce, ok := s.Node.KeyNonce(d.SenderID, d.PublicKey.String())
	if !ok || d.PublicKey.Type != near.KeyEd25519 || c.Signed.SigType != near.KeyEd25519 {
		return errors.New("the delegate action's key is not an Ed25519 access key of its sender")
	}
	h := d.SigningHash()
	if !ed25519.Verify(d.PublicKey.Data, h[:], c.Signed.Sig) {
		return errors.New("the signature does not verify under the access key")
	}
	ctx := context.Background()
	height, err := s.RPC.FinalHeight(ctx)
	if err != nil || d.Nonce <= keyNonce || d.MaxBlockHeight < height {
		return fmt.Errorf("nonce %d (key at %d) or height bound %d (final %d) refused: %v", d.Nonce, keyNonce, d.MaxBlockHeight, height, err)
	}
	to, _ := c.Args.GetString("receiver_id")
	amount, _ := c.Args.GetString("amount")
	a := d.Actions[0]
	if d.ReceiverID != s.asset || to != s.payTo || amount != fmt.Sprint(s.amount) || a.Deposit.Cmp(big.NewInt(1)) != 0 {
		return errors.New("the transfer is not the asked amount of the token to this seller with 1 yoctoNEAR")
	}
	txHash := hex.EncodeToString(h[:8])
	s.Node.Relay(txHash, s.relayer, c.Signed, false)
	ref, _ := near.PaymentReference(payment)
	ref.Transaction = txHash
	if st := near.PaymentStatus(ctx, ref, s.RPC); st.State != "settled" {
		return fmt.Errorf("relayed %s but its status reads %s %s", txHash, st.State, st.Why)
	}
	s.mu.Lock()
	s.paid = txHash
	s.mu.Unlock()
	return nil
}

// demoExact pays the seller from the vectors' NEAR seed's implicit account
// on testnet: the key's nonce and the final height from the loopback RPC
// node, a delegate action whose ft_transfer memo carries the terms' hash,
// the seller's checks and relay, then a lying link declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const network = "near:testnet"
	payer, err := signer.NearFromSeed(signer.NearDevSeed, network, "")
	if err != nil {
		return fail(err)
	}
	node := &nearrpc.Node{Height: 200_000_000}
	account := payer.Account()[len(network)+1:]
	node.SetKey(account, payer.PublicKey(), 100)
	nodeSrv, err := loopback.Start(node, "rpc.near.example")
	if err != nil {
		return fail("cannot start the local RPC node:", err)
	}
	defer nodeSrv.Close()
	rpc := &nearrpc.Client{URL: "https://rpc.near.example", Net: network, HTTP: nodeSrv.Client(), Published: []string{"relayer.testnet"}}
	seller := &Exact{Node: node, RPC: rpc, asset: "usdc.testnet", payTo: "merchant.testnet", amount: 1_000_000, relayer: "relayer.testnet"}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	inputs := &nearrpc.Inputs{Client: rpc, Account: account, PublicKey: payer.PublicKey()}
	wallet := demo.Count(payer)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: network, Asset: seller.asset, MaxAmount: big.NewInt(2_000_000), Budget: big.NewInt(10_000_000),
	}}})
	if err != nil {
		return fail(err)
	}
	var signed jsonv.Value
	var termsBytes []byte
	transport := &pay.Transport{
		Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: wallet, Policy: policy, Inputs: inputs.For,
		Hooks: pay.Hooks{
			BeforeSign: func(_ context.Context, _ *http.Request, sm pay.Summary) error {
				say("   fetched the terms; SHA-256 matches the advertised H = %s", sm.H)
				say("   the key's nonce and the final height from the RPC node (view_access_key, block): 100, %d", node.Height)
				say("   the policy allows it: %s units of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
					sm.PayableUntil.UTC().Format(time.RFC3339))
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				signed, termsBytes = r.Signed, r.ATR
				ref, _ := near.PaymentReference(r.Signed)
				say("   signed the delegate action (nonce %d, valid to height %d) whose ft_transfer memo is lcp:sha256:H", ref.Nonce, ref.MaxBlockHeight)
				say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)", len(r.Header))
			},
		},
	}
	transport.NoATRCache = true // each step fetches and compares, as it prints (the lie in step 4 too)
	client := pay.NewClient(transport)
	url := "https://" + apiHost + "/v1/report"
	say("termsgate demo (x402/exact/near): a seller on %s (TLS, loopback only) sells %s for 1 USDC", srv.Listener.Addr(), url)
	say("payer: %s (the vectors' published seed; never hold value with it)", payer.Account())
	say("")
	say("1. GET %s: 402 with PAYMENT-REQUIRED, the terms' hash and link", url)
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
	say("   the seller decoded the delegate action canonically, verified it under the access key, checked nonce, height,")
	say("   transfer and memo, relayed it as %s and read it settled; it answered %d: %s", paid, resp.StatusCode, body)
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
