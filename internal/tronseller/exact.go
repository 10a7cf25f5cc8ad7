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
	"time"

	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/exactseller"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tron"
	"github.com/termsgate/termsgate/rails/tron/tronrpc"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: tron.ExactID, Aliases: []string{"tron"},
		About: "0.01 USDT on Tron: a TRC-20 transfer whose memo (raw_data.data) is lcp:sha256:H; the reference block from a loopback FullNode", Run: demoExact})
}

// Exact sells one resource under x402/exact/tron/lcp-trc20-memo.
type Exact struct {
	exactseller.Seller
	Node                  *tronrpc.Node
	network, asset, payTo string
	amount                int64
	Now                   func() time.Time
}

func newExact(node *tronrpc.Node, network, asset, payTo string, amount int64, now func() time.Time) *Exact {
	s := &Exact{Node: node, network: network, asset: asset, payTo: payTo, amount: amount, Now: now}
	s.Body = []byte(`{"report":"TRX/USD 0.27","as_of":"2026-12-01"}`)
	s.Option, s.Bound, s.Verify = s.option, tron.Exact{}.Bound, s.verify
	return s
}

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", s.network, "amount", fmt.Sprint(s.amount), "asset", s.asset, "payTo", s.payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("assetTransferMethod", tron.AssetTransferMethod))
}

// verify checks the transaction as the network would and returns its id;
// it broadcasts nothing.
func (s *Exact) verify(payment *jsonv.Object) (string, error) {
	text, _ := jsonv.AsString(demo.Path(payment, "payload", "transaction"))
	tx, err := tron.DecodeTx(text)
	if err != nil {
		return "", err
	}
	id := tron.TxID(tx.RawBytes)
	r := tx.Raw
	if len(tx.Signatures) != 1 {
		return "", errors.New("not single-signed")
	}
	signer, ok := tron.Recover(id, tx.Signatures[0])
	if !ok || string(signer[:]) != string(r.Owner) {
		return "", errors.New("the signature does not recover to the transaction's owner")
	}
	block := s.Node.ID()
	if hex.EncodeToString(r.RefBlockBytes) != hex.EncodeToString(block[6:8]) || hex.EncodeToString(r.RefBlockHash) != hex.EncodeToString(block[8:16]) {
		return "", errors.New("the transaction references a block the node does not hold")
	}
	now := uint64(s.Now().UnixMilli())
	if r.Expiration <= now || r.Expiration > r.Timestamp+24*3600*1000 {
		return "", fmt.Errorf("expired or too far out: expiration %d, now %d", r.Expiration, now)
	}
	to, amount, ok := tron.Transfer(r.CallData)
	asset, _ := tron.ParseAddress(s.asset)
	payTo, _ := tron.ParseAddress(s.payTo)
	if !ok || to != payTo || string(r.ContractAddress) != string(asset[:]) || new(big.Int).SetBytes(amount).Cmp(big.NewInt(s.amount)) != 0 ||
		string(r.Data) != mpp.LegalContextValue(s.Hash()) {
		return "", errors.New("the transfer is not the asked amount of the token to this seller with the terms' hash as its memo")
	}
	if r.FeeLimit > tron.MaxFeeLimit {
		return "", errors.New("the fee limit is above the network's")
	}
	return hex.EncodeToString(id[:]), nil
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
	seller := newExact(node, network, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "TCwX1UeSkVfu43HD5xNMmFqDR2Xgjdxihx", 10_000, time.Now)
	nodeSrv, err := loopback.Start(node, "fullnode.example")
	if err != nil {
		return fail("cannot start the local FullNode:", err)
	}
	defer nodeSrv.Close()
	inputs := &tronrpc.Inputs{Client: &tronrpc.Client{URL: "https://fullnode.example", HTTP: nodeSrv.Client()}}
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: network, Asset: seller.asset, MaxAmount: big.NewInt(20_000), Budget: big.NewInt(1_000_000), // 0.02 USDT a payment, 1 in all
	}}})
	if err != nil {
		return fail(err)
	}
	d := &exactseller.Demo{Seller: &seller.Seller, Wallet: demo.Count(payer), Policy: policy, Inputs: inputs.For, InputsErr: inputs.Err,
		Pairing: tron.ExactID, Price: "0.01 USDT-TRC20", Payer: "the published Anvil development key; never hold value with it",
		Amount: demo.Amount(fmt.Sprint(seller.amount), 6, "USDT", network),
		BeforeSign: func(sm pay.Summary) {
			say("   the reference block from the FullNode (POST /wallet/getnowblock): %d", node.Number)
			say("   the policy allows it: %s units of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
				sm.PayableUntil.UTC().Format(time.RFC3339))
		},
		AfterSign: func(r *pay.Result) {
			ref, _ := tron.PaymentReference(r.Signed)
			say("   signed the id %s of a transfer whose memo is lcp:sha256:H", ref.TxID)
		},
		Checked: func(paid string, status int, body []byte) {
			say("   the seller decoded the transaction canonically, recovered its owner from the signature over %s,", paid)
			say("   checked the reference block, the expiration, the transfer and the memo, and answered %d: %s", status, body)
		},
	}
	return d.Run(ctx, s)
}
