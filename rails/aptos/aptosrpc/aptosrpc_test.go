package aptosrpc

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/rails/aptos"
)

func start(t *testing.T, h http.Handler, network string) *Client {
	t.Helper()
	srv, err := loopback.Start(h, "aptos-node.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &Client{URL: "https://aptos-node.example", Net: network, HTTP: srv.Client()}
}

// The wallet's reads, a submission the node commits and the seller's
// reads of it, over loopback TLS, each a counted call.
func TestClientAgainstNode(t *testing.T) {
	n := NewNode(2, 150, 1_790_000_000_000_000)
	c := start(t, n, "aptos:2")
	ctx := context.Background()
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	sender := aptos.AddressOfEd25519(key.Public().(ed25519.PublicKey))
	if s, err := c.SequenceNumber(ctx, sender); err != nil || s != 0 {
		t.Fatalf("an unknown account: %d, %v", s, err)
	}
	n.SetSequence(sender, 5)
	if s, err := c.SequenceNumber(ctx, sender); err != nil || s != 5 {
		t.Fatalf("sequence %d, %v", s, err)
	}
	if p, err := c.GasUnitPrice(ctx); err != nil || p != 150 {
		t.Fatalf("gas %d, %v", p, err)
	}
	if id, err := c.ChainID(ctx); err != nil || id != 2 {
		t.Fatalf("chain %d, %v", id, err)
	}
	if us, err := c.LedgerUsecs(ctx); err != nil || us != 1_790_000_000_000_000 {
		t.Fatalf("ledger %d, %v", us, err)
	}
	tr := aptos.Transfer{Metadata: aptos.APT, Recipient: aptos.Address{31: 7}, Amount: 1000}
	tx := aptos.TransferTransaction(sender, 5, tr, 15000, 150, 1_790_000_060, 2)
	raw := tx.Encode()
	signed := append(append([]byte{}, raw...), aptos.Ed25519Authenticator(key.Public().(ed25519.PublicKey), ed25519.Sign(key, aptos.SigningMessage(raw, nil)))...)
	// A bad signature, another chain and a stale sequence are refused.
	bad := append([]byte{}, signed...)
	bad[len(bad)-1] ^= 1
	if _, err := c.Submit(ctx, bad); err == nil || !strings.Contains(err.Error(), "INVALID_SIGNATURE") {
		t.Fatalf("bad signature: %v", err)
	}
	hash, err := c.Submit(ctx, signed)
	h := aptos.TransactionHash(signed)
	if err != nil || hash != "0x"+hex.EncodeToString(h[:]) {
		t.Fatalf("submit %s, %v", hash, err)
	}
	if _, err := c.Submit(ctx, signed); err == nil || !strings.Contains(err.Error(), "SEQUENCE_NUMBER") {
		t.Fatalf("again: %v", err)
	}
	o, err := c.ByHash(ctx, h)
	if err != nil || o == nil {
		t.Fatalf("by hash: %v", err)
	}
	normal, _, _, ok := aptos.Committed(o)
	if !ok || aptos.IDDigest(normal) != aptos.IDDigest(aptos.NormalForm(sender, 5, tr)) {
		t.Fatalf("committed %v", o)
	}
	if o, err := c.BySequence(ctx, sender, 5); err != nil || o == nil {
		t.Fatalf("by sequence: %v", err)
	}
	if o, err := c.BySequence(ctx, sender, 6); err != nil || o != nil {
		t.Fatalf("by sequence 6: %v %v", o, err)
	}
	if o, err := c.ByHash(ctx, [32]byte{1}); err != nil || o != nil {
		t.Fatalf("unknown hash: %v %v", o, err)
	}
	ref := aptos.Reference{Network: "aptos:2", Sender: sender, Sequence: 5, ExpiresAt: 1_790_000_060, IDDigest: aptos.IDDigest(normal), Transaction: &h}
	if st := aptos.PaymentStatus(ctx, ref, c); st.State != "settled" || st.Hash != hash {
		t.Fatalf("status %+v", st)
	}
	if n.Calls.Load() != 13 {
		t.Fatalf("%d node calls", n.Calls.Load())
	}
}

// A node of another chain, a failing node and answers of the wrong shape
// are errors, never a value.
func TestClientErrors(t *testing.T) {
	ctx := context.Background()
	other := start(t, NewNode(1, 100, 1), "aptos:2")
	if _, err := other.ChainID(ctx); err == nil {
		t.Fatal("a node of chain 1 read as aptos:2")
	}
	answers := map[string]string{
		"/v1":                    `{"chain_id":2,"ledger_timestamp":"01"}`,
		"/v1/estimate_gas_price": `{"gas_estimate":0}`,
	}
	odd := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a, ok := answers[r.URL.Path]; ok {
			_, _ = w.Write([]byte(a))
			return
		}
		if strings.HasPrefix(r.URL.Path, "/v1/accounts/") && strings.HasSuffix(r.URL.Path, "/transactions") {
			_, _ = w.Write([]byte(`[{},{}]`))
			return
		}
		if strings.HasPrefix(r.URL.Path, "/v1/accounts/") {
			_, _ = w.Write([]byte(`{"sequence_number":5}`))
			return
		}
		http.Error(w, `{"message":"boom"}`, 500)
	}), "aptos:2")
	if _, err := odd.LedgerUsecs(ctx); err == nil {
		t.Fatal("a leading zero read")
	}
	if _, err := odd.GasUnitPrice(ctx); err == nil {
		t.Fatal("a zero gas price read")
	}
	if _, err := odd.SequenceNumber(ctx, aptos.Address{}); err != nil {
		t.Fatalf("a sequence number as a number: %v", err)
	}
	if _, err := odd.BySequence(ctx, aptos.Address{}, 1); err == nil {
		t.Fatal("two transactions read as one")
	}
	if _, err := odd.ByHash(ctx, [32]byte{}); err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("a 500: %v", err)
	}
	if _, err := odd.Submit(ctx, []byte{1}); err == nil {
		t.Fatal("a failed submission read")
	}
}

// FuzzNodeAnswers: any answer body to every read gives the client a value
// or an error, never a panic, and the status read over it is one of its
// states. Seeds are the loopback Node's own answers.
func FuzzNodeAnswers(f *testing.F) {
	n := NewNode(2, 100, 1_790_000_000_000_000)
	n.SetSequence(aptos.Address{1}, 5)
	rec := &rpcanswer.Recorder{Handler: n}
	ctx := context.Background()
	c := &Client{URL: "http://node.invalid", Net: "aptos:2", HTTP: &http.Client{Transport: rec}}
	_, _ = c.ChainID(ctx)
	_, _ = c.SequenceNumber(ctx, aptos.Address{1})
	_, _ = c.GasUnitPrice(ctx)
	_, _ = c.BySequence(ctx, aptos.Address{1}, 5)
	for _, a := range rec.Answers {
		f.Add(a)
	}
	f.Add([]byte(`[{"type":"user_transaction","sender":"0x1","sequence_number":"5","success":true,"version":"1"}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &Client{URL: "http://node.invalid", Net: "aptos:2", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
			_, _ = c.ChainID(ctx)
			_, _ = c.LedgerUsecs(ctx)
			_, _ = c.SequenceNumber(ctx, aptos.Address{1})
			_, _ = c.GasUnitPrice(ctx)
			_, _ = c.ByHash(ctx, [32]byte{2})
			_, _ = c.BySequence(ctx, aptos.Address{1}, 5)
			_, _ = c.Submit(ctx, []byte{0})
			h := [32]byte{2}
			s := aptos.PaymentStatus(ctx, aptos.Reference{Network: "aptos:2", Sender: aptos.Address{1}, Sequence: 5, Transaction: &h}, c)
			if s.State != "settled" && s.State != "pending" && s.State != "failed" {
				t.Fatalf("state %q", s.State)
			}
		})
	})
}
