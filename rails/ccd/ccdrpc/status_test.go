package ccdrpc

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/ccd"
)

// d5 is x402-exact-ccd.json's D5 (vectors/testdata): the status rows.
func d5(t testing.TB) *jsonv.Object {
	t.Helper()
	raw, err := os.ReadFile("../../../vectors/testdata/x402-exact-ccd.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := jsonv.AsObject(v)
	d, _ := o.GetObject("D5")
	return d
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rowItem is a D5 row's block item, nil for none.
func rowItem(t testing.TB, v jsonv.Value) *ccd.Item {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil
	}
	s := func(o *jsonv.Object, k string) string { v, _ := o.GetString(k); return v }
	it := &ccd.Item{State: s(o, "state")}
	if b, ok := o.Get("success"); ok {
		it.Success, _ = b.(bool)
	}
	if sender, ok := o.GetString("sender"); ok {
		it.Sender = unhex(t, sender)
	}
	ts, _ := o.Get("transfers")
	list, _ := jsonv.AsArray(ts)
	for _, tv := range list {
		to, _ := jsonv.AsObject(tv)
		tr := ccd.Transfer{Kind: s(to, "kind"), TokenID: s(to, "tokenId"), Receiver: unhex(t, s(to, "receiver"))}
		tr.Amount, _ = strconv.ParseUint(s(to, "amount"), 10, 64)
		if m, ok := to.GetString("memo"); ok {
			tr.Memo = unhex(t, m)
		}
		it.Transfers = append(it.Transfers, tr)
	}
	return it
}

// sameItem compares what a status carries: the state, and once finalized
// the outcome.
func sameItem(a, b *ccd.Item) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.State != b.State {
		return false
	}
	if a.State != "finalized" {
		return true
	}
	if a.Success != b.Success || !bytes.Equal(a.Sender, b.Sender) || len(a.Transfers) != len(b.Transfers) {
		return false
	}
	for i, x := range a.Transfers {
		y := b.Transfers[i]
		if x.Kind != y.Kind || x.TokenID != y.TokenID || !bytes.Equal(x.Receiver, y.Receiver) || x.Amount != y.Amount ||
			(x.Memo == nil) != (y.Memo == nil) || !bytes.Equal(x.Memo, y.Memo) {
			return false
		}
	}
	return true
}

// Every D5 row's block item, held by the loopback node, read back over
// gRPC-web by GetBlockItemStatus as it was planted, and through
// ccd.PaymentStatus and ccd.Recover to the row's expected status; the
// reader's failure row as a node that answers UNAVAILABLE.
func TestBlockItemStatusRows(t *testing.T) {
	d := d5(t)
	rows, _ := d.Get("rows")
	list, _ := jsonv.AsArray(rows)
	if len(list) < 10 {
		t.Fatalf("%d rows", len(list))
	}
	ctx := context.Background()
	for _, rv := range list {
		r, _ := jsonv.AsObject(rv)
		name, _ := r.GetString("case")
		refName, _ := r.GetString("ref")
		ro, _ := d.GetObject(refName)
		str := func(k string) string { v, _ := ro.GetString(k); return v }
		settle, _ := ro.Get("settleBy")
		by, _ := jsonv.AsSafeInt(settle)
		ref := ccd.Reference{Network: str("network"), Asset: str("asset"), IDDigest: str("idDigest"), SettleBy: by}
		h, _ := atr.ParseHash(str("h"))
		hash := str("transaction")
		node := &Node{Net: testnet}
		node.AddToken("EURR", 6)
		var c *Client
		iv, _ := r.Get("item")
		want := rowItem(t, iv)
		if s, ok := iv.(string); ok && s == "reader-error" {
			c = start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { answer(w, nil, "14", "unavailable") }))
		} else {
			if want != nil {
				node.SetItem([32]byte(unhex(t, hash)), *want)
			}
			c = start(t, node)
			got, err := c.Item(ctx, hash)
			if err != nil || !sameItem(got, want) {
				t.Fatalf("%s: read %+v, %v; planted %+v", name, got, err, want)
			}
		}
		st := ccd.PaymentStatus(ctx, ref, hash, h, c)
		w, _ := r.GetObject("expectStatus")
		ws := func(k string) string { v, _ := w.GetString(k); return v }
		if st != (ccd.Status{State: ws("state"), Why: ws("why"), Finality: ws("finality")}) {
			t.Fatalf("%s: status %+v, want %s", name, st, jsonv.Marshal(w))
		}
		got, err := ccd.Recover(ctx, ref.Network, hash, c)
		ev, _ := r.Get("expectRecover")
		if s, ok := ev.(string); ok {
			if err != nil || got.String() != s {
				t.Fatalf("%s: recover %v, %v", name, got, err)
			}
		} else if eo, _ := jsonv.AsObject(ev); eo != nil {
			code, _ := eo.GetString("code")
			if err == nil || err.Error() != "refused: "+code {
				t.Fatalf("%s: recover %v, want %s", name, err, code)
			}
		}
	}
}

// The demo seller's path: a submitted item reads settled through the
// client, and the node's answers that are not a status are errors, not
// a status: another transaction's outcome, two states, none, a hash that
// is not one.
func TestBlockItemStatusRefuses(t *testing.T) {
	ctx := context.Background()
	node := &Node{Net: testnet}
	sender, receiver := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	node.SetNonce(sender, 1)
	h := atr.Sum([]byte("abc"))
	item := ccd.Item{State: "finalized", Success: true, Sender: sender,
		Transfers: []ccd.Transfer{{Kind: "ccd", Receiver: receiver, Amount: 1000, Memo: ccd.Memo(h)}}}
	var txHash [32]byte
	txHash[0] = 0xab
	if err := node.Submit(txHash, 1, item); err != nil {
		t.Fatal(err)
	}
	c := start(t, node)
	name := hex.EncodeToString(txHash[:])
	ref := ccd.Reference{Network: testnet, Asset: ccd.CCD, IDDigest: ccd.IDDigest(sender, receiver, 1000)}
	if st := ccd.PaymentStatus(ctx, ref, name, h, c); st != (ccd.Status{State: "settled", Finality: "finalized"}) {
		t.Fatalf("status %+v", st)
	}
	for _, bad := range []string{"", name[:62], "AB" + name[2:], "0x" + name[2:]} {
		if _, err := c.Item(ctx, bad); err == nil {
			t.Errorf("hash %q asked for", bad)
		}
	}
	// The node's answer for txHash, served for another hash.
	rec := &rpcanswer.Recorder{Handler: node}
	rc := &Client{URL: "http://grpc.invalid", Net: testnet, HTTP: &http.Client{Transport: rec}}
	if _, err := rc.Item(ctx, name); err != nil || len(rec.Answers) != 1 {
		t.Fatalf("%v, %d answers", err, len(rec.Answers))
	}
	other := hex.EncodeToString(bytes.Repeat([]byte{0xcd}, 32))
	fixed := &Client{URL: "http://grpc.invalid", Net: testnet, HTTP: &http.Client{Transport: rpcanswer.Fixed(rec.Answers[0])}}
	var e *Error
	if _, err := fixed.Item(ctx, other); !errors.As(err, &e) || e.Method != "GetBlockItemStatus" {
		t.Fatalf("another transaction's outcome: %v", err)
	}
	trailer := []byte("grpc-status:0\r\n")
	framed := func(msg []byte) []byte {
		b := frame(msg)
		return append(b, append([]byte{0x80, 0, 0, 0, byte(len(trailer))}, trailer...)...)
	}
	for what, msg := range map[string][]byte{
		"no state":              nil,
		"two states":            append(msgOf(statusReceived, nil), msgOf(statusCommitted, nil)...),
		"finalized, no outcome": msgOf(statusFinalized, nil),
		"not protobuf":          {0x0a, 0x05},
		"a 31-byte sender": msgOf(statusFinalized, msgOf(1, msgOf(2, append(msgOf(summaryHash, value1(txHash[:])),
			msgOf(summaryAccountTransaction, msgOf(detailsSender, value1(sender[:31])))...)))),
	} {
		c := &Client{URL: "http://grpc.invalid", Net: testnet, HTTP: &http.Client{Transport: rpcanswer.Fixed(framed(msg))}}
		if it, err := c.Item(ctx, name); !errors.As(err, &e) {
			t.Errorf("%s: %+v, %v", what, it, err)
		}
	}
}

// FuzzBlockItemStatus: any bytes as the node's GetBlockItemStatus answer
// end Item, PaymentStatus and Recover in a value or an error, never a
// panic, within internal/cost's bound; an item read is in one of the three
// states. Seeded with the loopback node's answers for D5's items.
func FuzzBlockItemStatus(f *testing.F) {
	d := d5(f)
	rows, _ := d.Get("rows")
	list, _ := jsonv.AsArray(rows)
	hash := "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
	ctx := context.Background()
	for _, rv := range list {
		r, _ := jsonv.AsObject(rv)
		iv, _ := r.Get("item")
		it := rowItem(f, iv)
		if it == nil {
			continue
		}
		node := &Node{Net: testnet}
		node.SetItem([32]byte(unhex(f, hash)), *it)
		rec := &rpcanswer.Recorder{Handler: node}
		c := &Client{URL: "http://grpc.invalid", Net: testnet, HTTP: &http.Client{Transport: rec}}
		_, _ = c.Item(ctx, hash)
		for _, a := range rec.Answers {
			f.Add(a)
		}
	}
	ref := ccd.Reference{Network: testnet, Asset: ccd.CCD, IDDigest: "0x0a5d3a6cca5dede00c20607c7b45d383b08292c5feb016ad1fc10666c76c33d8"}
	h := atr.Sum([]byte("abc"))
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &Client{URL: "http://grpc.invalid", Net: testnet, HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
			it, err := c.Item(ctx, hash)
			if err == nil && it != nil && it.State != "received" && it.State != "committed" && it.State != "finalized" {
				t.Fatalf("state %q", it.State)
			}
			_ = ccd.PaymentStatus(ctx, ref, hash, h, c)
			_, _ = ccd.Recover(ctx, testnet, hash, c)
		})
	})
}
