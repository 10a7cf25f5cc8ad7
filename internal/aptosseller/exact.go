// Package aptosseller is the x402/exact/aptos test seller: an agreement
// seller (internal/agreementseller), as nothing the payer signs carries H,
// whose check is a facilitator's: the payment's transaction is the option's
// transfer, signed by the sender's Ed25519 key, submitted to an Aptos node
// (aptosrpc's Node in the demo) and read back settled.
package aptosseller

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/agreementseller"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/aptos"
	"github.com/termsgate/termsgate/rails/aptos/aptosrpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// The demo's network, asset (APT's fungible-asset metadata, 0xa), price
// (0.001 APT) and payee.
const (
	Network = "aptos:2"
	Asset   = "0x000000000000000000000000000000000000000000000000000000000000000a"
	Price   = "100000"
	PayTo   = "0xe8ca094fec460329aaccc2a644dc73c5e39f1a2ad6e97f82b6cbdc1a5949b9ea"
)

// Option is the seller's one payment option.
func Option() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", Network, "amount", Price, "asset", Asset, "payTo", PayTo, "maxTimeoutSeconds", 60)
}

// New returns an agreement seller of body under terms atrBytes whose
// check verifies the payment's transaction (the option's transfer, the
// sender's signature), submits it through node and reads it settled.
func New(atrBytes, body []byte, node *aptosrpc.Client) *agreementseller.Seller {
	s := agreementseller.New(atrBytes, body)
	option := Option()
	s.Option = option
	s.Bound = aptos.Exact{}.Bound
	s.Check = func(payment *jsonv.Object) (string, error) {
		ref, err := aptos.PaymentReference(payment)
		if err != nil {
			return "", err
		}
		text, _ := jsonv.AsString(demo.Path(payment, "payload", "transaction"))
		sd, err := aptos.DecodePayload(text)
		if err != nil {
			return "", err
		}
		tr, err := sd.Tx.ReadTransfer()
		if err != nil || tr.Recipient.String() != PayTo || tr.Metadata.String() != Asset || strconv.FormatUint(tr.Amount, 10) != Price {
			return "", errors.New("the transaction does not pay the option")
		}
		if !sd.Verifies() {
			return "", errors.New("the transaction is not signed by its sender's key")
		}
		signed, ok := sd.SignedTransaction()
		if !ok {
			return "", errors.New("a fee-payer transaction: this seller sponsors none")
		}
		ctx := context.Background()
		if _, err := node.Submit(ctx, signed); err != nil {
			return "", err
		}
		if st := aptos.PaymentStatus(ctx, ref, node); st.State != "settled" {
			return "", errors.New("the transfer is " + st.State + " (" + st.Why + ")")
		}
		return sd.Tx.Sender.String(), nil
	}
	return s
}

func init() {
	demo.Register(demo.Row{Pairing: aptos.ExactID, Aliases: []string{"aptos"},
		About: "0.001 APT on Aptos testnet: no public proof, so the agreement exchange (an EIP-3009 agreement payment with nonce H, its receipt) first; the seller submits the signed transfer to a loopback node and reads it settled",
		Run:   run})
}

// run pays the Aptos seller: the approval of the agreement payment with
// nothing signed, the agreement paid by EIP-3009 with nonce H and its
// receipt read, then the wallet's transfer, which echoes H only in the
// payment's legal context; the seller submits it and reads it settled.
func run(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	node := aptosrpc.NewNode(2, 100, 1_790_000_000_000_000)
	nodeSrv, err := loopback.Start(node, "aptos-testnet.node.example")
	if err != nil {
		return fail("cannot start the local node:", err)
	}
	defer nodeSrv.Close()
	rpc := &aptosrpc.Client{URL: "https://aptos-testnet.node.example", Net: Network, HTTP: nodeSrv.Client()}
	key, err := signer.AptosFromSeed(signer.AptosDevSeed, Network, rpc)
	if err != nil {
		return fail(err)
	}
	evmKey, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return fail(err)
	}
	node.SetSequence(key.Address(), 3)
	seller := New(demo.ATR, []byte(`{"report":"APT/USD 4.12","as_of":"2026-12-01"}`), rpc)
	h := seller.Hash()
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local sellers:", err)
	}
	defer srv.Close()
	client := srv.Client()
	wallet, agreer := demo.Count(key), demo.Count(evmKey)
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}} // the shipped registry

	resource := seller.ResourceURL()
	say("termsgate demo: %s against a seller on %s (TLS, loopback only)", aptos.ExactID, srv.Listener.Addr())
	say("payer: %s (the published seed 0a×32; never hold value with it)", key.Account())
	say("agreement payer: %s (the published Anvil development key)", evmKey.Account())
	say("")
	say("1. GET %s", resource)
	resp, _, err := demo.Get(ctx, client, resource, "", "")
	if err != nil {
		return fail(err)
	}
	header := resp.Header.Get("PAYMENT-REQUIRED")
	doc, err := x402.DecodeHeader(header)
	if resp.StatusCode != http.StatusPaymentRequired || err != nil {
		return fail("the seller did not answer 402 with a readable PAYMENT-REQUIRED:", err)
	}
	say("   402: %s octas of APT to %s on %s, with terms H = %s and an agreement URL", Price, PayTo, Network, h)
	say("2. the gate fetches the terms and compares SHA-256 with H; the transfer will carry nothing of H, so it")
	say("   asks the agreement URL what an agreement costs, and returns that for approval, signing nothing")
	opts := &gate.TransactOptions{AgreementSigner: agreer}
	first, err := g.Transact(ctx, doc, aptos.ExactID, wallet, opts)
	if err != nil || first.Approve == nil {
		return fail("no approval asked:", err)
	}
	a := first.Approve
	amount, _ := a.Option.GetString("amount")
	network, _ := a.Option.GetString("network")
	say("   approval asked: %s atomic units of USDC on %s, at %s (signer calls so far: %d)", amount, network, a.URL, wallet.Calls()+agreer.Calls())
	say("3. the payer approves; the gate pays the agreement by EIP-3009 with nonce H, reads its receipt for H, and")
	say("   only then asks the Aptos wallet for the transfer")
	opts.Approved = a
	paid, err := g.Transact(ctx, doc, aptos.ExactID, wallet, opts)
	if err != nil {
		return err // a decline is a decline (exit 1)
	}
	if paid.Agreement == nil {
		return fail("no agreement receipt")
	}
	say("   receipt: agreed to %s, recorded in %s on %s (agreement signatures: %d)",
		paid.Agreement.ATRHash, paid.Agreement.Transaction, paid.Agreement.Network, agreer.Calls())
	in, err := aptos.Exact{}.Inspect(paid.Signed)
	if err != nil {
		return fail(err)
	}
	seq, _ := in.Details.GetString("sequenceNumber")
	say("   signed: %s octas from %s to %s at sequence number %s, expiring %s (signer calls: %d)",
		Price, in.Grant.Payer, PayTo, seq, in.Grant.PayableUntil.Format("2006-01-02 15:04:05Z"), wallet.Calls())
	say("4. the payment echoes the terms' legal context, H = %s; GET again with PAYMENT-SIGNATURE", in.H)
	resp, body, err := demo.Get(ctx, client, resource, "PAYMENT-SIGNATURE", x402.EncodeHeader(paid.Signed))
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail("the seller refused the payment:", seller.LastRejection())
	}
	say("   the seller checked the echoed hash and the recorded agreement, submitted the transfer to the node and")
	say("   read it settled; it answered %d: %s", resp.StatusCode, body)
	if err := s.KeepPayment(paid.Bytes, header, paid.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(Price, 8, "APT", Network) + ", after an agreement payment of " + demo.Amount(amount, 6, "USDC", network))
	say("5. the same payment again")
	resp, _, err = demo.Get(ctx, client, resource, "PAYMENT-SIGNATURE", x402.EncodeHeader(paid.Signed))
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode == http.StatusOK {
		return fail("the node committed one transfer twice")
	}
	say("   %d: %v", resp.StatusCode, seller.LastRejection())
	say("6. the same seller now serves other bytes at the link while its 402 still advertises H")
	seller.Agreements.Lie(demo.Changed(demo.ATR))
	before := wallet.Calls() + agreer.Calls()
	_, err = g.Transact(ctx, doc, aptos.ExactID, wallet, &gate.TransactOptions{AgreementSigner: agreer})
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		return fail("the changed terms were not declined:", err)
	}
	say("   declined %s: %s", d.Code, d.Detail)
	say("   signer calls for it: %d; nothing was sent", wallet.Calls()+agreer.Calls()-before)
	return nil
}
