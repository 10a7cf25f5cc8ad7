package mppevmseller

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

// DemoBody is what the demo's paid request gets.
var DemoBody = []byte(`{"report":"q3","rows":42}` + "\n")

func init() {
	for _, r := range []struct{ id, about string }{
		{evm.MPPUSDCID, "0.01 USDC on Base Sepolia by MPP's usdc method: an EIP-3009 authorization whose nonce is keccak256 of the JCS over the challenge id (H) and request"},
		{evm.MPPPermit2ID, "0.01 USDC on Base Sepolia by MPP: a Permit2 witness transfer whose challengeHash is keccak256(id ‖ realm), the id naming H"},
		{evm.MPPTransactionID, "0.01 USDC on Base Sepolia by MPP: a signed ERC-20 transfer that carries nothing of H, so an agreement to the terms is paid first"},
		{evm.MPPHashID, "0.01 USDC on Base Sepolia by MPP: a transfer the payer sends and names by hash; no H in it, so an agreement is paid first"},
		{evm.MPPGatewayID, "25 USDC from Arc Testnet to Base Sepolia by MPP's usdc method through Circle Gateway: a burn intent whose TransferSpec salt is keccak256 of the JCS over the challenge id (H) and the transfer"},
		{evm.MPPSessionID, "a 0.05 USDC channel deposit on Base Sepolia by MPP: a ReceiveWithAuthorization into the escrow whose channel salt is H, and the zero voucher"},
	} {
		id := r.id
		demo.Register(demo.Row{Pairing: id, About: r.about, Run: func(ctx context.Context, s *demo.Session) error { return run(ctx, s, id) }})
	}
}

// EVMFees is the node's fee quote: fixed figures, since it mines nothing.
func (n *Node) EVMFees(_ context.Context, from common.Address, chainID int64, _ common.Address, _ []byte) (signer.EVMFees, error) {
	if chainID != Chain {
		return signer.EVMFees{}, fmt.Errorf("this node serves chain %d, not %d", Chain, chainID)
	}
	n.mu.Lock()
	nonce := uint64(len(n.sent))
	n.mu.Unlock()
	return signer.EVMFees{MaxPriorityFeePerGas: big.NewInt(1_000_000_000), MaxFeePerGas: big.NewInt(2_000_000_000), Gas: 60_000, Nonce: nonce}, nil
}

// Broadcast takes a signed transaction and answers its hash.
func (n *Node) Broadcast(_ context.Context, raw []byte) (string, jsonv.Value, error) {
	hash := "0x" + hex.EncodeToString(crypto.Keccak256(raw))
	n.mu.Lock()
	n.sent[hash] = append([]byte(nil), raw...)
	n.mu.Unlock()
	return hash, nil, nil
}

// run pays the seller of pairing through the gate: the 402's challenge,
// the terms fetched and compared, the agreement paid first where the
// payment is no public proof, the credential sent and accepted.
func run(ctx context.Context, s *demo.Session, pairing string) error {
	seller := New(pairing, demo.ATR, DemoBody)
	srv, err := loopback.Start(seller)
	if err != nil {
		return fmt.Errorf("cannot start the local seller: %w", err)
	}
	defer srv.Close()
	key, err := signer.FromHex(signer.AnvilKey, Network)
	if err != nil {
		return err
	}
	var wallet rails.Signer = key
	inputs := jsonv.Obj()
	switch pairing {
	case evm.MPPUSDCID:
		inputs.Set("tokenDomain", jsonv.Obj("name", "USDC", "version", "2"))
	case evm.MPPPermit2ID:
		inputs.Set("spender", Spender)
	case evm.MPPGatewayID:
		inputs.Set("maxBlockHeight", "39350204")
		if key, err = signer.FromHex(signer.AnvilKey, GatewaySource); err != nil {
			return err
		}
		wallet = key
	case evm.MPPSessionID:
		inputs = jsonv.Obj("deposit", "50000", "credentialType", "authorization", "tokenDomain", jsonv.Obj("name", "USDC", "version", "2"))
	case evm.MPPTransactionID:
		wallet = &signer.EVM{Local: key, FeeSource: seller.Node}
	case evm.MPPHashID:
		wallet = signer.NewEVM(key, seller.Node)
	}
	counted := demo.Count(wallet)
	client := srv.Client()
	s.Say("1. GET %s", seller.ResourceURL())
	resp, _, err := demo.Get(ctx, client, seller.ResourceURL(), "", "")
	if err != nil {
		return demo.Fail("the seller did not answer:", err)
	}
	if resp.StatusCode != http.StatusPaymentRequired {
		return demo.Fail("the seller answered", resp.Status, "not 402")
	}
	doc, err := mpp.ChallengesFromHeader(resp.Header)
	if err != nil {
		return demo.Fail("the challenge does not read:", err)
	}
	offer := resp.Header.Get("WWW-Authenticate")
	s.Say("   402 with a %s challenge naming H = %s", pairing, seller.Hash())
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	opts := &gate.TransactOptions{Inputs: inputs}
	res, err := g.Transact(ctx, doc, pairing, counted, opts)
	if err != nil {
		return demo.Fail("the gate declined:", err)
	}
	if res.Approve != nil {
		s.Say("2. the payment carries nothing of H: the agreement URL %s sells a receipt for it first (approved here)", res.Approve.URL)
		opts.Approved = res.Approve
		if res, err = g.Transact(ctx, doc, pairing, counted, opts); err != nil {
			return demo.Fail("the gate declined:", err)
		}
		s.Say("   agreement paid: the receipt names H; %d agreement payment(s) taken", seller.Agreements.Paid.Load())
	}
	s.Say("3. fetched the terms (SHA-256 matched), built and signed: %d signer call(s)", counted.Calls())
	cred, ok := jsonv.AsObject(res.Signed)
	if !ok {
		return errors.New("the gate returned no credential")
	}
	name, value := mpp.Header(cred)
	resp, body, err := demo.Get(ctx, client, seller.ResourceURL(), name, value)
	if err != nil {
		return demo.Fail("the seller did not answer:", err)
	}
	if resp.StatusCode != http.StatusOK {
		return demo.Fail("the seller refused the credential:", seller.LastRejection())
	}
	s.Say("4. %s: 200, %s (the signature recovers to %s)", name, strings.TrimSpace(string(body)), seller.Payer())
	if err := s.KeepPayment(demo.ATR, offer, cred); err != nil {
		return err
	}
	switch pairing {
	case evm.MPPSessionID:
		s.Paid(demo.Amount("50000", 6, "USDC", Network))
	case evm.MPPGatewayID:
		s.Paid(demo.Amount(GatewayAmount, 6, "USDC", GatewaySource) + ", minted on " + Network)
	default:
		s.Paid(demo.Amount(Amount, 6, "USDC", Network))
	}
	return nil
}
