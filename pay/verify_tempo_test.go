package pay_test

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/temponode"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

const tempoRecipient = "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"

// tempoPushed pays an mpp/charge/tempo/push challenge of 1 pathUSD on Tempo
// Moderato (42431), placed with the hash of terms, through the loopback
// Tempo node (internal/temponode): the signer broadcasts and the node lands
// it. The Result is the one the gate's answer gives, the seller's receipt
// naming the pushed hash.
func tempoPushed(t *testing.T, url string, terms []byte) *pay.Result {
	return tempoPaid(t, url, terms, tempo.PushID)
}

// tempoPaid is tempoPushed for pairing (push or memo: a memo credential is
// signed, not broadcast, and its Result names nothing).
func tempoPaid(t *testing.T, url string, terms []byte, pairing string) *pay.Result {
	t.Helper()
	h := atr.Sum(terms)
	request := jsonv.Obj("amount", "1000000", "currency", strings.ToLower(tempo.PathUSD.Hex()),
		"methodDetails", jsonv.Obj("chainId", 42431), "recipient", tempoRecipient)
	c := jsonv.Obj("realm", "api.seller.example", "method", "tempo", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", time.Now().Add(5*time.Minute).UTC().Format("2006-01-02T15:04:05Z"))
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(terms) }))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	key, err := signer.FromHex(signer.AnvilKey, "eip155:42431")
	if err != nil {
		t.Fatal(err)
	}
	node, err := evmrpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	node.CallTimeout, node.Wait, node.Poll = 500*time.Millisecond, 300*time.Millisecond, 10*time.Millisecond
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client(), Timeout: 5 * time.Second}}
	wallet := signer.NewTempo(key, node)
	// A memo transaction is signed, not sent, with the signer's own fees:
	// above the loopback node's base fee, so the seller's broadcast lands.
	wallet.Fees.MaxFeePerGas, wallet.Fees.MaxPriorityFeePerGas = big.NewInt(50_000_000_000), big.NewInt(1_000_000)
	got, err := g.Transact(context.Background(), doc, pairing, wallet, nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := got.Signed.(*jsonv.Object).GetObject("payload")
	hash, _ := payload.GetString("hash")
	return &pay.Result{Pairing: pairing, H: h, Signed: got.Signed,
		Summary: pay.Summary{Pairing: pairing, H: h, Grant: rails.Grant{Network: "eip155:42431", Asset: tempo.PathUSD.Hex(),
			Payer: key.Address().Hex(), Payee: tempoRecipient, Amount: big.NewInt(1000000)}},
		Settlement: &pay.Settlement{Success: true, Transaction: hash, Network: "eip155:42431"}}
}

func tempoReader(t *testing.T, url string) evm.Reader {
	t.Helper()
	client, err := evmrpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	r, err := client.Reader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSettlementTempoPush: mpp/charge/tempo/push read from a Tempo node
// (its eth_getTransactionReceipt): the pushed transaction's
// TransferWithMemo carrying the challenge's attribution, from the payer to
// the recipient of the amount. A Payment-Receipt naming another
// transaction, a credential naming another payment's push or one the node
// does not hold, and a reverted receipt are each their problem.
func TestSettlementTempoPush(t *testing.T) {
	_, url, stop := temponode.Start(42431, "")
	defer stop()
	r := tempoReader(t, url)
	vf := &pay.Verifier{EVM: map[string]evm.Reader{"eip155:42431": r}}
	res := tempoPushed(t, url, []byte(`{"atrVersion":"1","id":"push-a"}`))
	v := vf.Check(res)
	wantProblems(t, v)
	if v.Moved == nil || v.Moved.Int64() != 1000000 || str(v.Status, "state") != evm.StateSettled {
		t.Fatalf("verified %+v %s", v, jsonv.String(v.Status))
	}

	other := tempoPushed(t, url, []byte(`{"atrVersion":"1","id":"push-b"}`))
	named := *res
	s := *res.Settlement
	s.Transaction = other.Settlement.Transaction
	named.Settlement = &s
	wantProblems(t, vf.Check(&named), pay.ProblemSellerNamed)

	// This payment's credential naming the other payment's push: its
	// memo attributes another challenge.
	swapped := *res
	cred := res.Signed.(*jsonv.Object).Clone()
	p, _ := cred.GetObject("payload")
	p.Set("hash", other.Settlement.Transaction)
	swapped.Signed, swapped.Settlement = cred, other.Settlement
	wantProblems(t, vf.Check(&swapped), pay.ProblemNoH)

	p.Set("hash", "0x"+strings.Repeat("0", 63)+"4")
	swapped.Settlement = &pay.Settlement{Success: true, Network: "eip155:42431"}
	wantProblems(t, vf.Check(&swapped), pay.ProblemNotLanded)

	// The node answering the pushed hash's receipt with status 0 (the
	// loopback node's status-0 fault makes the gate refuse before a
	// credential exists, so the receipt is given here).
	v = (&pay.Verifier{EVM: map[string]evm.Reader{"eip155:42431": fakeReader{"eip155:42431", map[string]jsonv.Value{
		strings.ToLower(res.Settlement.Transaction): jsonv.Obj("status", 0, "blockNumber", "3", "logs", []jsonv.Value{})}}}}).Check(res)
	wantProblems(t, v, pay.ProblemNotLanded)
	wantEVMStatus(t, v, evm.StateFailed, evm.WhyReverted)
}

// TestSettlementTempoMemo: mpp/charge/tempo/memo, whose credential carries
// the signed Tempo transaction the seller broadcasts: the transaction read
// is keccak256 of it, not found until broadcast, then settled with the
// attributed TransferWithMemo; a receipt naming another transaction is
// seller-named, and a credential whose transaction does not decode is
// payment-unreadable.
func TestSettlementTempoMemo(t *testing.T) {
	_, url, stop := temponode.Start(42431, "")
	defer stop()
	vf := &pay.Verifier{EVM: map[string]evm.Reader{"eip155:42431": tempoReader(t, url)}}
	res := tempoPaid(t, url, []byte(`{"atrVersion":"1","id":"memo-a"}`), tempo.MemoID)
	res.Settlement.Transaction = ""
	wantProblems(t, vf.Check(res), pay.ProblemNotLanded)

	payload, _ := res.Signed.(*jsonv.Object).GetObject("payload")
	wire, _ := payload.GetString("signature")
	node, err := evmrpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	node.Poll = 10 * time.Millisecond
	hash, _, err := node.Send(context.Background(), common.FromHex(wire))
	if err != nil {
		t.Fatal(err)
	}
	res.Settlement.Transaction = hash
	v := vf.Check(res)
	wantProblems(t, v)
	if !evm.SameBytes(v.Transaction, hash) || v.Moved == nil || v.Moved.Int64() != 1000000 {
		t.Fatalf("verified %+v", v)
	}

	other := tempoPushed(t, url, []byte(`{"atrVersion":"1","id":"memo-b"}`))
	res.Settlement.Transaction = other.Settlement.Transaction
	wantProblems(t, vf.Check(res), pay.ProblemSellerNamed)

	bad := *res
	cred := res.Signed.(*jsonv.Object).Clone()
	p, _ := cred.GetObject("payload")
	p.Set("signature", "0x76c0")
	bad.Signed = cred
	wantProblems(t, vf.Check(&bad), pay.ProblemUnreadablePaid)
}
