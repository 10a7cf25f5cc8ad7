package simchain_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/eip3009token"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

var (
	termsA = []byte(`{"atrVersion":"1","id":"settle-a","seller":{"note":"terms A"}}`)
	termsB = []byte(`{"atrVersion":"1","id":"settle-b","seller":{"note":"terms B"}}`)
	termsC = []byte(`{"atrVersion":"1","id":"settle-c","seller":{"note":"terms C"}}`)
	payee  = common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C")
	minted = big.NewInt(1_000_000)
)

// payer is the Anvil development key on the simulated chain.
func payer(t testing.TB) *signer.Local {
	t.Helper()
	p, err := signer.FromHex(signer.AnvilKey, simchain.Network)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newChain(t testing.TB) *simchain.Chain {
	t.Helper()
	c, err := simchain.New("USDC", "2", minted, payer(t).Address())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func balance(t *testing.T, c *simchain.Chain, who common.Address) *big.Int {
	t.Helper()
	b, err := c.BalanceOf(context.Background(), who)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// authorizationUsed is the one AuthorizationUsed log the token emitted in l:
// its authorizer and nonce topics.
func authorizationUsed(t *testing.T, c *simchain.Chain, l *evmrpc.Landed) (authorizer, nonce string) {
	t.Helper()
	found := 0
	for _, v := range l.Logs {
		lg := evm.ParseLog(v)
		if evm.SameAddress(lg.Address, c.Token.Hex()) && len(lg.Topics) == 3 && evm.SameBytes(lg.Topic(0), eip3009token.TopicAuthorizationUsed.Hex()) {
			found++
			authorizer, nonce = lg.Topic(1), lg.Topic(2)
		}
	}
	if found != 1 {
		t.Fatalf("%d AuthorizationUsed logs from the token in %s", found, jsonv.String(l.Raw))
	}
	return authorizer, nonce
}

// x402Seller sells on the simulated chain's token.
func x402Seller(c *simchain.Chain, terms []byte) *x402seller.Seller {
	s := x402seller.New(terms, []byte(`{"report":"paid"}`))
	s.Option = jsonv.Obj("scheme", "exact", "network", simchain.Network, "amount", "10000",
		"asset", c.Token.Hex(), "payTo", payee.Hex(), "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "USDC", "version", "2"))
	return s
}

// pay402 pays the seller's resource once through the paying client.
func pay402(t *testing.T, s *x402seller.Seller, srv *loopback.Server, wallet gate.Signer) *pay.Result {
	t.Helper()
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: simchain.Network, MaxAmount: big.NewInt(10000)}}})
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

// refuses asserts that the token refuses to settle: the node's gas estimate
// fails with the token's reason, and sent anyway the transaction lands with
// status 0 and moves nothing.
func refuses(t *testing.T, c *simchain.Chain, settle func(gas uint64) (string, *evmrpc.Landed, error), reason string) {
	t.Helper()
	before := balance(t, c, payee)
	if _, _, err := settle(0); err == nil || !strings.Contains(err.Error(), reason) {
		t.Fatalf("estimate: want %q, got %v", reason, err)
	}
	hash, l, err := settle(300_000)
	if !errors.Is(err, evmrpc.ErrReverted) || l == nil || l.Status != 0 || l.Hash != hash {
		t.Fatalf("sent anyway: %v %+v", err, l)
	}
	if after := balance(t, c, payee); after.Cmp(before) != 0 {
		t.Fatalf("a refused settlement moved %s", new(big.Int).Sub(after, before))
	}
}

func TestCommittedBytecode(t *testing.T) {
	if got := sha256Hex(eip3009token.Bytecode()); got != eip3009token.BytecodeSHA256 {
		t.Fatalf("Token.bin hashes to %s; README.md and token.go record %s", got, eip3009token.BytecodeSHA256)
	}
}

// TestX402SettlesOnChain: termsgate pays a loopback x402 seller, which
// settles the payment with transferWithAuthorization on a real EVM, and
// everything H promises is read back from the chain.
func TestX402SettlesOnChain(t *testing.T) {
	ctx := context.Background()
	c := newChain(t)
	wallet := payer(t)
	s := x402Seller(c, termsB)
	srv, err := loopback.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	// A payment for terms B, which the seller keeps unsettled.
	other := pay402(t, s, srv, wallet)
	hB := atr.Sum(termsB)

	// B's signature over A's nonce (A's terms, not yet paid): the token
	// recovers another signer than the payer and refuses it.
	h := atr.Sum(termsA)
	forged := other.Signed.(*jsonv.Object).Clone()
	path(t, forged, "payload", "authorization").Set("nonce", h.String())
	refuses(t, c, func(gas uint64) (string, *evmrpc.Landed, error) { return c.SettleX402(ctx, forged, gas) }, "invalid signature")

	// Terms A, settled by the seller as it serves the resource.
	s.SetATR(termsA)
	s.Settler = c.Settler
	before := balance(t, c, payee)
	res := pay402(t, s, srv, wallet)
	if res.H != h || res.Settlement == nil || !res.Settlement.Success {
		t.Fatalf("paid %s, settlement %+v", res.H, res.Settlement)
	}
	tx := res.Settlement.Transaction
	l, err := c.Node.Receipt(ctx, tx)
	if err != nil || l == nil {
		t.Fatalf("receipt of %s: %v", tx, err)
	}
	if l.Status != 1 {
		t.Fatalf("status %d", l.Status)
	}
	if got := new(big.Int).Sub(balance(t, c, payee), before); got.Cmp(big.NewInt(10000)) != 0 {
		t.Fatalf("the payee's balance rose by %s, not 10000", got)
	}
	authorizer, nonce := authorizationUsed(t, c, l)
	if nonce != h.String() {
		t.Fatalf("AuthorizationUsed nonce %s, H %s", nonce, h)
	}
	if a, _ := evm.TopicAddress(authorizer); !evm.SameAddress(a, wallet.Address().Hex()) {
		t.Fatalf("authorizer %s", authorizer)
	}
	if used, err := c.AuthorizationUsed(ctx, wallet.Address(), h); err != nil || !used {
		t.Fatalf("authorizationState(payer, H) = %v, %v", used, err)
	}
	// The gate re-checks the payment against the kept bytes, and the
	// settlement readers find the same H in the landed receipt.
	if got, err := (&gate.Gate{}).Check(termsA, evm.ExactEIP3009ID, res.Signed); err != nil || got != h {
		t.Fatalf("gate.Check: %s, %v", got, err)
	}
	reader, err := c.Node.Reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref := jsonv.Obj("network", simchain.Network, "asset", c.Token.Hex(), "transaction", tx)
	if got, err := (evm.ExactEIP3009{}).Recover(ref, reader); err != nil || got != h.String() {
		t.Fatalf("Recover: %s, %v", got, err)
	}
	withH := ref.Clone()
	withH.Set("h", h.String())
	if st := (evm.ExactEIP3009{}).Status(withH, reader); st.State != evm.StateSettled {
		t.Fatalf("Status: %s", jsonv.String(st.JSON()))
	}

	payment := res.Signed.(*jsonv.Object)
	t.Run("replay reverts", func(t *testing.T) {
		refuses(t, c, func(gas uint64) (string, *evmrpc.Landed, error) { return c.SettleX402(ctx, payment, gas) }, "authorization is used")
	})
	t.Run("other terms cannot settle as the first", func(t *testing.T) {
		auth := path(t, other.Signed, "payload", "authorization")
		if n, _ := auth.GetString("nonce"); n != hB.String() || hB == h {
			t.Fatalf("the payment for terms B carries nonce %s", n)
		}
		// Settled as it is, B's payment records B's hash, and a reader
		// looking for A's finds no use of it there.
		hash, l, err := c.SettleX402(ctx, other.Signed.(*jsonv.Object), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, nonce := authorizationUsed(t, c, l); nonce != hB.String() {
			t.Fatalf("B's settlement used nonce %s", nonce)
		}
		asA := jsonv.Obj("network", simchain.Network, "asset", c.Token.Hex(), "transaction", hash, "h", h.String())
		if st := (evm.ExactEIP3009{}).Status(asA, reader); st.State != evm.StateFailed {
			t.Fatalf("B's settlement read as A's: %s", jsonv.String(st.JSON()))
		}
	})
	t.Run("expired reverts", func(t *testing.T) {
		s.Settler = nil
		s.SetATR(termsC)
		late := pay402(t, s, srv, wallet).Signed.(*jsonv.Object)
		if err := c.AdjustTime(2 * time.Minute); err != nil { // past validBefore (60 s)
			t.Fatal(err)
		}
		refuses(t, c, func(gas uint64) (string, *evmrpc.Landed, error) { return c.SettleX402(ctx, late, gas) }, "authorization is expired")
	})
}

func path(t *testing.T, v jsonv.Value, keys ...string) *jsonv.Object {
	t.Helper()
	for _, k := range keys {
		o, ok := jsonv.AsObject(v)
		if !ok {
			t.Fatalf("no %s", k)
		}
		v, _ = o.Get(k)
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		t.Fatalf("%v is not an object", keys)
	}
	return o
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
