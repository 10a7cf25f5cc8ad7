package pay_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/eip3009token"
	"github.com/termsgate/termsgate/internal/permit2contracts"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// mppPermit2Paid is an mpp/charge/evm/permit2 credential for 10000 of the
// rig's token to evmPayee, the chain's deployer the spender, signed by the
// payer, with the Result whose Payment-Receipt names nothing yet.
func mppPermit2Paid(t *testing.T, rig *evmRig, h atr.Hash) *pay.Result {
	t.Helper()
	p := evm.MPPPermit2{}
	details := jsonv.Obj("chainId", simchain.ChainID, "credentialTypes", []jsonv.Value{"permit2"})
	request := jsonv.Obj("amount", "10000", "currency", rig.c.Token.Hex(), "methodDetails", details, "recipient", evmPayee.Hex())
	c := jsonv.Obj("realm", "api.seller.example", "method", "evm", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", time.Now().Add(5*time.Minute).UTC().Format("2006-01-02T15:04:05Z"))
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, rig.wallet.Account(), jsonv.Obj("spender", rig.c.Facilitator().Hex()), time.Now().Unix(), "")
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
	sig, err := rig.wallet.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, sig, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	grant, err := p.Summarize(req)
	if err != nil {
		t.Fatal(err)
	}
	if grant.Payer == "" {
		grant.Payer = rig.wallet.Address().Hex()
	}
	return &pay.Result{Pairing: p.ID(), H: h, Signed: done.Signed, Summary: pay.Summary{Pairing: p.ID(), H: h, Grant: grant},
		Settlement: &pay.Settlement{Success: true, Network: simchain.Network}}
}

// settleMPPPermit2 is the spender's permitWitnessTransferFrom of the
// credential (Permit2 checks the payer's signature over the witness); gas
// as for simchain's sends.
func settleMPPPermit2(t *testing.T, rig *evmRig, res *pay.Result, gas uint64) (string, error) {
	t.Helper()
	cred := res.Signed.(*jsonv.Object)
	payload, _ := cred.GetObject("payload")
	permit, _ := payload.GetObject("permit")
	dv, _ := payload.Get("transferDetails")
	legs, _ := jsonv.AsArray(dv)
	first, _ := jsonv.AsObject(legs[0])
	pv, _ := permit.Get("permitted")
	permitted, _ := jsonv.AsArray(pv)
	tok, _ := jsonv.AsObject(permitted[0])
	witness, _ := payload.GetObject("witness")
	num := func(o *jsonv.Object, k string) *big.Int {
		s, _ := o.GetString(k)
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			t.Fatalf("%s: %q", k, s)
		}
		return n
	}
	type tokenPermissions struct {
		Token  common.Address
		Amount *big.Int
	}
	type permitTransferFrom struct {
		Permitted tokenPermissions
		Nonce     *big.Int
		Deadline  *big.Int
	}
	type transferDetails struct {
		To              common.Address
		RequestedAmount *big.Int
	}
	tokenText, _ := tok.GetString("token")
	toText, _ := first.GetString("to")
	challengeHash, _ := witness.GetString("challengeHash")
	externalID, _ := witness.GetString("externalId")
	typeHash := crypto.Keccak256([]byte("PaymentWitness(bytes32 challengeHash,string externalId)"))
	w := crypto.Keccak256Hash(typeHash, common.FromHex(challengeHash), crypto.Keccak256([]byte(externalID)))
	sigText, _ := payload.GetString("signature")
	data, err := permit2contracts.Permit2.ABI.Pack("permitWitnessTransferFrom",
		permitTransferFrom{Permitted: tokenPermissions{common.HexToAddress(tokenText), num(tok, "amount")}, Nonce: num(permit, "nonce"), Deadline: num(permit, "deadline")},
		transferDetails{common.HexToAddress(toText), num(first, "requestedAmount")},
		rig.wallet.Address(), w, "PaymentWitness witness)PaymentWitness(bytes32 challengeHash,string externalId)TokenPermissions(address token,uint256 amount)",
		common.FromHex(sigText))
	if err != nil {
		t.Fatal(err)
	}
	hash, _, err := rig.c.Transact(context.Background(), rig.c.Deployer, &permit2contracts.Permit2.Address, data, gas)
	return hash, err
}

// TestSettlementMPPPermit2: mpp/charge/evm/permit2 on a real EVM: the
// spender's permitWitnessTransferFrom through the simulated chain's Permit2.
// The buyer reads the named receipt's Transfer from the payer to the
// recipient of the amount and the call's input carrying the Permit2 nonce
// (the challenge hash whose id is H); every other transaction named is its
// problem.
func TestSettlementMPPPermit2(t *testing.T) {
	ctx := context.Background()
	rig := newEVMRig(t, []byte(`{"atrVersion":"1","id":"mpp-permit2"}`))
	if _, l, err := rig.c.ApprovePermit2(ctx, rig.key); err != nil || l.Status != 1 {
		t.Fatalf("approve: %v", err)
	}
	h := atr.Sum([]byte(`{"atrVersion":"1","id":"mpp-permit2"}`))
	res := mppPermit2Paid(t, rig, h)
	named := func(tx string) *pay.Verification {
		r := *res
		s := *res.Settlement
		s.Transaction = tx
		r.Settlement = &s
		return rig.verify(&r)
	}
	hash, err := settleMPPPermit2(t, rig, res, 0)
	if err != nil {
		t.Fatalf("permitWitnessTransferFrom: %s %v", permit2contracts.RevertName(err), err)
	}
	t.Run("settled", func(t *testing.T) {
		v := named(hash)
		wantProblems(t, v)
		wantEVMStatus(t, v, evm.StateSettled, "")
		if v.Moved == nil || v.Moved.Int64() != 10000 || rig.count("eth_getTransactionByHash") != 1 {
			t.Fatalf("moved %v, %d transaction reads", v.Moved, rig.count("eth_getTransactionByHash"))
		}
		// A reader that cannot read the call cannot show H.
		r := *res
		s := *res.Settlement
		s.Transaction = hash
		r.Settlement = &s
		v = (&pay.Verifier{EVM: map[string]evm.Reader{simchain.Network: receiptsOnly{rig.reader}}}).Check(&r)
		wantProblems(t, v, pay.ProblemNoH)
	})
	t.Run("another-payment", func(t *testing.T) {
		// Another challenge's permit of the same payer to the same
		// recipient and amount, settled and named for this one.
		other := mppPermit2Paid(t, rig, atr.Sum([]byte("another")))
		otherHash, err := settleMPPPermit2(t, rig, other, 0)
		if err != nil {
			t.Fatal(err)
		}
		v := named(otherHash)
		wantProblems(t, v, pay.ProblemNoH)
		wantEVMStatus(t, v, evm.StateFailed, evm.WhyNonceNotInInput)
	})
	t.Run("plain-transfer", func(t *testing.T) { wantProblems(t, named(rig.transfer(t, evmPayee, 10000)), pay.ProblemNoH) })
	t.Run("another-payee", func(t *testing.T) {
		wantProblems(t, named(rig.transfer(t, common.HexToAddress("0x00000000000000000000000000000000000000b0"), 10000)), pay.ProblemPayee)
	})
	t.Run("smaller-amount", func(t *testing.T) { wantProblems(t, named(rig.transfer(t, evmPayee, 9999)), pay.ProblemAmount) })
	t.Run("another-payer", func(t *testing.T) {
		d := rig.c.Facilitator()
		if _, l, err := rig.c.Transact(ctx, rig.c.Deployer, &rig.c.Token, eip3009token.Mint(d, big.NewInt(10000)), 0); err != nil || l.Status != 1 {
			t.Fatalf("mint: %v", err)
		}
		tx, l, err := rig.c.Transact(ctx, rig.c.Deployer, &rig.c.Token, evm.TransferCalldata(evmPayee.Hex(), big.NewInt(10000)), 0)
		if err != nil || l.Status != 1 {
			t.Fatalf("transfer: %v", err)
		}
		wantProblems(t, named(tx), pay.ProblemPayer)
	})
	t.Run("reverted", func(t *testing.T) {
		// The same permit again: its nonce is used, the replay reverts.
		replay, _ := settleMPPPermit2(t, rig, res, 300_000)
		v := named(replay)
		wantProblems(t, v, pay.ProblemNotLanded)
		wantEVMStatus(t, v, evm.StateFailed, evm.WhyReverted)
	})
	t.Run("not-found", func(t *testing.T) {
		wantProblems(t, named("0x"+strings.Repeat("0", 63)+"3"), pay.ProblemNotLanded)
	})
	t.Run("not-named", func(t *testing.T) { wantProblems(t, named(""), pay.ProblemNoTransaction) })
}

// receiptsOnly is a Reader that reads no transactions.
type receiptsOnly struct{ r evm.Reader }

func (o receiptsOnly) Network() string                        { return o.r.Network() }
func (o receiptsOnly) Receipt(tx string) (jsonv.Value, error) { return o.r.Receipt(tx) }
func (o receiptsOnly) Head(tag string) (uint64, error)        { return o.r.Head(tag) }
