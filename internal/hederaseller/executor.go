package hederaseller

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/agreementseller"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// The x402/exact/hedera/transfer-executor seller: the payer authorizes the
// seller's executor to move the price, and nothing the payer signs or the
// network records carries H, so the seller is an agreement seller
// (internal/agreementseller): the agreement exchange runs first.

// Executor is the demo's executor contract id.
const Executor = "0.0.7000"

// ExecutorOption is the option the executor seller offers: 1000 tinybars
// to PayTo on testnet through Executor.
func ExecutorOption() *jsonv.Object {
	return jsonv.Obj("scheme", "exact", "network", Testnet, "amount", price, "asset", hedera.HBAR, "payTo", PayTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("assetTransferMethod", "transferExecutor", "executors", []jsonv.Value{Executor}))
}

// NewExecutor returns an agreement seller of body under terms atrBytes
// whose one option is ExecutorOption. Its check is what Executor does with
// the call the facilitator constructs from the option and the payload
// (executeTransfer(payer, asset, payTo, amount, authorization)): the
// authorization is the Ed25519 form, unexpired at now(), its signature the
// payer's under the key keys lists for it over exactly that transfer, and
// not used before. It submits nothing.
func NewExecutor(atrBytes, body []byte, keys map[string]ed25519.PublicKey, now func() time.Time) *agreementseller.Seller {
	s := agreementseller.New(atrBytes, body)
	option := ExecutorOption()
	s.Option = option
	s.Bound = hedera.Executor{}.Bound
	var mu sync.Mutex
	used := map[string]bool{}
	s.Check = func(payment *jsonv.Object) (string, error) {
		payload, _ := payment.GetObject("payload")
		str := func(o *jsonv.Object, k string) string { v, _ := o.GetString(k); return v }
		payer, executor, auth := str(payload, "payer"), str(payload, "executor"), str(payload, "authorization")
		if executor != Executor {
			return "", errors.New("the payment names another executor")
		}
		why := hedera.VerifyExecutorAuthorization(keys[payer], auth, Testnet, executor, payer, str(option, "asset"),
			str(option, "payTo"), str(option, "amount"), now().Unix())
		if why != "" {
			return "", errors.New(why)
		}
		mu.Lock()
		defer mu.Unlock()
		if used[auth] {
			return "", errors.New("the authorization was used before")
		}
		used[auth] = true
		return payer, nil
	}
	return s
}

func init() {
	demo.Register(demo.Row{Pairing: hedera.ExecutorID, Aliases: []string{"hedera-executor"},
		About: "0.00001 HBAR through a transfer executor on Hedera testnet: no public proof, so the agreement exchange (an EIP-3009 agreement payment with nonce H, its receipt) first; the executor checks the payer's Ed25519 authorization",
		Run:   runExecutor})
}

// runExecutor pays the executor seller: the approval of the agreement
// payment with nothing signed, the agreement paid by EIP-3009 with nonce H
// and its receipt read, then the payer's authorization of the executor,
// which echoes H only in the payment's legal context; the seller checks it
// as the executor would; then the same authorization again, refused.
func runExecutor(ctx context.Context, s *demo.Session) error {
	say, fail := s.Say, demo.Fail
	key, err := signer.NewHedera(Testnet+":"+Payer, signer.HederaDevSeed)
	if err != nil {
		return fail(err)
	}
	evmKey, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		return fail(err)
	}
	seller := NewExecutor(demo.ATR, []byte(`{"report":"HBAR/USD 0.2712","as_of":"2026-12-01"}`),
		map[string]ed25519.PublicKey{Payer: key.PublicKey()}, time.Now)
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
	say("termsgate demo: %s against a seller on %s (TLS, loopback only)", hedera.ExecutorID, srv.Listener.Addr())
	say("payer: %s (the published seed 07×32; never hold value with it)", key.Account())
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
	say("   402: %s tinybars of HBAR to %s on %s through executor %s, with terms H = %s and an agreement URL", price, PayTo, Testnet, Executor, h)
	say("2. the gate fetches the terms and compares SHA-256 with H; the authorization will carry nothing of H, so it")
	say("   asks the agreement URL what an agreement costs, and returns that for approval, signing nothing")
	opts := &gate.TransactOptions{AgreementSigner: agreer}
	first, err := g.Transact(ctx, doc, hedera.ExecutorID, wallet, opts)
	if err != nil || first.Approve == nil {
		return fail("no approval asked:", err)
	}
	a := first.Approve
	amount, _ := a.Option.GetString("amount")
	network, _ := a.Option.GetString("network")
	say("   approval asked: %s atomic units of USDC on %s, at %s (signer calls so far: %d)", amount, network, a.URL, wallet.Calls()+agreer.Calls())
	say("3. the payer approves; the gate pays the agreement by EIP-3009 with nonce H, reads its receipt for H, and")
	say("   only then asks the Hedera key for the authorization")
	opts.Approved = a
	paid, err := g.Transact(ctx, doc, hedera.ExecutorID, wallet, opts)
	if err != nil {
		return err // a decline is a decline (exit 1)
	}
	if paid.Agreement == nil {
		return fail("no agreement receipt")
	}
	say("   receipt: agreed to %s, recorded in %s on %s (agreement signatures: %d)",
		paid.Agreement.ATRHash, paid.Agreement.Transaction, paid.Agreement.Network, agreer.Calls())
	in, err := hedera.Executor{}.Inspect(paid.Signed)
	if err != nil {
		return fail(err)
	}
	auth, _ := in.Details.GetString("authorization")
	say("   signed: executor %s may move %s tinybars from %s to %s, an Ed25519 authorization of %d bytes (signer calls: %d)",
		Executor, price, in.Grant.Payer, PayTo, (len(auth)-2)/2, wallet.Calls())
	say("4. the payment echoes the terms' legal context, H = %s; GET again with PAYMENT-SIGNATURE", in.H)
	signature := x402.EncodeHeader(paid.Signed)
	resp, body, err := demo.Get(ctx, client, resource, "PAYMENT-SIGNATURE", signature)
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail("the seller refused the payment:", seller.LastRejection())
	}
	say("   the seller checked the echoed hash and the recorded agreement; its executor checked the authorization")
	say("   (unexpired, the payer's Ed25519 signature over this transfer, first use) and it answered %d: %s", resp.StatusCode, body)
	if err := s.KeepPayment(paid.Bytes, header, paid.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(price, 8, "HBAR", Testnet) + " through a transfer executor, after an agreement payment of " +
		demo.Amount(amount, 6, "USDC", network))
	s.Say("5. the same payment again")
	resp, _, err = demo.Get(ctx, client, resource, "PAYMENT-SIGNATURE", signature)
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode == http.StatusOK {
		return fail("the executor moved the value twice for one authorization")
	}
	say("   %d: %v", resp.StatusCode, seller.LastRejection())
	return nil
}
