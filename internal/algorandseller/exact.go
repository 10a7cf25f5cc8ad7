// Package algorandseller is the loopback seller paid on Algorand and its
// demo row. It checks a payment group as its facilitator and the chain
// would before submitting it: every entry decodes canonically, the group
// id is the hash of the entries' ids, the payer's transfer is signed by its
// sender and pays the asked amount of the asset to the seller with the
// terms' hash in its note, the fee payer's entry is the seller's own zero
// payment carrying both fees, and the rounds are current. It then co-signs
// the fee payer's entry; it submits nothing.
package algorandseller

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/exactseller"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/algorand"
	"github.com/termsgate/termsgate/rails/algorand/algod"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: algorand.ExactID, Aliases: []string{"algorand"},
		About: "0.01 USDC on Algorand TestNet: an asset transfer whose note is lcp:sha256:H, grouped after the seller's fee payer; params from a loopback algod", Run: demoExact})
}

// Exact sells one resource under x402/exact/algorand.
type Exact struct {
	exactseller.Seller
	Node     *algod.Node // the chain's current round and fees
	payTo    string
	feePayer ed25519.PrivateKey
	network  string
	asset    string
	amount   uint64

	mu       sync.Mutex
	cosigned []byte // the fee payer's signature over its entry
}

func newExact(node *algod.Node, payTo string, feePayer ed25519.PrivateKey, network, asset string, amount uint64) *Exact {
	s := &Exact{Node: node, payTo: payTo, feePayer: feePayer, network: network, asset: asset, amount: amount}
	s.Body = []byte(`{"report":"ALGO/USD 0.19","as_of":"2026-12-01"}`)
	s.Option, s.Bound, s.Verify = s.option, algorand.Exact{}.Bound, s.check
	return s
}

func (s *Exact) feePayerAddress() string {
	return algorand.Address([32]byte(s.feePayer.Public().(ed25519.PublicKey)))
}

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.network, "amount", fmt.Sprint(s.amount), "asset", s.asset, "payTo", s.payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("feePayer", s.feePayerAddress()))
}

// check verifies the payment's group and keeps the fee payer's
// signature; it returns the payer's transfer's id.
func (s *Exact) check(payment *jsonv.Object) (string, error) {
	payload, _ := payment.GetObject("payload")
	txid, sig, err := s.verify(payload)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.cosigned = sig
	s.mu.Unlock()
	return txid, nil
}

// verify checks the group as the facilitator and the ledger would and
// returns the payer's transfer's id and the fee payer's signature.
func (s *Exact) verify(payload *jsonv.Object) (string, []byte, error) {
	gv, _ := payload.Get("paymentGroup")
	entries, _ := jsonv.AsArray(gv)
	if idx, _ := payload.Get("paymentIndex"); len(entries) != 2 || idx != jsonv.Number(1) {
		return "", nil, errors.New("not the group of two this seller asks: its fee payer's payment, then the transfer")
	}
	var txns []*algorand.Txn
	var signed []*algorand.SignedTxn
	for i, e := range entries {
		text, _ := jsonv.AsString(e)
		raw, err := base64.StdEncoding.Strict().DecodeString(text)
		if err != nil {
			return "", nil, fmt.Errorf("entry %d: %v", i, err)
		}
		st, err := algorand.DecodeSigned(raw)
		if err != nil {
			return "", nil, fmt.Errorf("entry %d: %w", i, err)
		}
		t, err := algorand.ReadTxn(st.Txn)
		if err != nil {
			return "", nil, fmt.Errorf("entry %d: %w", i, err)
		}
		txns, signed = append(txns, t), append(signed, st)
	}
	// The group id commits every entry: it is the hash of their ids
	// without it.
	bare := make([]*algorand.Txn, len(txns))
	for i, t := range txns {
		c := *t
		c.Group = [32]byte{}
		bare[i] = &c
	}
	gid := algorand.GroupID(bare)
	s.Node.Mu().Lock()
	round, minFee, gh, genID := s.Node.LastRound, s.Node.MinFee, s.Node.GenesisHash, s.Node.GenesisID
	s.Node.Mu().Unlock()
	var fees uint64
	for i, t := range txns {
		switch {
		case t.Group != gid:
			return "", nil, fmt.Errorf("entry %d: its group id is not the hash of the group's ids", i)
		case t.GenesisHash != gh || t.GenesisID != genID:
			return "", nil, fmt.Errorf("entry %d: for another network", i)
		case round < t.FirstValid || round > t.LastValid || t.LastValid-t.FirstValid > algorand.MaxTxnLife:
			return "", nil, fmt.Errorf("entry %d: valid for rounds %d to %d, the chain is at %d", i, t.FirstValid, t.LastValid, round)
		case t.RekeyTo != [32]byte{} || t.CloseTo != [32]byte{} || t.AssetCloseTo != [32]byte{} || t.AssetSender != [32]byte{}:
			return "", nil, fmt.Errorf("entry %d: closes, rekeys or claws back", i)
		}
		fees += t.Fee
	}
	fp, pt := txns[0], txns[1]
	mine := [32]byte(s.feePayer.Public().(ed25519.PublicKey))
	if fp.Type != "pay" || fp.Sender != mine || fp.Receiver != mine || fp.Amount != 0 || signed[0].Sig != nil {
		return "", nil, errors.New("the first entry is not this seller's unsigned zero payment to itself")
	}
	if fees < minFee*uint64(len(txns)) || fp.Fee > 10*minFee*uint64(len(txns)) {
		return "", nil, fmt.Errorf("fees of %d microALGO for a group of %d at a minimum of %d", fees, len(txns), minFee)
	}
	payTo, _ := algorand.ParseAddress(s.payTo)
	if pt.Type != "axfer" || fmt.Sprint(pt.AssetID) != s.asset || pt.AssetAmount != s.amount || pt.AssetReceiver != payTo ||
		string(pt.Note) != mpp.LegalContextValue(s.Hash()) {
		return "", nil, errors.New("the transfer is not the asked amount of the asset to this seller with the terms' hash as its note")
	}
	if signed[1].AuthKey != [32]byte{} || !ed25519.Verify(pt.Sender[:], pt.SigningBytes(), signed[1].Sig) {
		return "", nil, errors.New("the transfer's signature does not verify under its sender's key")
	}
	return pt.ID(), ed25519.Sign(s.feePayer, fp.SigningBytes()), nil
}

// demoExact pays the seller from the development key: params from the
// loopback algod, a transfer whose note carries the terms' hash, the
// seller's checks, then a lying link declined unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	payer, err := signer.AlgorandDev(algorand.TestNet)
	if err != nil {
		return fail(err)
	}
	gh, _ := base64.StdEncoding.DecodeString("SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI=")
	node := &algod.Node{LastRound: 67_634_736, MinFee: 1000, GenesisID: "testnet-v1.0", GenesisHash: [32]byte(gh)}
	feePayer := ed25519.NewKeyFromSeed(make([]byte, 32)) // the demo facilitator's key, all zero: public
	seller := newExact(node, "5VESRRRI2HBMN2XJAM4JAWMVMEUVSJZ2LRR7SNRWYFDBJLEHG7I2572N4M", feePayer, algorand.TestNet, "10458941", 10_000)
	nodeSrv, err := loopback.Start(node, "algod.example")
	if err != nil {
		return fail("cannot start the local algod:", err)
	}
	defer nodeSrv.Close()
	inputs := &algod.Inputs{Client: &algod.Client{URL: "https://algod.example", HTTP: nodeSrv.Client()}}
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: algorand.TestNet, Asset: "10458941", MaxAmount: big.NewInt(20_000), Budget: big.NewInt(1_000_000), // 0.02 USDC a payment, 1 in all
	}}})
	if err != nil {
		return fail(err)
	}
	d := &exactseller.Demo{Seller: &seller.Seller, Wallet: demo.Count(payer), Policy: policy, Inputs: inputs.For, InputsErr: inputs.Err,
		Pairing: algorand.ExactID, Price: "0.01 USDC (ASA 10458941, TestNet)",
		Payer:  "termsgate's published Algorand development key; never hold value with it",
		Offer:  "the terms' hash and link, and the seller's fee payer",
		Retry:  ": the group of the fee payer's payment and the transfer",
		Amount: demo.Amount(fmt.Sprint(seller.amount), 6, "USDC", seller.network),
		BeforeSign: func(sm pay.Summary) {
			say("   params from algod (GET /v2/transactions/params): round %d, min fee %d microALGO", node.LastRound, node.MinFee)
			say("   the policy allows it: %s units of asset %s on %s from %s to %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee)
		},
		AfterSign: func(r *pay.Result) {
			ref, _ := algorand.PaymentReference(r.Signed)
			say("   signed the asset transfer %s (valid to round %d) whose note is lcp:sha256:H", ref.TxID, ref.LastValid)
		},
		Checked: func(paid string, status int, body []byte) {
			say("   the seller decoded both entries canonically, checked the group id, the rounds, the fees and the transfer's")
			say("   signature, amount, receiver and note, co-signed its fee payment for %s, and answered %d: %s", paid, status, body)
		},
	}
	return d.Run(ctx, s)
}
