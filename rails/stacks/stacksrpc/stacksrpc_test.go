package stacksrpc

import (
	"context"
	"encoding/hex"
	"errors"
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/stacks"
	"github.com/termsgate/termsgate/signer"
)

const network = "stacks:2147483648"

func start(t *testing.T, h http.Handler) *Client {
	t.Helper()
	srv, err := loopback.Start(h, "api.stacks.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &Client{URL: "https://api.stacks.example", Net: network, HTTP: srv.Client()}
}

// unsigned is a transfer from the scalar-1 key, nonce and fee left zero.
func unsigned(t *testing.T, h atr.Hash) *stacks.Tx {
	t.Helper()
	contract, ok1 := stacks.Testnet.ParseContract("ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.usdcx")
	to, ok2 := stacks.Testnet.ParseStandard("ST3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8NQXMNRQ")
	from, ok3 := stacks.Testnet.ParseStandard("ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF")
	if !ok1 || !ok2 || !ok3 {
		t.Fatal("fixture addresses")
	}
	return stacks.TransferSpec{Chain: stacks.Testnet, Origin: from.Hash, Contract: contract, AssetName: "usdcx-token",
		Amount: 1_000_000, Recipient: to, H: h}.Build()
}

// The wallet fills nonce and fee from the node (two calls), the node takes
// the signed transfer as the chain would and refuses it again (its nonce
// is used), and the seller reads it settled, then final by Bitcoin, and
// recovers H from it alone.
func TestInputsBroadcastAndStatusFromTheNode(t *testing.T) {
	node := &Node{FeeRate: 3, Height: 9021832, Tenure: 256356}
	c := start(t, node)
	ctx := context.Background()
	key, err := signer.StacksFromHex(signer.StacksDevKey, network, c)
	if err != nil {
		t.Fatal(err)
	}
	h := atr.Sum([]byte("abc"))
	tx := unsigned(t, h)
	req := jsonv.Obj("kind", stacks.KindContractCall, "network", network, "transaction", "0x"+hex.EncodeToString(tx.Encode()))
	answer, err := key.Sign(ctx, req)
	if err != nil || node.Calls.Load() != 2 {
		t.Fatalf("sign: %v, %d calls", err, node.Calls.Load())
	}
	signed, raw, ok := stacks.SignedOf(answer)
	if !ok || signed.Nonce != 0 || signed.Fee != 3*uint64(len(raw)) || !stacks.VerifySignature(signed) || !stacks.SameBut(tx, signed, false, false) {
		t.Fatalf("signed %+v", signed)
	}
	ref := stacks.Reference{Network: network, Contract: "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.usdcx",
		Origin: "ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF", Nonce: 0, TxID: stacks.TxID(raw)}
	if st := stacks.PaymentStatus(ctx, ref, h, c); st.State != "pending" || st.Why != "not-found" {
		t.Fatalf("before: %+v", st)
	}
	id, err := c.Broadcast(ctx, raw)
	if err != nil || id != ref.TxID {
		t.Fatalf("broadcast %x, %v", id, err)
	}
	var e *Error
	if _, err := c.Broadcast(ctx, raw); !errors.As(err, &e) || e.Status != http.StatusBadRequest {
		t.Fatalf("the same nonce again: %v", err)
	}
	if st := stacks.PaymentStatus(ctx, ref, h, c); st.State != "settled" || st.Finality != "block" || *st.BlockHeight != 9021832 {
		t.Fatalf("status %+v", st)
	}
	node.Advance(2)
	if st := stacks.PaymentStatus(ctx, ref, h, c); st.State != "settled" || st.Finality != "bitcoin" {
		t.Fatalf("status %+v", st)
	}
	if got, err := stacks.Recover(ctx, network, ref.TxID, c); err != nil || got != h {
		t.Fatalf("recover %v, %v", got, err)
	}
	// Another transaction of the same origin and nonce never lands: the
	// nonce is used.
	other := ref
	other.TxID[0] ^= 1
	if st := stacks.PaymentStatus(ctx, other, h, c); st.State != "failed" || st.Why != "nonce-used" {
		t.Fatalf("other: %+v", st)
	}
	// A fee rate above the signer's cap is refused before signing.
	node.FeeRate = signer.DefaultStacksMaxFee
	if _, err := key.Sign(ctx, req); err == nil {
		t.Fatal("signed with a fee above the cap")
	}
}

func TestNodeFailuresAreErrors(t *testing.T) {
	var e *Error
	ctx := context.Background()
	for name, body := range map[string]string{
		"not JSON":      `{`,
		"nonce text":    `{"nonce":"1"}`,
		"nonce minus":   `{"nonce":-1}`,
		"no tenure":     `{"stacks_tip_height":5}`,
		"rate zero":     `0`,
		"nonces absent": `{}`,
	} {
		c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
		_, err1 := c.Nonce(ctx, "ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF")
		_, err2 := c.FeeRate(ctx)
		_, err3 := c.TipTenure(ctx)
		_, err4 := c.ConfirmedNonce(ctx, "ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF")
		for _, err := range []error{err1, err2, err3, err4} {
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if err1 == nil || err3 == nil {
			t.Fatalf("%s: nonce %v, tenure %v", name, err1, err3)
		}
	}
	c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"tx_id":"0x00","tx_status":"success","nonce":0,"block_height":1}`))
	}))
	if _, err := c.Tx(ctx, [32]byte{1}); !errors.As(err, &e) {
		t.Fatalf("another transaction's answer: %v", err)
	}
	if _, err := c.Nonce(ctx, "ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QR"); !errors.As(err, &e) {
		t.Fatalf("a bad address was asked for: %v", err)
	}
}

// FuzzNodeAnswers: any bytes as the API's answer end every reader in a
// value or an error, never a panic.
func FuzzNodeAnswers(f *testing.F) {
	node := &Node{FeeRate: 1, Height: 10, Tenure: 3}
	rec := &rpcanswer.Recorder{Handler: node}
	c := &Client{URL: "http://api.invalid", Net: network, HTTP: &http.Client{Transport: rec}}
	ctx := context.Background()
	_, _ = c.Nonce(ctx, "ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF")
	_, _ = c.TipTenure(ctx)
	_, _ = c.ConfirmedNonce(ctx, "ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF")
	for _, a := range rec.Answers {
		f.Add(a)
	}
	f.Add([]byte(`{"tx_id":"0x0100000000000000000000000000000000000000000000000000000000000000","tx_status":"success","nonce":0,"block_height":1,"contract_call":{"function_args":[{"hex":"0x09"}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &Client{URL: "http://api.invalid", Net: network, HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
			_, _ = c.Nonce(ctx, "ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF")
			_, _ = c.FeeRate(ctx)
			_, _ = c.TipTenure(ctx)
			_, _ = c.ConfirmedNonce(ctx, "ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF")
			_, _ = c.Tx(ctx, [32]byte{1})
			_, _ = c.Broadcast(ctx, []byte{0})
		})
	})
}
