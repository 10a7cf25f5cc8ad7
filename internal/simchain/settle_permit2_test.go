package simchain_test

import (
	"context"
	"errors"
	"io"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/permit2contracts"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// permit2Case is one x402 Permit2 pairing as the tests settle it.
type permit2Case struct {
	pairing interface {
		rails.Pairing
		Reference(jsonv.Value) (*jsonv.Object, error)
		Status(*jsonv.Object, evm.Reader) evm.Status
	}
	scheme string
	max    int64 // the option's amount: exact moves it, upto at most it
	settle int64 // what the seller settles
}

var permit2Cases = []permit2Case{
	{pairing: evm.ExactPermit2{}, scheme: "exact", max: 10000, settle: 10000},
	{pairing: evm.UptoPermit2{}, scheme: "upto", max: 20000, settle: 15000},
}

// permit2Seller sells on the simulated chain's token by Permit2. It checks
// that the payment carries H as its nonce (rails/evm's read-back); the chain
// checks the signature as it settles.
func permit2Seller(c *simchain.Chain, pc permit2Case, terms []byte) *x402seller.Seller {
	s := x402seller.New(terms, []byte(`{"report":"paid"}`))
	extra := jsonv.Obj("name", "USDC", "version", "2", "assetTransferMethod", "permit2")
	if pc.scheme == "upto" {
		extra = jsonv.Obj("name", "USDC", "version", "2", "facilitatorAddress", c.Facilitator().Hex())
	}
	s.Option = jsonv.Obj("scheme", pc.scheme, "network", simchain.Network, "amount", big.NewInt(pc.max).String(),
		"asset", c.Token.Hex(), "payTo", payee.Hex(), "maxTimeoutSeconds", 60, "extra", extra)
	s.Verify = func(payment *jsonv.Object, h atr.Hash, _ time.Time) (string, error) {
		got, err := pc.pairing.Bound(payment)
		if err != nil {
			return "", err
		}
		if got != h.String() {
			return "", errors.New("the payment's nonce is not H")
		}
		p, err := permit2contracts.PaymentOf(payment)
		if err != nil {
			return "", err
		}
		return p.Owner.Hex(), nil
	}
	return s
}

// payPermit2 pays the seller's resource once through the paying client,
// within the option's maximum.
func payPermit2(t *testing.T, s *x402seller.Seller, srv *loopback.Server, wallet gate.Signer, max int64) *pay.Result {
	t.Helper()
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: simchain.Network, MaxAmount: big.NewInt(max)}}})
	if err != nil {
		t.Fatal(err)
	}
	client := pay.NewClient(&pay.Transport{Base: srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}, Signer: wallet, Policy: policy})
	resp, err := client.Get(s.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	res := pay.ResultOf(resp)
	if resp.StatusCode != http.StatusOK || res == nil {
		t.Fatalf("status %d: %v", resp.StatusCode, s.LastRejection())
	}
	return res
}

// refusedBy asserts that the chain refuses a settlement with the named
// custom error: the node's gas estimate fails with it, and sent anyway the
// transaction lands with status 0 and moves nothing.
func refusedBy(t *testing.T, c *simchain.Chain, settle func(gas uint64) (string, *evmrpc.Landed, error), name string) {
	t.Helper()
	before := balance(t, c, payee)
	if _, _, err := settle(0); err == nil || permit2contracts.RevertName(err) != name {
		t.Fatalf("estimate: want %s, got %q (%v)", name, permit2contracts.RevertName(err), err)
	}
	hash, l, err := settle(300_000)
	if !errors.Is(err, evmrpc.ErrReverted) || l == nil || l.Status != 0 || l.Hash != hash {
		t.Fatalf("sent anyway: %v %+v", err, l)
	}
	if after := balance(t, c, payee); after.Cmp(before) != 0 {
		t.Fatalf("a refused settlement moved %s", new(big.Int).Sub(after, before))
	}
}

// TestPermit2SettlesOnChain: for each x402 Permit2 pairing, termsgate pays a
// loopback seller (the buyer's one approval of Permit2 done first), which
// settles by calling x402's proxy on Permit2 at their canonical addresses;
// the landed call carries H as the Permit2 nonce, Permit2 records it used,
// and the hostile settlements are refused by the chain.
func TestPermit2SettlesOnChain(t *testing.T) {
	for _, pc := range permit2Cases {
		t.Run(pc.pairing.ID(), func(t *testing.T) { permit2Settles(t, pc) })
	}
}

func permit2Settles(t *testing.T, pc permit2Case) {
	ctx := context.Background()
	c := newChain(t)
	wallet := payer(t)
	key, err := crypto.HexToECDSA(signer.AnvilKey[2:])
	if err != nil {
		t.Fatal(err)
	}
	if _, l, err := c.ApprovePermit2(ctx, key); err != nil || l.Status != 1 {
		t.Fatalf("approve: %v", err)
	}
	if a, err := c.Allowance(ctx, wallet.Address(), permit2contracts.Permit2.Address); err != nil || a.Cmp(simchain.MaxUint256) != 0 {
		t.Fatalf("allowance %v, %v", a, err)
	}
	s := permit2Seller(c, pc, termsB)
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	// A payment for terms B, kept unsettled.
	other := payPermit2(t, s, srv, wallet, pc.max).Signed.(*jsonv.Object)

	// Terms A, settled by the seller as it serves the resource.
	h := atr.Sum(termsA)
	s.SetATR(termsA)
	s.Settler = c.Permit2Settler(big.NewInt(pc.settle))
	before := balance(t, c, payee)
	res := payPermit2(t, s, srv, wallet, pc.max)
	if res.H != h || res.Settlement == nil || !res.Settlement.Success {
		t.Fatalf("paid %s, settlement %+v, %v", res.H, res.Settlement, s.LastRejection())
	}
	if got := new(big.Int).Sub(balance(t, c, payee), before); got.Cmp(big.NewInt(pc.settle)) != 0 {
		t.Fatalf("the payee's balance rose by %s, not %d", got, pc.settle)
	}
	tx := res.Settlement.Transaction
	settled, err := c.SettledPermit2(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if got := simchain.NonceHash(settled); got != h {
		t.Fatalf("the landed settle call's Permit2 nonce is %s, H %s", got, h)
	}
	if settled.Owner != wallet.Address() || settled.To != payee || settled.Amount.Cmp(big.NewInt(pc.settle)) != 0 ||
		settled.Proxy.Address != common.HexToAddress(map[string]string{"exact": evm.ExactPermit2Proxy, "upto": evm.UptoPermit2Proxy}[pc.scheme]) {
		t.Fatalf("the landed call: %+v", settled)
	}
	if used, err := c.Permit2NonceUsed(ctx, wallet.Address(), h); err != nil || !used {
		t.Fatalf("Permit2 nonceBitmap(payer, H): used %v, %v", used, err)
	}
	if got, err := (&gate.Gate{}).Check(termsA, pc.pairing.ID(), res.Signed); err != nil || got != h {
		t.Fatalf("gate.Check: %s, %v", got, err)
	}
	// The seller's recorded reference, with the settling transaction, reads
	// settled through rails/evm's Permit2 reader.
	reader, err := c.Reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := pc.pairing.Reference(res.Signed)
	if err != nil {
		t.Fatal(err)
	}
	ref.Set("transaction", tx)
	if st := pc.pairing.Status(ref, reader); st.State != evm.StateSettled {
		t.Fatalf("Status: %s", jsonv.String(st.JSON()))
	}
	// B's reference pointed at A's settling transaction: the same payer,
	// payee and (for exact) amount in the receipt, but the call's input
	// carries A's nonce, not B's, so it is not credited to B. Upto's check
	// of Permit2's nonce record refuses it first (B's nonce is unused yet).
	otherRef, err := pc.pairing.Reference(other)
	if err != nil {
		t.Fatal(err)
	}
	otherRef.Set("transaction", tx)
	wantWhy := map[string]string{"exact": evm.WhyNonceNotInInput, "upto": evm.WhyNonceNotUsed}[pc.scheme]
	if st := pc.pairing.Status(otherRef, reader); st.State != evm.StateFailed || st.Why != wantWhy {
		t.Fatalf("another payment's reference on this settlement: %s, want failed %s", jsonv.String(st.JSON()), wantWhy)
	}

	payment := res.Signed.(*jsonv.Object)
	settle := func(p *jsonv.Object, amount int64) func(gas uint64) (string, *evmrpc.Landed, error) {
		return func(gas uint64) (string, *evmrpc.Landed, error) {
			return c.SettlePermit2(ctx, c.Deployer, p, big.NewInt(amount), gas)
		}
	}
	t.Run("replay", func(t *testing.T) { refusedBy(t, c, settle(payment, pc.settle), "InvalidNonce") })
	t.Run("nonce not H of the signed terms", func(t *testing.T) {
		// B's signature with C's hash put in its nonce: Permit2 recovers
		// another signer than the payer.
		forged := other.Clone()
		path(t, forged, "payload", "permit2Authorization").Set("nonce", evm.NonceDecimal(atr.Sum(termsC)))
		refusedBy(t, c, settle(forged, pc.settle), "InvalidSigner")
	})
	t.Run("wrong payee", func(t *testing.T) {
		redirected := other.Clone()
		path(t, redirected, "payload", "permit2Authorization", "witness").Set("to", "0x90F79bf6EB2c4f870365E785982E1f101E93b906")
		refusedBy(t, c, settle(redirected, pc.settle), "InvalidSigner")
	})
	if pc.scheme == "upto" {
		t.Run("more than the maximum", func(t *testing.T) { refusedBy(t, c, settle(other, pc.max+1), "AmountExceedsPermitted") })
		t.Run("not the facilitator", func(t *testing.T) {
			stranger, _ := crypto.HexToECDSA(signer.AnvilKey[2:]) // the payer itself, not the witness's facilitator
			refusedBy(t, c, func(gas uint64) (string, *evmrpc.Landed, error) {
				return c.SettlePermit2(ctx, stranger, other, big.NewInt(pc.settle), gas)
			}, "UnauthorizedFacilitator")
		})
	}
	t.Run("other terms settle as themselves", func(t *testing.T) {
		// B's payment, settled as it is, lands with B's hash in its call:
		// the read-back from the landed call tells it from A's, where a
		// transfer of the same payer, payee and amount cannot (rails/evm's
		// Status reads the call's input for it: docs/settlement.md).
		hB := atr.Sum(termsB)
		hash, _, err := c.SettlePermit2(ctx, c.Deployer, other, big.NewInt(pc.settle), 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.SettledPermit2(ctx, hash)
		if err != nil || simchain.NonceHash(got) != hB || hB == h {
			t.Fatalf("B's settlement carries %v, %v", got, err)
		}
	})
	t.Run("expired", func(t *testing.T) {
		s.Settler = nil
		s.SetATR(termsC)
		late := payPermit2(t, s, srv, wallet, pc.max).Signed.(*jsonv.Object)
		if err := c.AdjustTime(2 * time.Minute); err != nil { // past the deadline (60 s)
			t.Fatal(err)
		}
		refusedBy(t, c, settle(late, pc.settle), "SignatureExpired")
	})
}
