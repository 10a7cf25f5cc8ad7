package pay_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/eip3009token"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

// mppCallPaid is an MPP EVM charge of 10000 of the rig's token to payTo,
// paid by pairing p (transaction or hash) as the gate would: the
// challenge's credential type, the payer's signer on the simulated chain
// (signer.NewEVM: the hash pairing broadcasts there and lands), the
// credential; and the Result whose Payment-Receipt names reference.
// answer, when set, replaces the signer's answer.
func mppCallPaid(t *testing.T, rig *evmRig, p rails.Pairing, payTo common.Address, h atr.Hash, answer jsonv.Value) *pay.Result {
	t.Helper()
	credType := "transaction"
	if p.ID() == evm.MPPHashID {
		credType = "hash"
	}
	details := jsonv.Obj("chainId", simchain.ChainID, "credentialTypes", []jsonv.Value{credType})
	request := jsonv.Obj("amount", "10000", "currency", rig.c.Token.Hex(), "methodDetails", details, "recipient", payTo.Hex())
	c := jsonv.Obj("realm", "api.seller.example", "method", "evm", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", time.Now().Add(5*time.Minute).UTC().Format("2006-01-02T15:04:05Z"))
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "https://agreement.seller.example/receipt")
	if err != nil {
		t.Fatal(err)
	}
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, rig.wallet.Account(), nil, time.Now().Unix(), "")
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
	if answer == nil {
		if answer, err = signer.NewEVM(rig.wallet, rig.c.Node).Sign(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	done, err := p.Complete(u, answer, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	grant, err := p.(rails.Summarizer).Summarize(req)
	if err != nil {
		t.Fatal(err)
	}
	grant.Payer = rig.wallet.Address().Hex()
	return &pay.Result{Pairing: p.ID(), H: h, Signed: done.Signed, Summary: pay.Summary{Pairing: p.ID(), H: h, Grant: grant},
		Settlement: &pay.Settlement{Success: true, Network: simchain.Network}}
}

func (r *evmRig) verify(res *pay.Result) *pay.Verification {
	return (&pay.Verifier{EVM: map[string]evm.Reader{simchain.Network: r.reader}}).Check(res)
}

// TestSettlementMPPTransaction: mpp/charge/evm/transaction on a real EVM.
// The transaction read is the hash of the one the payer signed, whatever the
// Payment-Receipt names: landed when the seller broadcast it, with the
// token's Transfer to the recipient of the amount.
func TestSettlementMPPTransaction(t *testing.T) {
	ctx := context.Background()
	rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"mpp-tx"}`))
	h := atr.Sum([]byte(`{"atrVersion":"1","id":"mpp-tx"}`))
	res := mppCallPaid(t, rig, evm.MPPTransaction{}, evmPayee, h, nil)
	payload, _ := res.Signed.(*jsonv.Object).GetObject("payload")
	signed, _ := payload.GetString("signature")

	// Not broadcast yet: not found. Right after the chain starts, its
	// transaction indexer may still answer an error for an unknown hash
	// (read as pending unreadable); it is asked again until it answers.
	v := rig.verify(res)
	for i := 0; i < 100 && str(v.Status, "why") == evm.WhyUnreadable; i++ {
		time.Sleep(20 * time.Millisecond)
		v = rig.verify(res)
	}
	wantProblems(t, v, pay.ProblemNotLanded)
	wantEVMStatus(t, v, evm.StatePending, evm.WhyNotFound)

	hash, l, err := rig.c.Node.Send(ctx, hexutil.MustDecode(signed))
	if err != nil || l.Status != 1 {
		t.Fatalf("broadcast: %v", err)
	}
	res.Settlement.Transaction = hash
	v = rig.verify(res)
	wantProblems(t, v)
	wantEVMStatus(t, v, evm.StateSettled, "")
	if !evm.SameBytes(v.Transaction, hash) || v.Moved == nil || v.Moved.Int64() != 10000 {
		t.Fatalf("verified %+v", v)
	}

	// The receipt names another transaction of the payer's: the payment is
	// still read, and the naming reported.
	res.Settlement.Transaction = rig.transfer(t, evmPayee, 10000)
	wantProblems(t, rig.verify(res), pay.ProblemSellerNamed)

	// A credential whose signed transaction does not decode.
	bad := *res
	cred := res.Signed.(*jsonv.Object).Clone()
	p, _ := cred.GetObject("payload")
	p.Set("signature", "0x02c0")
	bad.Signed = cred
	wantProblems(t, rig.verify(&bad), pay.ProblemUnreadablePaid)

	// Another H than the challenge's.
	other := *res
	other.H = atr.Sum([]byte("other"))
	wantProblems(t, rig.verify(&other), pay.ProblemUnreadablePaid)
}

// TestSettlementMPPHash: mpp/charge/evm/hash on a real EVM. The payer's
// signer broadcast the transfer and the credential names its hash; a hash
// the signer answered that is another transaction (to another payee, of
// less, of another payer, reverted) is its problem.
func TestSettlementMPPHash(t *testing.T) {
	ctx := context.Background()
	rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"mpp-hash"}`))
	h := atr.Sum([]byte(`{"atrVersion":"1","id":"mpp-hash"}`))
	paidBy := func(t *testing.T, hash string) *pay.Result {
		var answer jsonv.Value
		if hash != "" {
			answer = jsonv.Obj("hash", hash)
		}
		return mppCallPaid(t, rig, evm.MPPHash{}, evmPayee, h, answer)
	}
	t.Run("settled", func(t *testing.T) {
		res := paidBy(t, "")
		v := rig.verify(res)
		wantProblems(t, v)
		wantEVMStatus(t, v, evm.StateSettled, "")
		if v.Moved == nil || v.Moved.Int64() != 10000 {
			t.Fatalf("moved %v", v.Moved)
		}
		res.Settlement.Transaction = rig.transfer(t, evmPayee, 10000)
		wantProblems(t, rig.verify(res), pay.ProblemSellerNamed)
	})
	t.Run("another-payee", func(t *testing.T) {
		wantProblems(t, rig.verify(paidBy(t, rig.transfer(t, common.HexToAddress("0x00000000000000000000000000000000000000b0"), 10000))), pay.ProblemPayee)
	})
	t.Run("smaller-amount", func(t *testing.T) {
		wantProblems(t, rig.verify(paidBy(t, rig.transfer(t, evmPayee, 9999))), pay.ProblemAmount)
	})
	t.Run("another-payer", func(t *testing.T) {
		d := rig.c.Facilitator()
		if _, l, err := rig.c.Transact(ctx, rig.c.Deployer, &rig.c.Token, eip3009token.Mint(d, big.NewInt(10000)), 0); err != nil || l.Status != 1 {
			t.Fatalf("mint: %v", err)
		}
		hash, l, err := rig.c.Transact(ctx, rig.c.Deployer, &rig.c.Token, evm.TransferCalldata(evmPayee.Hex(), big.NewInt(10000)), 0)
		if err != nil || l.Status != 1 {
			t.Fatalf("transfer: %v", err)
		}
		wantProblems(t, rig.verify(paidBy(t, hash)), pay.ProblemPayer)
	})
	t.Run("reverted", func(t *testing.T) {
		hash, _, _ := rig.c.Transact(ctx, rig.key, &rig.c.Token, evm.TransferCalldata(evmPayee.Hex(), big.NewInt(1e15)), 100_000)
		v := rig.verify(paidBy(t, hash))
		wantProblems(t, v, pay.ProblemNotLanded)
		wantEVMStatus(t, v, evm.StateFailed, evm.WhyReverted)
	})
	t.Run("not-found", func(t *testing.T) {
		wantProblems(t, rig.verify(paidBy(t, "0x"+strings.Repeat("0", 63)+"2")), pay.ProblemNotLanded)
	})
}
