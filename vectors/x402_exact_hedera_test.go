package vectors_test

// x402-exact-hedera.json: V1, V2 (the body byte for byte, the transaction
// completed with the file's key and signature byte for byte, bound,
// reference, the id's text), V3 (the TransactionList forms), V4x, V5 (the
// status rows and recover, read through the Mirror Node client from a
// loopback server answering as the Mirror Node does), plants, refusals,
// tokenBuild and the buyer rows B2 and B6.

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/hedera/mirror"
	"github.com/termsgate/termsgate/signer"
)

// mirrorNode is a loopback Mirror Node answering
// /api/v1/transactions/{id} with entries (a 404 for null, a 500 for
// "reader-error"), and a reader of network over it; calls counts requests.
func mirrorNode(t *testing.T, network string, entries jsonv.Value, calls *int) mirror.Reader {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*calls++
		switch {
		case !strings.HasPrefix(r.URL.Path, "/api/v1/transactions/"):
			http.NotFound(w, r)
		case entries == "reader-error":
			http.Error(w, `{"_status":{"messages":[{"message":"Internal error"}]}}`, http.StatusInternalServerError)
		case entries == nil:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"_status":{"messages":[{"message":"Not found"}]}}`))
		default:
			_, _ = w.Write(jsonv.Marshal(jsonv.Obj("transactions", entries)))
		}
	}))
	t.Cleanup(srv.Close)
	return mirror.Reader{Client: &mirror.Client{URL: srv.URL, HTTP: srv.Client(), Of: network}}
}

func TestX402ExactHedera(t *testing.T) {
	f := load(t, "x402-exact-hedera.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	p := hedera.Exact{}
	b2 := row(t, get(t, f, "buyer", "rows"), "B2")
	doc := obj(t, b2, "input", "doc")
	account := str(t, b2, "input", "account")
	inputs := obj(t, b2, "input", "inputs")
	build := func(t *testing.T, d *jsonv.Object, in *jsonv.Object) (rails.Unsigned, []byte) {
		t.Helper()
		read, err := p.Read(d)
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.Choose(read, account, in, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(c, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		body, _ := hex.DecodeString(strings.TrimPrefix(str(t, req, "bodyBytes"), "0x"))
		return u, body
	}
	answer := jsonv.Obj("publicKey", "0x"+str(t, fixed, "publicKey"), "signature", "0x"+str(t, fixed, "signature"), "type", "ed25519")
	payment := func(tx string) *jsonv.Object {
		pay := obj(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented").Clone()
		pay.Set("payload", jsonv.Obj("transaction", tx))
		return pay
	}

	t.Run("V1", func(t *testing.T) {
		v := obj(t, f, "V1")
		if hedera.Carrier(H) != str(t, v, "expectMemo") || base64.StdEncoding.EncodeToString([]byte(hedera.Carrier(H))) != str(t, v, "expectMemoBase64") {
			t.Fatal("memo")
		}
		if n, _ := jsonv.AsSafeInt(get(t, fixed, "Lbytes")); int64(len(hedera.Carrier(H))) != n {
			t.Fatal("memo length")
		}
	})
	t.Run("V2", func(t *testing.T) {
		v := obj(t, f, "V2")
		u, body := build(t, doc, inputs)
		n, _ := jsonv.AsSafeInt(get(t, v, "expectBodyLength"))
		if hex.EncodeToString(body) != str(t, v, "expectBodyBytes") || int64(len(body)) != n {
			t.Fatalf("body %x", body)
		}
		// The file's signature verifies over the body, under its key.
		if !ed25519.Verify(unhex(t, str(t, fixed, "publicKey")), body, unhex(t, str(t, fixed, "signature"))) {
			t.Fatal("the file's signature does not verify over the built body")
		}
		done, err := p.Complete(u, answer, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		tx := str(t, done.Signed, "payload", "transaction")
		raw, _ := base64.StdEncoding.DecodeString(tx)
		tl, _ := jsonv.AsSafeInt(get(t, v, "expectTransactionLength"))
		if tx != str(t, v, "expectTransactionBase64") || int64(len(raw)) != tl {
			t.Fatalf("transaction %s", tx)
		}
		h, err := p.Bound(done.Signed)
		if err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		ref, err := p.Reference(done.Signed)
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, v, "expectReference")) {
			t.Fatalf("reference %s (%v)", jsonv.String(ref), err)
		}
		s, _ := hedera.WireOf(tx)
		if s.Bodies[0].ID.Text() != str(t, v, "expectTxIdText") {
			t.Fatalf("id %s", s.Bodies[0].ID.Text())
		}
	})
	t.Run("V3", func(t *testing.T) {
		v := obj(t, f, "V3")
		h, err := p.Bound(payment(str(t, v, "listBase64")))
		if err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		_, err = p.Bound(payment(str(t, v, "inconsistentListBase64")))
		wantRefusal(t, err, str(t, v, "expectInconsistent"))
	})
	t.Run("V4x", func(t *testing.T) {
		_, err := p.Bound(payment(str(t, f, "V4x", "transactionBase64")))
		wantRefusal(t, err, str(t, f, "V4x", "expectRefusal"))
	})
	t.Run("V5", func(t *testing.T) {
		v := obj(t, f, "V5")
		ref := obj(t, v, "reference")
		for i, rv := range get(t, v, "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				calls := 0
				got := hedera.StatusOf(ref, mirrorNode(t, str(t, v, "readerNetwork"), get(t, r, "entries"), &calls))
				if jsonv.String(got.JSON()) != jsonv.String(get(t, r, "expect")) || calls != 1 {
					t.Fatalf("status %s, %d reads", jsonv.String(got.JSON()), calls)
				}
			})
		}
		t.Run("recover", func(t *testing.T) {
			calls := 0
			h, err := hedera.Recover(ref, mirrorNode(t, str(t, v, "readerNetwork"), get(t, v, "recover", "entries"), &calls))
			if err != nil || h != str(t, v, "recover", "expect") || calls != 1 {
				t.Fatalf("recover %s (%v), %d reads", h, err, calls)
			}
			_, err = hedera.Recover(ref, mirrorNode(t, "hedera:mainnet", get(t, v, "recover", "entries"), &calls))
			wantRefusal(t, err, hedera.CodeWrongReader)
		})
	})
	t.Run("plants", func(t *testing.T) {
		pl := obj(t, f, "plants")
		calls := 0
		got := hedera.StatusOf(obj(t, f, "V5", "reference"), mirrorNode(t, "hedera:testnet", get(t, pl, "duplicateFirst", "entries"), &calls))
		if jsonv.String(got.JSON()) != jsonv.String(get(t, pl, "duplicateFirst", "expect")) {
			t.Fatalf("duplicate first: %s", jsonv.String(got.JSON()))
		}
		_, err := p.Bound(payment(str(t, pl, "noMemo", "transactionBase64")))
		wantRefusal(t, err, str(t, pl, "noMemo", "expectRefusal"))
	})
	t.Run("refusals", func(t *testing.T) {
		for i, rv := range get(t, f, "refusals").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				var err error
				if tx, ok := r.GetString("transactionBase64"); ok {
					_, err = p.Bound(payment(tx))
				} else {
					_, err = hedera.PlaceOption(obj(t, r, "option"))
				}
				wantRefusal(t, err, str(t, r, "expect"))
			})
		}
	})
	t.Run("tokenBuild", func(t *testing.T) {
		v := obj(t, f, "tokenBuild")
		for _, c := range []struct {
			decimals int64
			key      string
		}{{6, "expectBodyBytesDecimals6"}, {0, "expectBodyBytesDecimals0"}} {
			d := doc.Clone()
			accepts, _ := d.Get("accepts")
			accepts.([]jsonv.Value)[0].(*jsonv.Object).Set("asset", str(t, v, "asset"))
			in := inputs.Clone()
			in.Set("decimals", jsonv.Number(c.decimals))
			_, body := build(t, d, in)
			if hex.EncodeToString(body) != str(t, v, c.key) {
				t.Fatalf("decimals %d: body %x", c.decimals, body)
			}
		}
	})
	t.Run("B2", func(t *testing.T) {
		in := obj(t, b2, "input")
		srv := newATRSeller(t)
		srv.serveBytes(unhex(t, str(t, in, "servesHex")))
		l, err := signer.NewHedera(account, signer.HederaDevSeed)
		if err != nil {
			t.Fatal(err)
		}
		sg := &countingSigner{inner: l}
		opts := &gate.TransactOptions{Inputs: inputs}
		_, err = srv.gateFor(0, nil).Transact(context.Background(), doc, hedera.ExactID, sg, opts)
		wantDecline(t, err, gate.Code(str(t, b2, "expect", "decline")), "")
		if sg.calls.Load() != 0 || srv.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), srv.fetches.Load())
		}
		// The control: the advertised terms are paid, one signer call, the
		// body V2's byte for byte and signed by the development key.
		srv.serveBytes([]byte("abc"))
		paid, err := srv.gateFor(0, nil).Transact(context.Background(), doc, hedera.ExactID, sg, opts)
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("control: %v, %d signer calls", err, sg.calls.Load())
		}
		s, err := hedera.WireOf(get(t, paid.Signed, "payload", "transaction"))
		if err != nil || hex.EncodeToString(s.Bodies[0].Bytes) != str(t, f, "V2", "expectBodyBytes") {
			t.Fatalf("control: body (%v)", err)
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		presented := get(t, r, "input", "presented")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), hedera.ExactID, presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), hedera.ExactID, presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}
