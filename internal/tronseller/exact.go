// Package tronseller is the loopback seller paid on Tron and its demo row.
// It checks a payment as a facilitator and the network would before
// broadcasting it: the transaction decodes canonically, its one signature
// recovers to its owner over the id, it references a block the node holds
// (TaPoS), it has not expired, and its one contract calls transfer on the
// asked token for the asked amount to the seller with the terms' hash as
// the memo. It broadcasts nothing.
package tronseller

import (
	"context"
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
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tron"
	"github.com/termsgate/termsgate/rails/tron/tronrpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: tron.ExactID, Aliases: []string{"tron"},
		About: "0.01 USDT on Tron: a TRC-20 transfer whose memo (raw_data.data) is lcp:sha256:H; the reference block from a loopback FullNode", Run: demoExact})
}

// Exact sells one resource under x402/exact/tron/lcp-trc20-memo.
type Exact struct {
	terms.Record
	Node                  *tronrpc.Node
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
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("assetTransferMethod", tron.AssetTransferMethod))
}

func (s *Exact) required() (*jsonv.Object, error) {
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://"+apiHost+"/v1/report"),
		"accepts", []jsonv.Value{s.option()})
	return x402.Advertise(doc, s.Hash(), "https://atr.seller.example/"+s.Hash().String(), "")
}

func (s *Exact) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", apiHost, func(w http.ResponseWriter, r *http.Request) {
		terms.ServeX402(w, r, &s.mu, &s.rejected, s.accept, s.required, []byte(`{"report":"TRX/USD 0.27","as_of":"2026-12-01"}`))
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
	if h, err := (tron.Exact{}).Bound(payment); err != nil || h != s.Hash().String() {
		return fmt.Errorf("the payment is not bound to the terms served: %v", err)
	}
	text, _ := jsonv.AsString(demo.Path(payment, "payload", "transaction"))
	tx, err := tron.DecodeTx(text)
	if err != nil {
		return err
	}
	id := tron.TxID(tx.RawBytes)
	r := tx.Raw
	if len(tx.Signatures) != 1 {
		return errors.New("not single-signed")
	}
	signer, ok := tron.Recover(id, tx.Signatures[0])
	if !ok || string(signer[:]) != string(r.Owner) {
		return errors.New("the signature does not recover to the transaction's owner")
	}
	block := s.Node.ID()
	if hex.EncodeToString(r.RefBlockBytes) != hex.EncodeToString(block[6:8]) || hex.EncodeToString(r.RefBlockHash) != hex.EncodeToString(block[8:16]) {
		return errors.New("the transaction references a block the node does not hold")
	}
	now := uint64(s.Now().UnixMilli())
	if r.Expiration <= now || r.Expiration > r.Timestamp+24*3600*1000 {
		return fmt.Errorf("expired or too far out: expiration %d, now %d", r.Expiration, now)
	}
	to, amount, ok := tron.Transfer(r.CallData)
	asset, _ := tron.ParseAddress(s.asset)
	payTo, _ := tron.ParseAddress(s.payTo)
	if !ok || to != payTo || string(r.ContractAddress) != string(asset[:]) || new(big.Int).SetBytes(amount).Cmp(big.NewInt(s.amount)) != 0 ||
		string(r.Data) != mpp.LegalContextValue(s.Hash()) {
		return errors.New("the transfer is not the asked amount of the token to this seller with the terms' hash as its memo")
	}
	if r.FeeLimit > tron.MaxFeeLimit {
		return errors.New("the fee limit is above the network's")
	}
	s.mu.Lock()
	s.paid = hex.EncodeToString(id[:])
	s.mu.Unlock()
	return nil
}

// demoExact pays the seller from the published Anvil key on Tron mainnet's
// id: the reference block from the loopback FullNode, a transfer whose
// memo carries the terms' hash, the seller's checks, then a lying link
// declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const network = "tron:728126428"
	payer, err := signer.TronFromHex(signer.AnvilKey, network)
	if err != nil {
		return fail(err)
	}
	node := &tronrpc.Node{Number: 86_542_765, Timestamp: time.Now().UnixMilli()}
	copy(node.Hash[:], "termsgate demo block hash")
	seller := &Exact{Node: node, network: network, asset: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
		payTo: "TCwX1UeSkVfu43HD5xNMmFqDR2Xgjdxihx", amount: 10_000, Now: time.Now}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	nodeSrv, err := loopback.Start(node, "fullnode.example")
	if err != nil {
		return fail("cannot start the local FullNode:", err)
	}
	defer nodeSrv.Close()
	inputs := &tronrpc.Inputs{Client: &tronrpc.Client{URL: "https://fullnode.example", HTTP: nodeSrv.Client()}}
	wallet := demo.Count(payer)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: network, Asset: seller.asset, MaxAmount: big.NewInt(20_000), Budget: big.NewInt(1_000_000), // 0.02 USDT a payment, 1 in all
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
				say("   the reference block from the FullNode (POST /wallet/getnowblock): %d", node.Number)
				say("   the policy allows it: %s units of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
					sm.PayableUntil.UTC().Format(time.RFC3339))
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				signed, termsBytes = r.Signed, r.ATR
				ref, _ := tron.PaymentReference(r.Signed)
				say("   signed the id %s of a transfer whose memo is lcp:sha256:H", ref.TxID)
				say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)", len(r.Header))
			},
		},
	}
	transport.NoATRCache = true // each step fetches and compares, as it prints (the lie in step 4 too)
	client := pay.NewClient(transport)
	url := "https://" + apiHost + "/v1/report"
	say("termsgate demo (x402/exact/tron/lcp-trc20-memo): a seller on %s (TLS, loopback only) sells %s for 0.01 USDT-TRC20", srv.Listener.Addr(), url)
	say("payer: %s (the published Anvil development key; never hold value with it)", payer.Account())
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
	say("   the seller decoded the transaction canonically, recovered its owner from the signature over %s,", paid)
	say("   checked the reference block, the expiration, the transfer and the memo, and answered %d: %s", resp.StatusCode, body)
	offer, _ := seller.required()
	if err := s.KeepPayment(termsBytes, x402.EncodeHeader(offer), signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(fmt.Sprint(seller.amount), 6, "USDT", network))
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
