// Package cardanoseller is the loopback seller paid on Cardano and its demo
// row. It checks a payment as a facilitator and the ledger would before
// submitting it: the transaction decodes strictly, its body commits to
// auxiliary data whose CIP-20 message carries the terms' hash, its TTL has
// not passed, it pays the asked lovelace to the seller, and it is
// witnessed by its inputs' keys over its id; it then submits it to the
// loopback node (whose ledger checks inputs, witnesses, balance and fee)
// and reads its status back by transaction id.
package cardanoseller

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
	"github.com/termsgate/termsgate/rails/cardano"
	"github.com/termsgate/termsgate/rails/cardano/cardanorpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: cardano.ExactID, Aliases: []string{"cardano"},
		About: "2 ADA on Cardano preprod: H as a CIP-20 message (label 674) under the body's auxiliary data hash; outputs, fees and tip from a loopback Blockfrost-compatible node", Run: demoExact})
}

// Exact sells one resource under x402/exact/cardano.
type Exact struct {
	terms.Record
	Node   *cardanorpc.Node
	RPC    *cardanorpc.Client
	payTo  string
	amount uint64

	mu       sync.Mutex
	rejected error
	paid     string
}

const apiHost = "api.seller.example"

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.RPC.Net, "amount", fmt.Sprint(s.amount), "asset", cardano.Lovelace, "payTo", s.payTo,
		"maxTimeoutSeconds", 60)
}

func (s *Exact) required() (*jsonv.Object, error) {
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://"+apiHost+"/v1/report"),
		"accepts", []jsonv.Value{s.option()})
	return x402.Advertise(doc, s.Hash(), "https://atr.seller.example/"+s.Hash().String(), "")
}

func (s *Exact) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Route(w, r, "atr.seller.example", apiHost, func(w http.ResponseWriter, r *http.Request) {
		terms.ServeX402(w, r, &s.mu, &s.rejected, s.accept, s.required, []byte(`{"report":"ADA/USD 0.41","as_of":"2026-12-01"}`))
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
	if h, err := (cardano.Exact{}).Bound(payment); err != nil || h != s.Hash().String() {
		return fmt.Errorf("the payment is not bound to the terms served: %v", err)
	}
	ref, err := cardano.PaymentReference(payment)
	if err != nil {
		return err
	}
	ctx := context.Background()
	tip, err := s.RPC.Tip(ctx)
	if err != nil || tip.Slot >= ref.TTLSlot {
		return fmt.Errorf("the transaction's TTL %d has passed (slot %d, %v)", ref.TTLSlot, tip.Slot, err)
	}
	text, _ := jsonv.AsString(demo.Path(payment, "payload", "transaction"))
	tx, err := cardano.DecodeTransaction(text)
	if err != nil {
		return err
	}
	if !cardano.Pays(tx, s.option()) {
		return errors.New("the transaction does not pay the asked lovelace to this seller")
	}
	ws := tx.VKeyWitnesses()
	if len(ws) == 0 || !cardano.WitnessedBy(tx, cardano.KeyHash(ws[0].VKey)) {
		return errors.New("the transaction has no witness over its id")
	}
	id, err := s.RPC.Submit(ctx, tx.Raw)
	if err != nil {
		return fmt.Errorf("the node refused the transaction: %v", err)
	}
	if st := cardano.PaymentStatus(ctx, ref, s.RPC); st.State != "settled" {
		return fmt.Errorf("submitted %s but its status reads %s %s", id, st.State, st.Why)
	}
	if h, err := cardano.Recover(ctx, ref.Network, ref.TxID, s.RPC); err != nil || h != s.Hash() {
		return fmt.Errorf("the included transaction does not read back the terms' hash: %v", err)
	}
	s.mu.Lock()
	s.paid = ref.TxID
	s.mu.Unlock()
	return nil
}

// demoExact pays the seller from the published Cardano development key on
// preprod: the tip, the protocol parameters and an unspent output from the
// loopback node, a transfer carrying the terms' hash in its metadata, the
// seller's checks, submission and status, then a lying link declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	const network = "cardano:preprod"
	node := cardanorpc.NewNode(cardano.Params{MinFeeA: 44, MinFeeB: 155381, CoinsPerUTxOByte: 4310}, cardano.Tip{BlockHeight: 5216538, Slot: 134617495})
	nodeSrv, err := loopback.Start(node, "cardano-preprod.blockfrost.example")
	if err != nil {
		return fail("cannot start the local node:", err)
	}
	defer nodeSrv.Close()
	rpc := &cardanorpc.Client{URL: "https://cardano-preprod.blockfrost.example/api/v0", Net: network, HTTP: nodeSrv.Client()}
	payer, err := signer.CardanoFromSeed(signer.CardanoDevSeed, network, rpc)
	if err != nil {
		return fail(err)
	}
	node.Fund(payer.Address(), cardano.Input{TxID: [32]byte{0x5c, 0xad}, Index: 0}, 10_000_000)
	seller := &Exact{Node: node, RPC: rpc, payTo: "addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0", amount: 2_000_000}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	wallet := demo.Count(payer)
	policy, err := pay.NewPolicy(pay.PolicyConfig{MaxPayable: 10 * time.Minute, Limits: []pay.Limit{{
		Network: network, Asset: cardano.Lovelace, MaxAmount: big.NewInt(3_000_000), Budget: big.NewInt(20_000_000), // 3 ADA a payment, 20 in all
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
				say("   the policy allows it: %s lovelace on %s from %s to %s, until %s", sm.Amount, sm.Network, sm.Payer, sm.Payee,
					sm.PayableUntil.UTC().Format(time.RFC3339))
				say("   the wallet reads the tip, the protocol parameters and its unspent outputs from the node (Blockfrost API)")
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				signed, termsBytes = r.Signed, r.ATR
				ref, _ := cardano.PaymentReference(r.Signed)
				say("   signed transaction %s, TTL slot %d, H in its CIP-20 message under the auxiliary data hash", ref.TxID, ref.TTLSlot)
				say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)", len(r.Header))
			},
		},
	}
	transport.NoATRCache = true // each step fetches and compares, as it prints (the lie in step 4 too)
	client := pay.NewClient(transport)
	url := "https://" + apiHost + "/v1/report"
	say("termsgate demo (x402/exact/cardano): a seller on %s (TLS, loopback only) sells %s for 2 ADA", srv.Listener.Addr(), url)
	say("payer: %s (the published Cardano development key; never hold value with it)", payer.Account())
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
	say("   the seller decoded the transaction strictly, checked the message under key 7, the TTL, the payment and the witness,")
	say("   submitted %s (the node's ledger checked inputs, witnesses, balance and fee), read it settled and read H back;", paid)
	say("   it answered %d: %s", resp.StatusCode, body)
	offer, _ := seller.required()
	if err := s.KeepPayment(termsBytes, x402.EncodeHeader(offer), signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(fmt.Sprint(seller.amount), 6, "ADA", network))
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
