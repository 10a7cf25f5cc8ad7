package pay_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
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

var evmPayee = common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C")

// evmRig is go-ethereum's simulated chain (internal/simchain) with the
// EIP-3009 token and Permit2 deployed, served as a JSON-RPC node on a
// loopback HTTP port and read through signer/evmrpc, as a buyer reads its
// chain; an x402 seller on its token; and the Anvil payer. fault, when set,
// answers a request in the node's place (a hostile or broken node); calls
// counts the node's requests by method.
type evmRig struct {
	c      *simchain.Chain
	seller *x402seller.Seller
	srv    *loopback.Server
	wallet *signer.Local
	key    *ecdsa.PrivateKey
	reader evm.Reader
	fault  func(method string, w http.ResponseWriter) bool
	calls  map[string]*atomic.Int64
}

func newEVMRig(t *testing.T, terms []byte) *evmRig {
	t.Helper()
	wallet, err := signer.FromHex(signer.AnvilKey, simchain.Network)
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.HexToECDSA(signer.AnvilKey[2:])
	if err != nil {
		t.Fatal(err)
	}
	c, err := simchain.New("USDC", "2", big.NewInt(1_000_000), wallet.Address())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	rig := &evmRig{c: c, wallet: wallet, key: key, calls: map[string]*atomic.Int64{}}
	for _, m := range []string{"eth_chainId", "eth_getTransactionReceipt", "eth_getBlockByNumber", "eth_call", "eth_getTransactionByHash"} {
		rig.calls[m] = new(atomic.Int64)
	}
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		v, _ := jsonv.Parse(body)
		o, _ := jsonv.AsObject(v)
		method, _ := o.GetString("method")
		if n := rig.calls[method]; n != nil {
			n.Add(1)
		}
		if rig.fault != nil && rig.fault(method, w) {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		c.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(node.Close)
	client, err := evmrpc.Dial(node.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	if rig.reader, err = client.Reader(context.Background()); err != nil {
		t.Fatal(err)
	}
	rig.seller = x402seller.New(terms, []byte(`{"report":"paid"}`))
	rig.seller.Option = jsonv.Obj("scheme", "exact", "network", simchain.Network, "amount", "10000",
		"asset", c.Token.Hex(), "payTo", evmPayee.Hex(), "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "USDC", "version", "2"))
	if rig.srv, err = loopback.Start(rig.seller); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rig.srv.Close)
	return rig
}

func (r *evmRig) count(method string) int64 { return r.calls[method].Load() }

// reads is the node's settlement reads so far: receipts, heads, calls and
// transactions.
func (r *evmRig) reads() int64 {
	return r.count("eth_getTransactionReceipt") + r.count("eth_getBlockByNumber") + r.count("eth_call") + r.count("eth_getTransactionByHash")
}

// pay pays the seller once through a Transport whose Verifier reads the
// rig's node, within max; the seller must accept.
func (r *evmRig) pay(t *testing.T, max int64) *pay.Result {
	t.Helper()
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: simchain.Network, MaxAmount: big.NewInt(max)}}})
	if err != nil {
		t.Fatal(err)
	}
	tr := &pay.Transport{Base: r.srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: r.srv.Client()}},
		Signer: r.wallet, Policy: policy, Verify: &pay.Verifier{EVM: map[string]evm.Reader{simchain.Network: r.reader}}}
	resp, err := pay.NewClient(tr).Get(r.seller.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	res := pay.ResultOf(resp)
	if resp.StatusCode != http.StatusOK || res == nil {
		t.Fatalf("status %d: %v", resp.StatusCode, r.seller.LastRejection())
	}
	return res
}

// transfer sends the token's plain transfer(to, value) from the payer: a
// Transfer log with no authorization used.
func (r *evmRig) transfer(t *testing.T, to common.Address, value int64) string {
	t.Helper()
	data := append(common.FromHex("0xa9059cbb"), common.LeftPadBytes(to.Bytes(), 32)...)
	data = append(data, common.LeftPadBytes(big.NewInt(value).Bytes(), 32)...)
	hash, l, err := r.c.Transact(context.Background(), r.key, &r.c.Token, data, 0)
	if err != nil || l.Status != 1 {
		t.Fatalf("transfer: %v", err)
	}
	return hash
}

func wantEVMStatus(t *testing.T, v *pay.Verification, state, why string) {
	t.Helper()
	if str(v.Status, "state") != state || str(v.Status, "why") != why {
		t.Fatalf("status %s, want %s %s", jsonv.String(v.Status), state, why)
	}
}

// TestSettlementEIP3009: the buyer reads the x402/exact/eip155/eip3009
// settlement the seller names from a real EVM's receipt: the token's
// AuthorizationUsed(payer, H) and Transfer(payer, payee, amount) logs. Every
// other transaction a seller may name, and every node that does not answer
// a receipt, is reported on the result, with the reads counted.
func TestSettlementEIP3009(t *testing.T) {
	t.Run("settled", func(t *testing.T) {
		rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"v-settled"}`))
		rig.seller.Settler = rig.c.Settler
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified)
		if res.Verified.Transaction != res.Settlement.Transaction || res.Verified.Moved == nil || res.Verified.Moved.Int64() != 10000 {
			t.Fatalf("verified %+v", res.Verified)
		}
		wantEVMStatus(t, res.Verified, evm.StateSettled, "")
		// One receipt, and at most the two finality heads.
		if rig.count("eth_getTransactionReceipt") != 1 || rig.count("eth_getBlockByNumber") > 2 || rig.count("eth_call") != 0 {
			t.Fatalf("reads: %d receipts, %d heads, %d calls", rig.count("eth_getTransactionReceipt"), rig.count("eth_getBlockByNumber"), rig.count("eth_call"))
		}
	})
	t.Run("another-payment", func(t *testing.T) {
		// The seller settles an earlier payment of the same payer, to the
		// same payee and amount, and names it for this one: the transfer
		// matches, but the authorization used is the other's.
		rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"v-earlier"}`))
		earlier := rig.pay(t, 10000) // unsettled (the seller names 0x00…00)
		rig.seller.SetATR([]byte(`{"atrVersion":"1","id":"v-later"}`))
		rig.seller.Settler = func(ctx context.Context, _ *jsonv.Object) (string, error) {
			hash, _, err := rig.c.SettleX402(ctx, earlier.Signed.(*jsonv.Object), 0)
			return hash, err
		}
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, pay.ProblemNoH)
		wantEVMStatus(t, res.Verified, evm.StateFailed, evm.WhyAuthorizationNotUsed)
	})
	t.Run("plain-transfer-elsewhere", func(t *testing.T) {
		// A transfer of the payer's (the key is public) to another account,
		// with no authorization used.
		rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"v-plain"}`))
		rig.seller.Settler = func(context.Context, *jsonv.Object) (string, error) {
			return rig.transfer(t, common.HexToAddress("0x00000000000000000000000000000000000000b0"), 10000), nil
		}
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, pay.ProblemNoH, pay.ProblemPayee)
	})
	t.Run("short-transfer", func(t *testing.T) {
		rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"v-short"}`))
		rig.seller.Settler = func(context.Context, *jsonv.Object) (string, error) { return rig.transfer(t, evmPayee, 9999), nil }
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, pay.ProblemNoH, pay.ProblemAmount)
	})
	t.Run("reverted", func(t *testing.T) {
		// Settled, then sent again: the replay lands with status 0, and
		// the seller names it.
		rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"v-reverted"}`))
		rig.seller.Settler = func(ctx context.Context, p *jsonv.Object) (string, error) {
			if _, _, err := rig.c.SettleX402(ctx, p, 0); err != nil {
				return "", err
			}
			hash, _, _ := rig.c.SettleX402(ctx, p, 300_000)
			return hash, nil
		}
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		wantEVMStatus(t, res.Verified, evm.StateFailed, evm.WhyReverted)
	})
	t.Run("not-found", func(t *testing.T) {
		// The seller does not settle; its answer names 0x00…00.
		rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"v-unsettled"}`))
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		wantEVMStatus(t, res.Verified, evm.StatePending, evm.WhyNotFound)
		if rig.count("eth_getTransactionReceipt") != 1 || rig.count("eth_getBlockByNumber") != 0 {
			t.Fatalf("reads: %d receipts, %d heads", rig.count("eth_getTransactionReceipt"), rig.count("eth_getBlockByNumber"))
		}
	})
	t.Run("not-named", func(t *testing.T) {
		rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"v-unnamed"}`))
		rig.seller.Settler = func(context.Context, *jsonv.Object) (string, error) { return "", nil }
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, pay.ProblemNoTransaction)
		if rig.reads() != 0 {
			t.Fatalf("%d reads with no transaction to read", rig.reads())
		}
	})
	t.Run("malformed-receipt", func(t *testing.T) {
		rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"v-malformed"}`))
		rig.seller.Settler = rig.c.Settler
		rig.fault = func(method string, w http.ResponseWriter) bool {
			if method != "eth_getTransactionReceipt" {
				return false
			}
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"status":"0x1","blockNumber":"0x2","logs":"none"}}`))
			return true
		}
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		wantEVMStatus(t, res.Verified, evm.StatePending, evm.WhyUnreadable)
	})
	t.Run("node-down", func(t *testing.T) {
		rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"v-down"}`))
		rig.seller.Settler = rig.c.Settler
		rig.fault = func(method string, w http.ResponseWriter) bool {
			if method == "eth_getTransactionReceipt" {
				http.Error(w, "upstream gone", http.StatusBadGateway)
				return true
			}
			return false
		}
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		wantEVMStatus(t, res.Verified, evm.StatePending, evm.WhyUnreadable)
	})
	t.Run("no-reader", func(t *testing.T) {
		v := (&pay.Verifier{EVM: map[string]evm.Reader{"eip155:1": nil}}).Check(&pay.Result{Pairing: evm.ExactEIP3009ID,
			Summary: pay.Summary{Grant: rails.Grant{Network: "eip155:8453"}}})
		wantProblems(t, v, pay.ProblemNoReader)
	})
}

// permit2Rig is an evmRig selling by Permit2 (exact or upto), the payer's
// one approval of Permit2 made.
func permit2Rig(t *testing.T, scheme string, max int64, terms []byte) *evmRig {
	t.Helper()
	rig := newEVMRig(t, terms)
	extra := jsonv.Obj("name", "USDC", "version", "2", "assetTransferMethod", "permit2")
	if scheme == "upto" {
		extra = jsonv.Obj("name", "USDC", "version", "2", "facilitatorAddress", rig.c.Facilitator().Hex())
	}
	rig.seller.Option = jsonv.Obj("scheme", scheme, "network", simchain.Network, "amount", big.NewInt(max).String(),
		"asset", rig.c.Token.Hex(), "payTo", evmPayee.Hex(), "maxTimeoutSeconds", 60, "extra", extra)
	rig.seller.Verify = func(payment *jsonv.Object, _ atr.Hash, _ time.Time) (string, error) {
		p, err := permit2contracts.PaymentOf(payment)
		if err != nil {
			return "", err
		}
		return p.Owner.Hex(), nil
	}
	if _, l, err := rig.c.ApprovePermit2(context.Background(), rig.key); err != nil || l.Status != 1 {
		t.Fatalf("approve: %v", err)
	}
	return rig
}

// TestSettlementPermit2: for x402's exact and upto Permit2 pairings the
// buyer reads the named transaction's Transfer from payer to payee (upto:
// what was settled, at most the maximum signed) and, through rails/evm's
// Status, that the settling call carried this payment's nonce H (and for
// upto that Permit2 holds it used); a seller naming another Permit2
// settlement of the same payer to the same payee is caught.
func TestSettlementPermit2(t *testing.T) {
	for _, c := range []struct {
		scheme         string
		max, settle    int64
		calls, txReads int64
	}{
		{"exact", 10000, 10000, 0, 1},
		{"upto", 20000, 15000, 1, 1},
	} {
		t.Run(c.scheme, func(t *testing.T) {
			rig := permit2Rig(t, c.scheme, c.max, []byte(`{"atrVersion":"1","id":"p2-`+c.scheme+`"}`))
			rig.seller.Settler = rig.c.Permit2Settler(big.NewInt(c.settle))
			res := rig.pay(t, c.max)
			wantProblems(t, res.Verified)
			wantEVMStatus(t, res.Verified, evm.StateSettled, "")
			if res.Verified.Moved == nil || res.Verified.Moved.Int64() != c.settle {
				t.Fatalf("moved %v, want %d", res.Verified.Moved, c.settle)
			}
			if rig.count("eth_call") != c.calls || rig.count("eth_getTransactionByHash") != c.txReads || rig.count("eth_getTransactionReceipt") != 2 {
				t.Fatalf("reads: %d receipts, %d calls, %d transactions", rig.count("eth_getTransactionReceipt"), rig.count("eth_call"), rig.count("eth_getTransactionByHash"))
			}

			// Another payment of the same payer to the same payee: the
			// seller settles nothing and names the first one's transaction.
			first := res.Settlement.Transaction
			rig.seller.SetATR([]byte(`{"atrVersion":"1","id":"p2-` + c.scheme + `-again"}`))
			rig.seller.Settler = func(context.Context, *jsonv.Object) (string, error) { return first, nil }
			again := rig.pay(t, c.max)
			wantProblems(t, again.Verified, pay.ProblemNoH)
			want := evm.WhyNonceNotInInput
			if c.scheme == "upto" {
				want = evm.WhyNonceNotUsed
			}
			wantEVMStatus(t, again.Verified, evm.StateFailed, want)
		})
	}
	t.Run("upto-above-max", func(t *testing.T) {
		// A transfer above what the upto payment authorized is not it.
		rig := permit2Rig(t, "upto", 20000, []byte(`{"atrVersion":"1","id":"p2-above"}`))
		rig.seller.Settler = func(context.Context, *jsonv.Object) (string, error) { return rig.transfer(t, evmPayee, 20001), nil }
		res := rig.pay(t, 20000)
		wantProblems(t, res.Verified, pay.ProblemAmount)
		wantEVMStatus(t, res.Verified, evm.StateFailed, evm.WhyTransferNotFound)
	})
}
