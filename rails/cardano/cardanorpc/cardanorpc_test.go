package cardanorpc

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/rails/cardano"
)

var params = cardano.Params{MinFeeA: 44, MinFeeB: 155381, CoinsPerUTxOByte: 4310}

func start(t *testing.T, n *Node) *Client {
	t.Helper()
	srv, err := loopback.Start(n, "cardano-preprod.blockfrost.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &Client{URL: "https://cardano-preprod.blockfrost.example/api/v0", Net: "cardano:preprod", ProjectID: "preprodTEST", HTTP: srv.Client()}
}

// The client reads the tip, the parameters and an address's outputs from a
// node answering as Blockfrost does, then submits a transfer the wallet's
// builder makes; the node's ledger checks take it, its status and bytes
// read back by id, and a second submission of the same inputs is refused.
func TestClientAgainstNode(t *testing.T) {
	n := NewNode(params, cardano.Tip{BlockHeight: 100, Slot: 5000})
	c := start(t, n)
	ctx := context.Background()
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	payer := cardano.EnterpriseAddress(key.Public().(ed25519.PublicKey), 0)
	payTo, _ := cardano.ParseAddress("addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0")
	if u, err := c.UTxOs(ctx, payer, 10); err != nil || len(u) != 0 {
		t.Fatalf("an unknown address: %v, %v", u, err)
	}
	n.Fund(payer, cardano.Input{TxID: [32]byte{9}, Index: 2}, 5_000_000)
	tip, err := c.Tip(ctx)
	if err != nil || tip != (cardano.Tip{BlockHeight: 100, Slot: 5000}) {
		t.Fatalf("tip %+v, %v", tip, err)
	}
	p, err := c.Params(ctx)
	if err != nil || p != params {
		t.Fatalf("params %+v, %v", p, err)
	}
	utxos, err := c.UTxOs(ctx, payer, 10)
	if err != nil || len(utxos) != 1 || utxos[0].Coin != 5_000_000 || utxos[0].Input.Index != 2 {
		t.Fatalf("utxos %+v, %v", utxos, err)
	}
	aux := cardano.AuxiliaryData(atr.Sum([]byte("abc")))
	spec, err := cardano.Plan(utxos, p, payTo, payer, 2_000_000, tip.Slot+60, aux)
	if err != nil {
		t.Fatal(err)
	}
	body := spec.Body()
	raw := cardano.Assemble(body, key.Public().(ed25519.PublicKey), cardano.SignBody(key, body), aux)
	if spec.Fee != p.MinFee(len(raw)) || spec.Rest != 5_000_000-2_000_000-spec.Fee {
		t.Fatalf("fee %d for %d bytes, rest %d", spec.Fee, len(raw), spec.Rest)
	}
	// A body signed by another key is refused by the ledger.
	other := ed25519.NewKeyFromSeed(append(make([]byte, 31), 1))
	if _, err := c.Submit(ctx, cardano.Assemble(body, other.Public().(ed25519.PublicKey), cardano.SignBody(other, body), aux)); err == nil || !strings.Contains(err.Error(), "MissingVKeyWitnesses") {
		t.Fatalf("another key's witness: %v", err)
	}
	id, err := c.Submit(ctx, raw)
	tx, _ := cardano.DecodeTx(raw)
	if err != nil || id != hex.EncodeToString(tx.ID[:]) {
		t.Fatalf("submit %s, %v", id, err)
	}
	on, err := c.Transaction(ctx, tx.IDString(), true)
	if err != nil || on == nil || !on.Valid || on.BlockHeight != 101 || string(on.CBOR) != string(raw) {
		t.Fatalf("transaction %+v, %v", on, err)
	}
	if _, err := c.Submit(ctx, raw); err == nil || !strings.Contains(err.Error(), "BadInputs") {
		t.Fatalf("a second spend: %v", err)
	}
	ref := cardano.Reference{Network: "cardano:preprod", TxID: tx.IDString(), TTLSlot: tx.TTL}
	n.Advance(3, 60)
	if st := cardano.PaymentStatus(ctx, ref, c); st.State != "settled" || st.Confirmations != 3 {
		t.Fatalf("status %+v", st)
	}
	if h, err := cardano.Recover(ctx, ref.Network, ref.TxID, c); err != nil || h != atr.Sum([]byte("abc")) {
		t.Fatalf("recover %v, %v", h, err)
	}
	if on, err := c.Transaction(ctx, "0x"+strings.Repeat("ab", 32), false); err != nil || on != nil {
		t.Fatalf("an unknown id: %+v, %v", on, err)
	}
	if _, err := c.Transaction(ctx, "nothex", false); err == nil {
		t.Fatal("a malformed id")
	}
	// The payer's change is its one output now, and the seller's payment is held.
	if u, _ := c.UTxOs(ctx, payer, 10); len(u) != 1 || u[0].Coin != spec.Rest {
		t.Fatalf("change %+v", u)
	}
	if calls := n.Calls.Load(); calls < 10 {
		t.Fatalf("%d node calls", calls)
	}
}

// The ledger checks refuse a late, underpaid or unbalanced transaction.
func TestNodeRefuses(t *testing.T) {
	n := NewNode(params, cardano.Tip{BlockHeight: 100, Slot: 5000})
	c := start(t, n)
	ctx := context.Background()
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	payer := cardano.EnterpriseAddress(key.Public().(ed25519.PublicKey), 0)
	in := cardano.Input{TxID: [32]byte{9}, Index: 0}
	n.Fund(payer, in, 5_000_000)
	aux := cardano.AuxiliaryData(atr.Sum([]byte("abc")))
	sign := func(s cardano.TransferSpec) []byte {
		body := s.Body()
		return cardano.Assemble(body, key.Public().(ed25519.PublicKey), cardano.SignBody(key, body), aux)
	}
	good, err := cardano.Plan([]cardano.UTxO{{Input: in, Coin: 5_000_000}}, params, payer, payer, 2_000_000, 5060, aux)
	if err != nil {
		t.Fatal(err)
	}
	late, low, unbalanced, dust := good, good, good, good
	late.TTL = 5000
	low.Fee, low.Rest = 1000, low.Rest+low.Fee-1000
	unbalanced.Rest++
	dust.Amount, dust.Rest = 1000, dust.Rest+dust.Amount-1000
	for name, c2 := range map[string]struct {
		s    cardano.TransferSpec
		want string
	}{
		"late": {late, "OutsideValidityInterval"}, "low fee": {low, "FeeTooSmall"},
		"unbalanced": {unbalanced, "ValueNotConserved"}, "dust": {dust, "OutputTooSmall"},
	} {
		if _, err := c.Submit(ctx, sign(c2.s)); err == nil || !strings.Contains(err.Error(), c2.want) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := c.Submit(ctx, []byte{0x84}); err == nil {
		t.Fatal("bytes that do not decode")
	}
	if _, err := c.Submit(ctx, sign(good)); err != nil {
		t.Fatalf("the good one: %v", err)
	}
}

// A node that fails or answers in another shape is an error for each read.
func TestClientErrors(t *testing.T) {
	ctx := context.Background()
	for name, body := range map[string]string{"not JSON": "<html>", "a list": "[]", "missing members": "{}",
		"strings": `{"height":"x","slot":"1","min_fee_a":-1}`} {
		c := &Client{URL: "http://node.invalid", Net: "cardano:preprod", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
		if _, err := c.Tip(ctx); err == nil {
			t.Fatalf("%s: tip", name)
		}
		if _, err := c.Params(ctx); err == nil {
			t.Fatalf("%s: params", name)
		}
		if _, err := c.Transaction(ctx, strings.Repeat("ab", 32), false); err == nil {
			t.Fatalf("%s: transaction", name)
		}
		if _, err := c.Submit(ctx, []byte{1}); err == nil {
			t.Fatalf("%s: submit", name)
		}
	}
	c := &Client{URL: "http://127.0.0.1:0", Net: "cardano:preprod"}
	if _, err := c.Tip(ctx); err == nil {
		t.Fatal("no node")
	}
}

// FuzzNodeAnswers: any bytes as the API's answer end every reader in a
// value or an error, never a panic.
func FuzzNodeAnswers(f *testing.F) {
	n := NewNode(params, cardano.Tip{BlockHeight: 1, Slot: 2})
	addr, _ := cardano.ParseAddress("addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0")
	n.Fund(addr, cardano.Input{TxID: [32]byte{1}}, 9)
	rec := &rpcanswer.Recorder{Handler: n}
	c := &Client{URL: "http://node.invalid", Net: "cardano:preprod", HTTP: &http.Client{Transport: rec}}
	ctx := context.Background()
	_, _ = c.Tip(ctx)
	_, _ = c.Params(ctx)
	_, _ = c.UTxOs(ctx, addr, 5)
	for _, a := range rec.Answers {
		f.Add(a)
	}
	f.Add([]byte(`{"block_height":1,"slot":2,"valid_contract":true,"cbor":"84a0a0f5f6"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &Client{URL: "http://node.invalid", Net: "cardano:preprod", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
			_, _ = c.Tip(ctx)
			_, _ = c.Params(ctx)
			_, _ = c.UTxOs(ctx, addr, 5)
			_, _ = c.Transaction(ctx, strings.Repeat("ab", 32), true)
			_, _ = c.Submit(ctx, []byte{0x84})
			_, _ = cardano.Recover(ctx, "cardano:preprod", strings.Repeat("ab", 32), c)
		})
	})
}
