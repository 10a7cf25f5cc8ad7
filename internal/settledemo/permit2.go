package settledemo

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/permit2contracts"
	_ "github.com/termsgate/termsgate/internal/permit2seller" // registers the Permit2 rows this package settles
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// SettlePermit2 is the settled run of x402/exact/eip155/permit2 or
// x402/upto/eip155/permit2: the payer approves Permit2 once, the gate pays a
// loopback seller whose option names the chain's token, the seller checks
// that the nonce is H and settles through x402's proxy (upto: 0.015 of the
// 0.02 authorized, sent by the option's facilitator), and the demo reads H
// back from the landed call and from Permit2's nonce record.
func SettlePermit2(pairing string) func(ctx context.Context, s *demo.Session) error {
	upto := pairing == evm.UptoPermit2ID
	return func(ctx context.Context, s *demo.Session) error { return settlePermit2(ctx, s, pairing, upto) }
}

func settlePermit2(ctx context.Context, s *demo.Session, pairing string, upto bool) error {
	say := s.Say
	fail := func(what string, err error) error { return fmt.Errorf("%s: %w", what, err) }
	payer, err := signer.FromHex(signer.AnvilKey, simchain.Network)
	if err != nil {
		return fail("the payer", err)
	}
	payerKey, err := crypto.HexToECDSA(signer.AnvilKey[2:])
	if err != nil {
		return fail("the payer", err)
	}
	chain, err := simchain.New("USDC", "2", big.NewInt(1_000_000), payer.Address())
	if err != nil {
		return fail("cannot start the simulated chain", err)
	}
	defer chain.Close()
	scheme, max, settle, proxy := "exact", int64(10000), int64(10000), permit2contracts.ExactProxy
	extra := jsonv.Obj("name", "USDC", "version", "2", "assetTransferMethod", "permit2")
	if upto {
		scheme, max, settle, proxy = "upto", 20000, 15000, permit2contracts.UptoProxy
		extra = jsonv.Obj("name", "USDC", "version", "2", "facilitatorAddress", chain.Facilitator().Hex())
	}
	var reader interface {
		Bound(jsonv.Value) (string, error)
	} = evm.ExactPermit2{}
	if upto {
		reader = evm.UptoPermit2{}
	}
	seller := x402seller.New(demo.ATR, x402seller.DemoBody)
	seller.Option = jsonv.Obj("scheme", scheme, "network", simchain.Network, "amount", strconv.FormatInt(max, 10),
		"asset", chain.Token.Hex(), "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "maxTimeoutSeconds", 60, "extra", extra)
	// The seller checks what only it can (the nonce is H of its terms); the
	// chain checks the signature, the payee and the amount as it settles.
	seller.Verify = func(payment *jsonv.Object, h atr.Hash, _ time.Time) (string, error) {
		got, err := reader.Bound(payment)
		if err != nil {
			return "", err
		}
		if got != h.String() {
			return "", errors.New("the payment's Permit2 nonce is not H")
		}
		p, err := permit2contracts.PaymentOf(payment)
		if err != nil {
			return "", err
		}
		return p.Owner.Hex(), nil
	}
	seller.Settler = chain.Permit2Settler(big.NewInt(settle))
	srv, err := loopback.Start(seller)
	if err != nil {
		return fail("cannot start the local seller", err)
	}
	defer srv.Close()

	say("termsgate demo --settle --rail %s: a seller on %s (TLS, loopback only) sells %s", pairing, srv.Listener.Addr(), seller.ResourceURL())
	say("chain: go-ethereum's simulated chain %s, in this process; token %s (internal/eip3009token)", simchain.Network, chain.Token.Hex())
	say("contracts, built from their published sources (internal/permit2contracts), at their canonical addresses:")
	say("   Permit2 %s, %s %s", permit2contracts.Permit2.Address.Hex(), proxy.Name, proxy.Address.Hex())
	say("payer: %s (the published Anvil development key), holding 1.000000 of the token", payer.Account())
	say("")
	say("0. setup: the payer approves Permit2 to move its tokens, once")
	approval, landed, err := chain.ApprovePermit2(ctx, payerKey)
	if err != nil {
		return fail("the approval", err)
	}
	say("   approve(Permit2, 2^256-1): transaction %s, block %d, status %d", approval, landed.Block, landed.Status)
	say("1. the gate fetches the terms, compares SHA-256 of the exact bytes with the advertised H, and signs")
	say("   a Permit2 PermitWitnessTransferFrom whose spender is %s and whose nonce is H", proxy.Name)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: simchain.Network, Asset: chain.Token.Hex(), MaxAmount: big.NewInt(max)}}})
	if err != nil {
		return fail("the spend limits", err)
	}
	client := pay.NewClient(&pay.Transport{
		Base:   srv.Transport(),
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: payer,
		Policy: policy,
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, seller.ResourceURL(), nil)
	resp, err := client.Do(req)
	if err != nil {
		return fail("not paid", err)
	}
	demo.Read(resp)
	res := pay.ResultOf(resp)
	if resp.StatusCode != http.StatusOK || res == nil || res.Settlement == nil {
		return fmt.Errorf("the seller refused the payment (%d): %v", resp.StatusCode, seller.LastRejection())
	}
	say("   H = %s", res.H)
	if upto {
		say("   the spend policy judged the signed maximum, %s", demo.Amount(res.Summary.Amount.String(), 6, "USDC", simchain.Network))
	}
	say("2. the seller checked that the nonce is H and settled as a facilitator does, sending")
	if upto {
		say("   settle(permit, amount %d, owner, witness {to, facilitator, validAfter}, signature) to %s", settle, proxy.Name)
	} else {
		say("   settle(permit, owner, witness {to, validAfter}, signature) to %s", proxy.Name)
	}
	say("   which calls Permit2's permitWitnessTransferFrom: Permit2 checks the signature over the nonce H and the witness")
	tx := res.Settlement.Transaction
	landed, err = chain.Node.Receipt(ctx, tx)
	if err != nil || landed == nil {
		return fail("no receipt for "+tx, err)
	}
	say("   transaction %s", tx)
	say("   landed in block %d with status %d", landed.Block, landed.Status)
	settled, err := chain.SettledPermit2(ctx, tx)
	if err != nil {
		return fail("reading the settlement back", err)
	}
	nonce := simchain.NonceHash(settled)
	say("   read back from the landed call alone: %s.settle moved %s from %s to %s, Permit2 nonce %s",
		settled.Proxy.Name, settled.Amount, settled.Owner.Hex(), settled.To.Hex(), nonce)
	if nonce != res.H {
		return fmt.Errorf("the landed call's nonce %s is not H %s", nonce, res.H)
	}
	say("   Permit2's nonceBitmap(payer, H >> 8) has bit H & 0xff set: the nonce H is used")
	say("   the nonce is H: the chain records that this payment agreed to these exact terms")
	say("")
	say("3. the same payment settled again")
	payment, _ := jsonv.AsObject(res.Signed)
	if _, _, err = chain.SettlePermit2(ctx, chain.Deployer, payment, big.NewInt(settle), 0); err == nil {
		return errors.New("the replayed payment settled")
	}
	say("   refused by Permit2: %s", permit2contracts.RevertName(err))
	offer, err := seller.Required()
	if err != nil {
		return err
	}
	if err := s.KeepPayment(res.ATR, x402.EncodeHeader(offer), res.Signed); err != nil {
		return err
	}
	s.Paid(demo.Amount(strconv.FormatInt(settle, 10), 6, "USDC", simchain.Network) + " (settled in block " + strconv.FormatUint(landed.Block, 10) + ")")
	return nil
}
