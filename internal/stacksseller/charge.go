// Package stacksseller is the loopback seller paid in a SIP-010 token on
// Stacks (mpp/charge/usdc/stacks) and its demo row. It checks a credential
// as the network and a careful seller would before taking it: the echoed
// challenge is the one it issued, unexpired; the transaction decodes
// canonically, is a transfer of the asked amount of the asked token to the
// seller from the signer itself, guarded by its post-condition, with
// (some H) as memo, and its signature recovers to its origin; it then
// broadcasts it to the loopback node, which mines it, and reads its status
// back by txid.
package stacksseller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/terms"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stacks"
	"github.com/termsgate/termsgate/rails/stacks/stacksrpc"
	"github.com/termsgate/termsgate/signer"
)

// The vectors' token and recipient on Stacks testnet.
const (
	contractAddress = "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM"
	contractName    = "usdcx"
	assetName       = "usdcx-token"
	payTo           = "ST3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8NQXMNRQ"
)

// Charge sells one resource under mpp/charge/usdc/stacks.
type Charge struct {
	terms.MPPCharge
	RPC    *stacksrpc.Client
	Amount string

	mu   sync.Mutex
	paid stacks.Status
	txid [32]byte
}

// Challenges is the 402's challenge list: one usdc charge of the Stacks
// profile, placed for the terms (its id and opaque name H).
func (s *Charge) Challenges() ([]jsonv.Value, error) {
	request := jsonv.Obj("amount", s.Amount, "currency", contractAddress+"."+contractName+"::"+assetName, "recipient", payTo,
		"methodDetails", jsonv.Obj("type", "stacks", "stacks", jsonv.Obj("network", "testnet", "chainId", "2147483648",
			"contractAddress", contractAddress, "contractName", contractName, "assetName", assetName,
			"functionName", "transfer", "decimals", 6)))
	c := jsonv.Obj("realm", "api.seller.example", "method", "usdc", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", s.Expires())
	h := s.Hash()
	return mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
}

func (s *Charge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Serve(w, r, s.accept, s.Challenges)
}

func (s *Charge) accept(header string) error {
	cred, err := mpp.ParseHeader(header)
	if err != nil {
		return err
	}
	issued, err := s.Challenges()
	if err != nil {
		return err
	}
	echoed, _, err := terms.EchoesIssued(cred, issued)
	if err != nil {
		return err
	}
	if exp, _ := mpp.UnixOf(mpp.String(echoed, "expires")); exp <= s.Now().Unix() {
		return errors.New("the challenge has expired")
	}
	p, err := stacks.ReadPresented(cred)
	if err != nil || p.Bound.H != s.Hash() {
		return fmt.Errorf("the credential is not bound to the terms served: %v", err)
	}
	if !p.Pays() {
		return errors.New("the transaction does not transfer the asked amount of the token to this seller from its signer, guarded")
	}
	if !stacks.VerifySignature(p.Tx) {
		return errors.New("the signature does not recover to the transaction's origin")
	}
	ctx := context.Background()
	id, err := s.RPC.Broadcast(ctx, p.Raw)
	if err != nil {
		return err
	}
	st := stacks.PaymentStatus(ctx, p.Reference(), s.Hash(), s.RPC)
	if st.State != "settled" {
		return fmt.Errorf("broadcast %x but its status reads %s %s", id, st.State, st.Why)
	}
	s.mu.Lock()
	s.paid, s.txid = st, id
	s.mu.Unlock()
	return nil
}

func init() {
	demo.Register(demo.Row{Pairing: stacks.ChargeUSDCID, Aliases: []string{"stacks"},
		About: "an MPP usdc charge of 1 USDCx on Stacks testnet: H as the SIP-010 transfer's memo; nonce and fee from a loopback Stacks node",
		Run:   runCharge})
}

// runCharge pays the Stacks seller from the published scalar-1 key: the
// challenge from its 402, the gate's checks, the wallet's nonce and fee
// from the node and its signature, the credential the seller verifies,
// broadcasts and reads settled; then the lying link, declined unsigned.
func runCharge(ctx context.Context, s *demo.Session) error {
	const network = "stacks:2147483648"
	node := &stacksrpc.Node{FeeRate: 3, Height: 9021832, Tenure: 256356}
	nodeSrv, err := loopback.Start(node, "api.stacks.example")
	if err != nil {
		return demo.Fail("cannot start the local Stacks node:", err)
	}
	defer nodeSrv.Close()
	rpc := &stacksrpc.Client{URL: "https://api.stacks.example", Net: network, HTTP: nodeSrv.Client()}
	key, err := signer.StacksFromHex(signer.StacksDevKey, network, rpc)
	if err != nil {
		return err
	}
	seller := &Charge{RPC: rpc, Amount: "1000000", MPPCharge: terms.MPPCharge{Body: []byte(`{"report":"STX/USD 0.62","as_of":"2026-12-01"}`), Now: time.Now}}
	seller.SetATR(demo.ATR)
	srv, err := loopback.Start(seller)
	if err != nil {
		return demo.Fail("cannot start the local seller:", err)
	}
	defer srv.Close()
	client := srv.Client()
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	const resource = "https://api.seller.example/v1/report"

	s.Say("termsgate demo (%s): a seller on %s (TLS, loopback only) sells %s for 1 USDCx", stacks.ChargeUSDCID, srv.Listener.Addr(), resource)
	s.Say("payer: %s (the key whose scalar is 1, the vectors' payer; never hold value with it)", key.Account())
	s.Say("")
	s.Say("1. GET %s", resource)
	resp, doc, offer, err := demo.MPPOffer(ctx, client, g, resource, stacks.ChargeUSDCID)
	if err != nil {
		return err
	}
	s.Say("   %d with a WWW-Authenticate: Payment usdc challenge (methodDetails.type stacks), advertising H = %s", resp.StatusCode, offer.H)
	s.Say("2. the gate fetches the terms, compares SHA-256 of the bytes with H, and only then asks the wallet to sign")
	s.Say("   a SIP-010 transfer(amount, sender, recipient, (some H)) guarded by a post-condition; the wallet reads its")
	s.Say("   nonce (GET /v2/accounts) and the fee rate (GET /v2/fees/transfer) from the node")
	wallet := demo.Count(key)
	res, err := g.Transact(ctx, doc, stacks.ChargeUSDCID, wallet, nil)
	if err != nil {
		return demo.Fail("not paid:", err)
	}
	s.Say("   fetched %d bytes; SHA-256 = %s: matches; signer calls: %d", len(res.Bytes), res.H, wallet.Calls())
	cred, _ := jsonv.AsObject(res.Signed)
	name, value := mpp.Header(cred)
	s.Say("3. GET again with %s: Payment … (%d bytes)", name, len(value))
	paid, body, err := demo.Get(ctx, client, resource, name, value)
	if err != nil {
		return err
	}
	if paid.StatusCode != http.StatusOK {
		return fmt.Errorf("the seller refused the credential (%d): %v", paid.StatusCode, seller.LastRejection())
	}
	seller.mu.Lock()
	st, txid := seller.paid, seller.txid
	seller.mu.Unlock()
	s.Say("   the seller decoded the transaction canonically, checked the transfer, its memo H and its signature,")
	s.Say("   broadcast 0x%x, read it %s in block %d, and answered %d: %s", txid, st.State, *st.BlockHeight, paid.StatusCode, body)
	if err := s.KeepPayment(res.Bytes, resp.Header.Get("WWW-Authenticate"), cred); err != nil {
		return err
	}
	s.Paid(demo.Amount(seller.Amount, 6, "USDCx", network))
	s.Say("")
	s.Say("4. the same seller now serves other bytes at the link while its challenge still advertises H")
	seller.Lie(demo.Changed(demo.ATR))
	before := wallet.Calls()
	_, err = g.Transact(ctx, doc, stacks.ChargeUSDCID, wallet, nil)
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fmt.Errorf("the changed terms were not declined: %v", err)
	}
	s.Say("   declined %s; signer calls for it: %d", d.Code, wallet.Calls()-before)
	return nil
}
