package pay_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/eip3009token"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
)

// erc7710Paid is an x402 ERC-7710 payment of 10000 of asset to evmPayee on
// network, built by pairing p and answered by the Anvil key's leaf
// delegation, as the gate would have sent it, with the Result a seller's
// answer naming tx gives.
func erc7710Paid(t *testing.T, p rails.Pairing, network, asset string, h atr.Hash, tx string) *pay.Result {
	t.Helper()
	option := jsonv.Obj("scheme", "exact", "network", network, "amount", "10000", "asset", asset,
		"payTo", evmPayee.Hex(), "maxTimeoutSeconds", 60,
		"extra", jsonv.Obj("name", "USDC", "version", "2", "assetTransferMethod", "erc7710"))
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/report"),
		"accepts", []jsonv.Value{option},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	wallet, err := signer.FromHex(signer.AnvilKey, network)
	if err != nil {
		t.Fatal(err)
	}
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, network+":"+wallet.Address().Hex(), nil, time.Now().Unix(), "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, h)
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.Request(u)
	if err != nil {
		t.Fatal(err)
	}
	issuer := func(rails.Request) (string, []evm.Caveat, error) {
		return "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", []evm.Caveat{{Enforcer: "0x1111111111111111111111111111111111111111", Terms: []byte{0x12, 0x34}}}, nil
	}
	answer, err := wallet.WithDelegations(issuer).Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, answer, rails.Chosen{Ref: rails.NewRef()})
	if err != nil {
		t.Fatal(err)
	}
	grant, err := p.(rails.Summarizer).Summarize(req)
	if err != nil {
		t.Fatal(err)
	}
	return &pay.Result{Pairing: p.ID(), H: h, Signed: done.Signed, Summary: pay.Summary{Pairing: p.ID(), H: h, Grant: grant},
		Settlement: &pay.Settlement{Success: true, Transaction: tx, Network: network}}
}

// TestSettlementERC7710: x402/exact/eip155/erc7710 (the unsigned level) on
// a real EVM: the delegate's redemption is, on chain, the payer's token
// transfer to the payee, so the simulated chain's transfers from the payer's
// key stand for it. Its settlement carries no H by design; the transfer must
// be the payer's, to the payee, of the amount, landed.
func TestSettlementERC7710(t *testing.T) {
	ctx := context.Background()
	rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"erc7710"}`))
	h := atr.Sum([]byte(`{"atrVersion":"1","id":"erc7710"}`))
	verify := func(t *testing.T, tx string, want ...string) *pay.Verification {
		t.Helper()
		res := erc7710Paid(t, evm.ExactERC7710{}, simchain.Network, rig.c.Token.Hex(), h, tx)
		if !evm.SameAddress(res.Summary.Payer, rig.wallet.Address().Hex()) {
			t.Fatalf("the summary's payer %s", res.Summary.Payer)
		}
		v := (&pay.Verifier{EVM: map[string]evm.Reader{simchain.Network: rig.reader}}).Check(res)
		wantProblems(t, v, want...)
		return v
	}
	t.Run("settled", func(t *testing.T) {
		v := verify(t, rig.transfer(t, evmPayee, 10000))
		wantEVMStatus(t, v, evm.StateSettled, "")
		if v.Moved == nil || v.Moved.Int64() != 10000 {
			t.Fatalf("moved %v", v.Moved)
		}
	})
	t.Run("another-payee", func(t *testing.T) {
		verify(t, rig.transfer(t, common.HexToAddress("0x00000000000000000000000000000000000000b0"), 10000), pay.ProblemPayee)
	})
	t.Run("smaller-amount", func(t *testing.T) { verify(t, rig.transfer(t, evmPayee, 9999), pay.ProblemAmount) })
	t.Run("another-payer", func(t *testing.T) {
		d := rig.c.Facilitator()
		if _, l, err := rig.c.Transact(ctx, rig.c.Deployer, &rig.c.Token, eip3009token.Mint(d, big.NewInt(10000)), 0); err != nil || l.Status != 1 {
			t.Fatalf("mint: %v", err)
		}
		hash, l, err := rig.c.Transact(ctx, rig.c.Deployer, &rig.c.Token, evm.TransferCalldata(evmPayee.Hex(), big.NewInt(10000)), 0)
		if err != nil || l.Status != 1 {
			t.Fatalf("transfer: %v", err)
		}
		verify(t, hash, pay.ProblemPayer)
	})
	t.Run("reverted", func(t *testing.T) {
		// More than the payer holds, sent with gas set: it lands reverted.
		hash, _, _ := rig.c.Transact(ctx, rig.key, &rig.c.Token, evm.TransferCalldata(evmPayee.Hex(), big.NewInt(1e15)), 100_000)
		v := verify(t, hash, pay.ProblemNotLanded)
		wantEVMStatus(t, v, evm.StateFailed, evm.WhyReverted)
	})
	t.Run("not-found", func(t *testing.T) {
		verify(t, "0x"+strings.Repeat("0", 63)+"1", pay.ProblemNotLanded)
	})
	t.Run("not-named", func(t *testing.T) { verify(t, "", pay.ProblemNoTransaction) })
}

// TestSettlementERC7710Salt: x402/exact/eip155/erc7710-salt, whose leaf
// delegation's salt is H, read from the DelegationManager's
// RedeemedDelegation (rails/evm's EncodeRedeemedData of the very leaf the
// payment's permission context holds) and the token's Transfer. The salt
// level needs MetaMask's DelegationManager on a chain it is deployed on; the
// simulated chain (chain id 1337) is none and the manager's bytecode is not
// in this repository, so the receipts are written as a Base Sepolia node
// would answer them.
func TestSettlementERC7710Salt(t *testing.T) {
	const network, usdc = "eip155:84532", "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
	h := atr.Sum([]byte(`{"atrVersion":"1","id":"erc7710-salt"}`))
	payer := common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	leafOf := func(t *testing.T, res *pay.Result) evm.Delegation {
		payload, _ := res.Signed.(*jsonv.Object).GetObject("payload")
		ctxHex, _ := payload.GetString("permissionContext")
		ds, err := evm.DecodePermissionContext(common.FromHex(ctxHex))
		if err != nil || len(ds) == 0 || ds[0].Salt != h {
			t.Fatalf("the leaf: %+v %v", ds, err)
		}
		return ds[0]
	}
	redeemed := func(address string, d evm.Delegation) jsonv.Value {
		return jsonv.Obj("address", address, "topics", []jsonv.Value{evm.TopicRedeemedDelegation,
			common.BytesToHash(common.HexToAddress(d.Delegator).Bytes()).Hex(), common.BytesToHash(common.HexToAddress(d.Delegate).Bytes()).Hex()},
			"data", "0x"+common.Bytes2Hex(evm.EncodeRedeemedData(d)))
	}
	transfer := func(from, to common.Address, amount int64) jsonv.Value {
		return jsonv.Obj("address", usdc, "topics", []jsonv.Value{evm.TopicTransfer.Hex(),
			common.BytesToHash(from.Bytes()).Hex(), common.BytesToHash(to.Bytes()).Hex()},
			"data", common.BytesToHash(big.NewInt(amount).Bytes()).Hex())
	}
	other := common.HexToAddress("0x00000000000000000000000000000000000000b0")
	for _, c := range []struct {
		name string
		logs func(leaf evm.Delegation) []jsonv.Value
		want []string
	}{
		{"settled", func(d evm.Delegation) []jsonv.Value {
			return []jsonv.Value{redeemed(evm.DelegationManager, d), transfer(payer, evmPayee, 10000)}
		}, nil},
		{"another-h", func(d evm.Delegation) []jsonv.Value {
			d.Salt[0] ^= 1
			return []jsonv.Value{redeemed(evm.DelegationManager, d), transfer(payer, evmPayee, 10000)}
		}, []string{pay.ProblemNoH}},
		{"no-redemption", func(evm.Delegation) []jsonv.Value { return []jsonv.Value{transfer(payer, evmPayee, 10000)} }, []string{pay.ProblemNoH}},
		{"planted-redemption", func(d evm.Delegation) []jsonv.Value {
			return []jsonv.Value{redeemed(usdc, d), transfer(payer, evmPayee, 10000)}
		}, []string{pay.ProblemNoH}},
		{"another-payer", func(d evm.Delegation) []jsonv.Value {
			d.Delegator = other.Hex()
			return []jsonv.Value{redeemed(evm.DelegationManager, d), transfer(other, evmPayee, 10000)}
		}, []string{pay.ProblemNoH, pay.ProblemPayer}},
		{"another-payee", func(d evm.Delegation) []jsonv.Value {
			return []jsonv.Value{redeemed(evm.DelegationManager, d), transfer(payer, other, 10000)}
		}, []string{pay.ProblemPayee}},
		{"smaller-amount", func(d evm.Delegation) []jsonv.Value {
			return []jsonv.Value{redeemed(evm.DelegationManager, d), transfer(payer, evmPayee, 9999)}
		}, []string{pay.ProblemAmount}},
		{"reverted", nil, []string{pay.ProblemNotLanded}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tx := "0x" + strings.Repeat("ab", 32)
			res := erc7710Paid(t, evm.ExactERC7710Salt{}, network, usdc, h, tx)
			receipt := jsonv.Obj("status", 0, "blockNumber", "9", "logs", []jsonv.Value{})
			if c.logs != nil {
				receipt = jsonv.Obj("status", 1, "blockNumber", "9", "logs", c.logs(leafOf(t, res)))
			}
			v := (&pay.Verifier{EVM: map[string]evm.Reader{network: fakeReader{network, map[string]jsonv.Value{tx: receipt}}}}).Check(res)
			wantProblems(t, v, c.want...)
		})
	}
}
