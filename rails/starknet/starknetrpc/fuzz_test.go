package starknetrpc_test

import (
	"bytes"
	"context"
	"io"
	"math/big"
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/rails/starknet"
	"github.com/termsgate/termsgate/rails/starknet/starknetrpc"
)

// seedNode is a loopback Node holding one landed outside execution, its
// client recording the node's answers (in process, no socket), the
// transaction and the reference that pays.
func seedNode(f *testing.F) (*rpcanswer.Recorder, starknet.Felt, starknet.Reference) {
	node := &starknetrpc.Node{Net: network, Block: 900}
	rec := &rpcanswer.Recorder{Handler: node}
	priv := big.NewInt(0x1234567)
	pub, _ := starknet.PublicKey(priv)
	account, feePayer := f1("0x3f16efeb2ae57f7d8befb03af08a3a370562dde15149c3506ac2038ffa9be24"), f1("0x5f2e02acd59f37f1e19da7ea1db6bf31d49e6e5ba66a7f1c2f0e2ba1be36f81")
	token, payTo := f1("0x512feac6339ff7889822cb5aa2a86c848e9d392bb0e3e237c008674feed8343"), f1("0x2dd1b492765c064eac4039e3841aa5f382773b598097a40073bd8b48170ab57")
	node.Deploy(account, pub)
	node.Mint(token, account, big.NewInt(50_000))
	nonce := f1("0x27816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
	oe := &starknet.OutsideExecution{Caller: feePayer, Nonce: nonce, ExecuteAfter: starknet.Felt{1}, ExecuteBefore: starknet.Felt{2000},
		Calls: []starknet.Call{{To: token, Selector: starknet.SelectorTransfer, Calldata: []starknet.Felt{payTo, {10000}, {}}}}}
	chain, _ := starknet.ChainID(network)
	r, s, err := starknet.Sign(priv, oe.MessageHash(chain, account))
	if err != nil {
		f.Fatal(err)
	}
	tx, err := node.ExecuteFromOutside(feePayer, account, oe, []starknet.Felt{r, s}, 1000)
	if err != nil {
		f.Fatal(err)
	}
	c := client(rec)
	ctx := context.Background()
	_, _ = c.Receipt(ctx, tx)
	_, _ = c.Trace(ctx, tx)
	_, _ = c.Receipt(ctx, starknet.Felt{7})
	_, _ = c.PublicKey(ctx, account)
	_, _ = c.NonceAvailable(ctx, account, nonce)
	ref := starknet.Reference{Network: network, Transaction: &tx, From: account, Asset: token, Nonce: nonce,
		IDDigest: starknet.IDDigest(account, payTo, big.NewInt(10000)), SettleBy: 2000}
	if st := starknet.PaymentStatus(ctx, ref, c); st.State != "settled" {
		f.Fatalf("the seed payment reads %+v", st)
	}
	return rec, tx, ref
}

func f1(s string) starknet.Felt { return f(s) }

func client(rt http.RoundTripper) *starknetrpc.Client {
	c := &starknetrpc.Client{URL: "http://starknet-node.invalid", Net: network}
	c.HTTP.HTTP = &http.Client{Transport: rt}
	return c
}

func okState(s starknet.Status) bool {
	return s.State == "settled" || s.State == "pending" || s.State == "failed"
}

// FuzzNodeAnswers: any answer body to every read gives the client a value
// or an error, never a panic, and the status read over it is one of its
// states. Seeds are the loopback Node's own answers.
func FuzzNodeAnswers(f *testing.F) {
	rec, tx, ref := seedNode(f)
	for _, a := range rec.Answers {
		f.Add(a)
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":["0x1","0x2"]}`))
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := client(rpcanswer.Fixed(body))
			_, _ = c.Receipt(ctx, tx)
			_, _ = c.Trace(ctx, tx)
			_, _ = c.Call(ctx, ref.Asset, starknet.SelectorTransfer, starknet.Felt{1})
			_, _ = c.PublicKey(ctx, ref.From)
			_, _ = c.NonceAvailable(ctx, ref.From, ref.Nonce)
			if s := starknet.PaymentStatus(ctx, ref, c); !okState(s) {
				t.Fatalf("state %q", s.State)
			}
		})
	})
}

// byMethod answers starknet_getTransactionReceipt with receipt and every
// other method with trace, so that the status reads a fuzzed receipt and a
// fuzzed trace together.
type byMethod struct{ receipt, trace []byte }

func (m byMethod) RoundTrip(r *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(r.Body)
	_ = r.Body.Close()
	a := m.trace
	if bytes.Contains(body, []byte(`"starknet_getTransactionReceipt"`)) {
		a = m.receipt
	}
	return rpcanswer.Fixed(a).RoundTrip(r)
}

// FuzzPaymentStatus: any receipt and trace answers read through the
// status's receipt, trace and match readers into one of its states, never
// a panic; settled only with a block number and a finality. Seeds are the
// loopback Node's receipt and trace of a payment it ran.
func FuzzPaymentStatus(f *testing.F) {
	rec, _, ref := seedNode(f)
	f.Add(rec.Answers[0], rec.Answers[1])
	f.Add(rec.Answers[2], rec.Answers[1])
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, receipt, trace []byte) {
		cost.Bound(t, len(receipt)+len(trace), func() {
			s := starknet.PaymentStatus(ctx, ref, client(byMethod{receipt, trace}))
			if !okState(s) || s.State == "settled" && s.Finality == "" {
				t.Fatalf("status %+v", s)
			}
		})
	})
}
