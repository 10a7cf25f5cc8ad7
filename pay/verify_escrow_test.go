package pay_test

import (
	"context"
	"errors"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/eip3009token"
	"github.com/termsgate/termsgate/internal/permit2contracts"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
)

// payAs is evmRig.pay with another payer's wallet.
func (r *evmRig) payAs(t *testing.T, wallet gate.Signer, max int64) *pay.Result {
	t.Helper()
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: simchain.Network, MaxAmount: big.NewInt(max)}}})
	if err != nil {
		t.Fatal(err)
	}
	tr := &pay.Transport{Base: r.srv.Transport(), Gate: &gate.Gate{Fetcher: &atr.Fetcher{Client: r.srv.Client()}},
		Signer: wallet, Policy: policy, Verify: &pay.Verifier{EVM: map[string]evm.Reader{simchain.Network: r.reader}}}
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

// escrowOption sells amount to payTo through the simulated chain's v1.0
// commerce-payments escrow by Permit2, the chain's deployer its operator
// (internal/simchain/settle_escrow_test.go's seller).
func escrowOption(c *simchain.Chain, payTo common.Address, amount int64) *jsonv.Object {
	now := time.Now().Unix()
	return jsonv.Obj("scheme", "auth-capture", "network", simchain.Network, "amount", big.NewInt(amount).String(),
		"asset", c.Token.Hex(), "payTo", payTo.Hex(), "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "USDC", "version", "2", "captureAuthorizer", c.Facilitator().Hex(),
			"captureDeadline", now+3600, "refundDeadline", now+86400,
			"feeRecipient", c.Facilitator().Hex(), "minFeeBps", 0, "maxFeeBps", 100,
			"assetTransferMethod", "permit2", "authCaptureEscrow", permit2contracts.Escrow.Address.Hex()))
}

func escrowRig(t *testing.T, terms []byte) *evmRig {
	t.Helper()
	rig := newEVMRig(t, terms)
	rig.seller.Option = escrowOption(rig.c, evmPayee, 10000)
	rig.seller.Verify = func(payment *jsonv.Object, h atr.Hash, _ time.Time) (string, error) {
		got, err := (evm.AuthCapturePermit2{}).Bound(payment)
		if err != nil {
			return "", err
		}
		if got != h.String() {
			return "", errors.New("the payment does not carry H")
		}
		p, err := permit2contracts.EscrowPaymentOf(payment)
		if err != nil {
			return "", err
		}
		return p.Info.Payer.Hex(), nil
	}
	if _, l, err := rig.c.ApprovePermit2(context.Background(), rig.key); err != nil || l.Status != 1 {
		t.Fatalf("approve: %v", err)
	}
	return rig
}

// authorizing is a Settler that authorizes p on the escrow instead of the
// payment it is given.
func authorizing(rig *evmRig, p *pay.Result) func(context.Context, *jsonv.Object) (string, error) {
	return func(ctx context.Context, _ *jsonv.Object) (string, error) {
		hash, _, err := rig.c.AuthorizeEscrow(ctx, rig.c.Deployer, p.Signed.(*jsonv.Object), nil, 0)
		return hash, err
	}
}

// TestSettlementAuthCapturePermit2: the buyer reads the operator's
// authorize on the commerce-payments escrow (v1.0, by Permit2) on a real
// EVM: the escrow's PaymentAuthorized naming this payment's hash (its salt
// H) for the maximum, and the payer's Transfer into the operator's token
// store. An authorize of another payment (another payee, a smaller amount,
// another payer, another H), a plain transfer, a revert and nothing landed
// are each their problem.
func TestSettlementAuthCapturePermit2(t *testing.T) {
	ctx := context.Background()
	t.Run("settled", func(t *testing.T) {
		rig := escrowRig(t, []byte(`{"atrVersion":"1","id":"ac-settled"}`))
		rig.seller.Settler = rig.c.EscrowSettler
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified)
		wantEVMStatus(t, res.Verified, evm.StateSettled, "")
		if res.Verified.Moved == nil || res.Verified.Moved.Int64() != 10000 || res.Verified.Transaction != res.Settlement.Transaction {
			t.Fatalf("verified %+v", res.Verified)
		}
		// The Transfer matched went where the escrow's getTokenStore says.
		call, _ := permit2contracts.Escrow.ABI.Pack("getTokenStore", rig.c.Facilitator())
		out, err := rig.c.Node.CallContract(ctx, permit2contracts.Escrow.Address, call)
		if err != nil || len(out) != 32 {
			t.Fatalf("getTokenStore: %x %v", out, err)
		}
		if got, want := evm.TokenStoreOf(permit2contracts.Escrow.Address.Hex(), rig.c.Facilitator().Hex()), common.BytesToAddress(out); !evm.SameAddress(got, want.Hex()) {
			t.Fatalf("TokenStoreOf %s, the escrow says %s", got, want)
		}
		// One receipt, the heads, no call (the test's own call above goes
		// to the chain in process, not through the rig's node).
		if rig.count("eth_getTransactionReceipt") != 1 || rig.count("eth_call") != 0 || rig.count("eth_getBlockByNumber") > 2 {
			t.Fatalf("reads: %d receipts, %d calls, %d heads", rig.count("eth_getTransactionReceipt"), rig.count("eth_call"), rig.count("eth_getBlockByNumber"))
		}
	})
	// hostile pays an earlier payment (its option set by before) unsettled,
	// then this one, whose seller authorizes the earlier one and names it.
	hostile := func(t *testing.T, id string, before func(rig *evmRig) *pay.Result, want string) {
		t.Helper()
		rig := escrowRig(t, []byte(`{"atrVersion":"1","id":"ac-`+id+`-earlier"}`))
		earlier := before(rig)
		rig.seller.Option = escrowOption(rig.c, evmPayee, 10000)
		rig.seller.SetATR([]byte(`{"atrVersion":"1","id":"ac-` + id + `"}`))
		rig.seller.Settler = authorizing(rig, earlier)
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, want)
		wantEVMStatus(t, res.Verified, evm.StateFailed, evm.WhyBindingLogNotFound)
	}
	t.Run("another-payee", func(t *testing.T) {
		hostile(t, "payee", func(rig *evmRig) *pay.Result {
			rig.seller.Option = escrowOption(rig.c, common.HexToAddress("0x00000000000000000000000000000000000000b0"), 10000)
			return rig.pay(t, 10000)
		}, pay.ProblemPayee)
	})
	t.Run("smaller-amount", func(t *testing.T) {
		hostile(t, "amount", func(rig *evmRig) *pay.Result {
			rig.seller.Option = escrowOption(rig.c, evmPayee, 9999)
			return rig.pay(t, 10000)
		}, pay.ProblemAmount)
	})
	t.Run("another-h", func(t *testing.T) {
		// Same payer, payee and amount, other terms: only the salt differs.
		hostile(t, "h", func(rig *evmRig) *pay.Result { return rig.pay(t, 10000) }, pay.ProblemNoH)
	})
	t.Run("another-payer", func(t *testing.T) {
		// The deployer pays too (funded, Permit2 approved); its
		// authorization is named for the Anvil payer's.
		hostile(t, "payer", func(rig *evmRig) *pay.Result {
			deployer := common.Address(rig.c.Facilitator())
			if _, l, err := rig.c.Transact(ctx, rig.c.Deployer, &rig.c.Token, eip3009token.Mint(deployer, big.NewInt(1_000_000)), 0); err != nil || l.Status != 1 {
				t.Fatalf("mint: %v", err)
			}
			if _, l, err := rig.c.ApprovePermit2(ctx, rig.c.Deployer); err != nil || l.Status != 1 {
				t.Fatalf("approve: %v", err)
			}
			w, err := signer.FromHex(simchain.DeployerKey, simchain.Network)
			if err != nil {
				t.Fatal(err)
			}
			return rig.payAs(t, w, 10000)
		}, pay.ProblemPayer)
	})
	t.Run("plain-transfer", func(t *testing.T) {
		rig := escrowRig(t, []byte(`{"atrVersion":"1","id":"ac-plain"}`))
		rig.seller.Settler = func(context.Context, *jsonv.Object) (string, error) { return rig.transfer(t, evmPayee, 10000), nil }
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, pay.ProblemNoH)
	})
	t.Run("reverted", func(t *testing.T) {
		rig := escrowRig(t, []byte(`{"atrVersion":"1","id":"ac-reverted"}`))
		rig.seller.Settler = func(ctx context.Context, p *jsonv.Object) (string, error) {
			if _, err := rig.c.EscrowSettler(ctx, p); err != nil {
				return "", err
			}
			hash, _, _ := rig.c.AuthorizeEscrow(ctx, rig.c.Deployer, p, nil, 600_000)
			return hash, nil
		}
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		wantEVMStatus(t, res.Verified, evm.StateFailed, evm.WhyReverted)
	})
	t.Run("not-found", func(t *testing.T) {
		rig := escrowRig(t, []byte(`{"atrVersion":"1","id":"ac-unsettled"}`))
		res := rig.pay(t, 10000)
		wantProblems(t, res.Verified, pay.ProblemNotLanded)
		wantEVMStatus(t, res.Verified, evm.StatePending, evm.WhyNotFound)
	})
}

// fakeReader answers receipts from a map, as a node would.
type fakeReader struct {
	network  string
	receipts map[string]jsonv.Value
}

func (f fakeReader) Network() string { return f.network }
func (f fakeReader) Receipt(tx string) (jsonv.Value, error) {
	return f.receipts[strings.ToLower(tx)], nil
}
func (f fakeReader) Head(string) (uint64, error) { return 0, errors.New("no heads") }

// TestSettlementAuthCaptureEIP3009 reads x402/auth-capture/eip155/eip3009
// settlements from receipts written with go-ethereum's ABI encoder of the
// escrow's own PaymentAuthorized event: the simulated chain has no
// ERC3009PaymentCollector (internal/permit2contracts builds only the Permit2
// one), so the payment is signed on the chain's token and paid to a
// loopback seller, and its authorize's receipt is the one a node would
// give. The Permit2 test above holds the event's decoding to a real
// escrow's.
func TestSettlementAuthCaptureEIP3009(t *testing.T) {
	rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"ac3009"}`))
	opt := escrowOption(rig.c, evmPayee, 10000)
	extra, _ := opt.GetObject("extra")
	extra.Delete("assetTransferMethod")
	rig.seller.Option = opt
	rig.seller.Verify = func(payment *jsonv.Object, h atr.Hash, _ time.Time) (string, error) {
		got, err := (evm.AuthCaptureEIP3009{}).Bound(payment)
		if err != nil || got != h.String() {
			return "", errors.New("the payment does not carry H")
		}
		return rig.wallet.Address().Hex(), nil
	}
	res := rig.pay(t, 10000)
	s, err := (evm.AuthCaptureEIP3009{}).Settlement(res.Signed)
	if err != nil || s.H != res.H || !evm.SameAddress(s.Into, evm.EscrowV10.EIP3009Collector) {
		t.Fatalf("settlement %+v, %v", s, err)
	}
	payer := rig.wallet.Address()
	collector := common.HexToAddress(evm.EscrowV10.EIP3009Collector)
	store := common.HexToAddress(evm.TokenStoreOf(s.Escrow, s.Info.Operator))
	info := func(mod func(*permit2contracts.PaymentInfo)) (permit2contracts.PaymentInfo, atr.Hash) {
		p := permit2contracts.PaymentInfo{Operator: common.HexToAddress(s.Info.Operator), Payer: payer,
			Receiver: common.HexToAddress(s.Info.Receiver), Token: rig.c.Token, MaxAmount: new(big.Int).Set(s.Info.MaxAmount),
			PreApprovalExpiry: new(big.Int).SetUint64(s.Info.PreApprovalExpiry), AuthorizationExpiry: new(big.Int).SetUint64(s.Info.AuthorizationExpiry),
			RefundExpiry: new(big.Int).SetUint64(s.Info.RefundExpiry), MinFeeBps: s.Info.MinFeeBps, MaxFeeBps: s.Info.MaxFeeBps,
			FeeReceiver: common.HexToAddress(s.Info.FeeReceiver), Salt: new(big.Int).SetBytes(s.Info.Salt[:])}
		if mod != nil {
			mod(&p)
		}
		h, ok := p.EVMInfo().Hash(simchain.ChainID, s.Escrow)
		if !ok {
			t.Fatal("the payment info does not hash")
		}
		return p, h
	}
	authorized := func(p permit2contracts.PaymentInfo, h atr.Hash, amount int64) jsonv.Value {
		data, err := permit2contracts.Escrow.ABI.Events["PaymentAuthorized"].Inputs.NonIndexed().Pack(p, big.NewInt(amount), collector)
		if err != nil {
			t.Fatal(err)
		}
		return jsonv.Obj("address", s.Escrow, "topics", []jsonv.Value{evm.TopicPaymentAuthorized, h.String()}, "data", "0x"+common.Bytes2Hex(data))
	}
	transfer := func(from, to common.Address, amount int64) jsonv.Value {
		return jsonv.Obj("address", rig.c.Token.Hex(), "topics", []jsonv.Value{evm.TopicTransfer.Hex(),
			common.BytesToHash(from.Bytes()).Hex(), common.BytesToHash(to.Bytes()).Hex()},
			"data", common.BytesToHash(big.NewInt(amount).Bytes()).Hex())
	}
	receipt := func(status int, logs ...jsonv.Value) jsonv.Value {
		return jsonv.Obj("status", status, "blockNumber", "7", "logs", logs)
	}
	this, thisHash := info(nil)
	if thisHash != s.PaymentHash {
		t.Fatalf("the payment hash %s, the pairing's %s", thisHash, s.PaymentHash)
	}
	otherPayee, otherPayeeHash := info(func(p *permit2contracts.PaymentInfo) { p.Receiver = common.HexToAddress("0xb0") })
	smaller, smallerHash := info(func(p *permit2contracts.PaymentInfo) { p.MaxAmount = big.NewInt(9999) })
	otherPayer, otherPayerHash := info(func(p *permit2contracts.PaymentInfo) { p.Payer = rig.c.Facilitator() })
	otherSalt, otherSaltHash := info(func(p *permit2contracts.PaymentInfo) { p.Salt = big.NewInt(7) })
	for _, c := range []struct {
		name    string
		receipt jsonv.Value
		want    []string
	}{
		{"settled", receipt(1, transfer(payer, collector, 10000), transfer(collector, store, 10000), authorized(this, thisHash, 10000)), nil},
		{"another-payee", receipt(1, transfer(payer, collector, 10000), authorized(otherPayee, otherPayeeHash, 10000)), []string{pay.ProblemPayee}},
		{"smaller-amount", receipt(1, transfer(payer, collector, 9999), authorized(smaller, smallerHash, 9999)), []string{pay.ProblemAmount}},
		{"smaller-authorize", receipt(1, transfer(payer, collector, 9999), authorized(this, thisHash, 9999)), []string{pay.ProblemAmount}},
		{"another-payer", receipt(1, transfer(rig.c.Facilitator(), collector, 10000), authorized(otherPayer, otherPayerHash, 10000)), []string{pay.ProblemPayer}},
		{"another-h", receipt(1, transfer(payer, collector, 10000), authorized(otherSalt, otherSaltHash, 10000)), []string{pay.ProblemNoH}},
		{"no-event", receipt(1, transfer(payer, evmPayee, 10000)), []string{pay.ProblemNoH}},
		{"no-transfer", receipt(1, authorized(this, thisHash, 10000)), []string{pay.ProblemPayer}},
		{"transfer-elsewhere", receipt(1, transfer(payer, evmPayee, 10000), authorized(this, thisHash, 10000)), []string{pay.ProblemPayee}},
		{"planted-event", receipt(1, transfer(payer, collector, 10000),
			jsonv.Obj("address", rig.c.Token.Hex(), "topics", []jsonv.Value{evm.TopicPaymentAuthorized, thisHash.String()}, "data", "0x")), []string{pay.ProblemNoH}},
		{"reverted", receipt(0), []string{pay.ProblemNotLanded}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tx := crypto.Keccak256Hash([]byte(c.name)).Hex()
			paid := *res
			settlement := *res.Settlement
			settlement.Transaction = tx
			paid.Settlement = &settlement
			v := (&pay.Verifier{EVM: map[string]evm.Reader{simchain.Network: fakeReader{simchain.Network, map[string]jsonv.Value{tx: c.receipt}}}}).Check(&paid)
			wantProblems(t, v, c.want...)
			if c.want == nil && (v.Moved == nil || v.Moved.Int64() != 10000) {
				t.Fatalf("moved %v", v.Moved)
			}
		})
	}
}
