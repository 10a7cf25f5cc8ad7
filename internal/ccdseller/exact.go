// Package ccdseller is the loopback seller paid on Concordium and its demo
// row. It checks a payment as its facilitator and the chain would before
// sponsoring it: the memo carries the terms' hash, the expiry has not
// passed, the sender's signature verifies under the key the node holds for
// the sender over the rebuilt V1 transaction, the nonce is the sender's
// next, and the one transfer moves the asked CCD to the seller with this
// seller as sponsor; it then adds its sponsor signature, submits the item
// to the loopback node and reads its status back by hash over gRPC-web
// (GetBlockItemStatus).
package ccdseller

import (
	"context"
	"crypto/ed25519"
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
	"github.com/termsgate/termsgate/rails/ccd"
	"github.com/termsgate/termsgate/rails/ccd/ccdrpc"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	demo.Register(demo.Row{Pairing: ccd.ExactID, Aliases: []string{"ccd", "concordium"},
		About: "0.001 CCD on Concordium testnet: H in the memo of the payer's sponsored V1 transfer; the nonce from a loopback node over gRPC-web", Run: demoExact})
}

// Network is Concordium testnet (its genesis hash's first 16 bytes).
const Network = "ccd:4221332d34e1694168c2a0c0b3fd0f27"

// Exact sells one resource under x402/exact/ccd.
type Exact struct {
	exactseller.Seller
	Node    *ccdrpc.Node
	Status  ccd.Reader // where the item's status is read; the node in process when nil
	Now     func() time.Time
	sponsor ed25519.PrivateKey
	feePay  string // the sponsor's account
	payTo   string
	amount  uint64
}

func newExact(node *ccdrpc.Node, sponsor ed25519.PrivateKey, feePay, payTo string, amount uint64) *Exact {
	s := &Exact{Node: node, Now: time.Now, sponsor: sponsor, feePay: feePay, payTo: payTo, amount: amount}
	s.Body = []byte(`{"report":"CCD/USD 0.012","as_of":"2026-12-01"}`)
	s.Option, s.Bound, s.Verify = s.option, ccd.Exact{}.Bound, s.verify
	return s
}

func (s *Exact) option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", Network, "amount", fmt.Sprint(s.amount), "asset", ccd.CCD, "payTo", s.payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("feePayer", s.feePay))
}

// verify checks the transaction as the facilitator and chain would, signs
// it as sponsor, submits it to the loopback node and returns its hash once
// its status reads settled.
func (s *Exact) verify(payment *jsonv.Object) (string, error) {
	ref, err := ccd.PaymentReference(payment)
	if err != nil {
		return "", err
	}
	if now := s.Now().Unix(); ref.SettleBy < now {
		return "", fmt.Errorf("the transaction expired at %d (now %d)", ref.SettleBy, now)
	}
	signed, wire, err := ccd.Carried(payment)
	if err != nil {
		return "", err
	}
	if !ccd.Pays(signed, wire, s.option()) {
		return "", errors.New("the transaction does not move the asked CCD to this seller with this seller as sponsor")
	}
	key := s.Node.Key(signed.Sender)
	if key == nil || !wire.Verifies(key) {
		return "", errors.New("the signature is not the sender's key's over the transaction")
	}
	if len(wire.Signatures) != 1 || wire.Tx.SenderSignatures != 1 || wire.Tx.SponsorSignatures != 1 {
		return "", errors.New("the seller sponsors a transaction of one sender signature and its own")
	}
	d := wire.Tx.SignDigest()
	sponsorSig := map[[2]uint8][]byte{{0, 0}: ed25519.Sign(s.sponsor, d[:])}
	hash := wire.Hash(sponsorSig)
	memo := ccd.Memo(signed.H)
	item := ccd.Item{State: "finalized", Success: true, Sender: signed.Sender,
		Transfers: []ccd.Transfer{{Kind: "ccd", Receiver: signed.Receiver, Amount: signed.Amount, Memo: memo}}}
	if err := s.Node.Submit(hash, wire.Tx.Nonce, item); err != nil {
		return "", err
	}
	name := hex.EncodeToString(hash[:])
	var status ccd.Reader = s.Node
	if s.Status != nil {
		status = s.Status
	}
	if st := ccd.PaymentStatus(context.Background(), ref, name, signed.H, status); st.State != "settled" {
		return "", fmt.Errorf("submitted %s but its status reads %s %s", name, st.State, st.Why)
	}
	return name, nil
}

// sponsorSeed is the demo seller's own sponsor key (0x00…02), public like
// every demo key.
var sponsorSeed = [32]byte{31: 2}

// demoExact pays the seller from the vectors' development account on
// testnet's id: the nonce from the loopback node over gRPC-web, a
// sponsored transfer carrying the terms' hash in its memo, the seller's
// checks, sponsor signature and submission, then a lying link declined
// unsigned.
func demoExact(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	node := &ccdrpc.Node{Net: Network}
	nodeSrv, err := loopback.Start(node, "grpc.ccd.example")
	if err != nil {
		return fail("cannot start the local node:", err)
	}
	defer nodeSrv.Close()
	rpc := &ccdrpc.Client{URL: "https://grpc.ccd.example", Net: Network, HTTP: nodeSrv.Client()}
	payer, err := signer.CCDFromSeed(signer.CCDDevSeed, signer.CCDDevAccount, Network, rpc)
	if err != nil {
		return fail(err)
	}
	payerBytes, _ := ccd.AccountBytes(signer.CCDDevAccount)
	node.SetNonce(payerBytes, 7)
	node.SetKey(payerBytes, payer.PublicKey())
	seller := newExact(node, ed25519.NewKeyFromSeed(sponsorSeed[:]),
		"4SMYM3fzSqs6DBqMgPDWnq4XTiT2YXFCUD2dV3rPmtG42ocYtd", "4PnJd77jiMZB3HheYkrynfUGzZtpSERjpzy954eDD3krRf1Wpx", 1000)
	seller.Status = rpc // the status over gRPC-web, as from a real node
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: Network, Asset: ccd.CCD, MaxAmount: big.NewInt(2000), Budget: big.NewInt(100_000), // 0.002 CCD a payment, 0.1 in all
	}}})
	if err != nil {
		return fail(err)
	}
	d := &exactseller.Demo{Seller: &seller.Seller, Wallet: demo.Count(payer), Policy: policy,
		Pairing: ccd.ExactID, Price: "0.001 CCD", Payer: "the vectors' development account and key; never hold value with it",
		Amount: demo.Amount(fmt.Sprint(seller.amount), 6, "CCD", Network),
		BeforeSign: func(sm pay.Summary) {
			say("   the policy allows it: %s microCCD of %s on %s from %s to %s, until %s", sm.Amount, sm.Asset, sm.Network, sm.Payer, sm.Payee,
				sm.PayableUntil.UTC().Format(time.RFC3339))
			say("   the wallet reads its next nonce from the node (gRPC-web, GetNextAccountSequenceNumber)")
		},
		AfterSign: func(r *pay.Result) {
			ref, _ := ccd.PaymentReference(r.Signed)
			say("   signed a V1 transfer sponsored by the seller, expiring %d, H in its memo (CBOR text lcp:sha256:0x…)", ref.SettleBy)
		},
		Checked: func(paid string, status int, body []byte) {
			say("   the seller rebuilt the V1 transaction, verified the sender's signature under the node's key for the sender,")
			say("   checked the expiry, nonce and transfer, signed as sponsor, submitted %s and read it finalized", paid)
			say("   (gRPC-web, GetBlockItemStatus); it answered %d: %s", status, body)
		},
	}
	return d.Run(ctx, s)
}
