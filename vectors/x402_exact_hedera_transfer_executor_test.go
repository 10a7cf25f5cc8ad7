package vectors_test

// x402-exact-hedera-transfer-executor.json: fixed, pairingOf, build,
// complete, bound, reference, status, plant and the buyer rows B2 and B6,
// the gate running the shipped registry.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/all"
	"github.com/termsgate/termsgate/rails/hedera"
	"github.com/termsgate/termsgate/rails/hedera/mirror"
	"github.com/termsgate/termsgate/signer"
)

// executorMirror is a loopback Mirror Node answering every transaction id
// with entries as the vectors write them (transfers included), a 404 for
// null; calls counts requests.
func executorMirror(t *testing.T, network string, entries jsonv.Value, calls *int) mirror.Reader {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*calls++
		switch {
		case !strings.HasPrefix(r.URL.Path, "/api/v1/transactions/"):
			http.NotFound(w, r)
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

func TestX402ExactHederaTransferExecutor(t *testing.T) {
	f := load(t, "x402-exact-hedera-transfer-executor.json")
	fixed := obj(t, f, "fixed")
	p := hedera.Executor{}
	b2 := row(t, get(t, f, "buyer", "rows"), "B2")
	doc := obj(t, b2, "input", "doc")
	account := str(t, b2, "input", "account")
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	presented := get(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented")
	build := func(t *testing.T) rails.Unsigned {
		read, err := p.Read(doc)
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.Choose(read, account, nil, now, "")
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(c, []byte("abc"), mustHash(t, str(t, fixed, "H")))
		if err != nil {
			t.Fatal(err)
		}
		return u
	}

	t.Run("fixed", func(t *testing.T) {
		if ok, err := hedera.CheckExecutorOption(obj(t, fixed, "O")); !ok || err != nil {
			t.Fatalf("O: %v %v", ok, err)
		}
		if jsonv.String(get(t, presented, "payload")) != jsonv.String(get(t, fixed, "payload")) {
			t.Fatal("B6's payload is not fixed.payload")
		}
	})
	t.Run("pairingOf", func(t *testing.T) {
		for i, r := range get(t, f, "pairingOf").([]jsonv.Value) {
			got, err := hedera.PairingOf(obj(t, r, "option"))
			want := str(t, r, "expect")
			if strings.Contains(want, "/") && strings.HasPrefix(want, "x402/") {
				if err != nil || got != want {
					t.Fatalf("row %d: %q, %v", i, got, err)
				}
				continue
			}
			wantRefusal(t, err, want)
		}
	})
	t.Run("build", func(t *testing.T) {
		req, _ := p.Request(build(t))
		if jsonv.String(req) != jsonv.String(get(t, f, "build", "expectRequest")) {
			t.Fatalf("request %s", jsonv.String(req))
		}
	})
	t.Run("complete", func(t *testing.T) {
		u := build(t)
		done, err := p.Complete(u, obj(t, fixed, "payload"), rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		// The payment is B6's presented payment.
		if jsonv.String(done.Signed) != jsonv.String(presented) {
			t.Fatalf("payment %s", jsonv.String(done.Signed))
		}
		for i, r := range get(t, f, "complete").([]jsonv.Value) {
			answer := obj(t, fixed, "payload").Clone()
			for _, k := range []string{"payer", "executor", "authorization"} {
				if v, has := obj(t, r).Get(k); has {
					answer.Set(k, v)
				}
			}
			_, err := p.Complete(u, answer, rails.Chosen{})
			if r, ok := err.(*rails.Refusal); !ok || r.Code != str(t, get(t, f, "complete").([]jsonv.Value)[i], "expect") {
				t.Fatalf("row %d: %v", i, err)
			}
		}
	})
	t.Run("bound", func(t *testing.T) {
		h, err := p.Bound(presented)
		if err != nil || h != str(t, f, "bound", "expectWithExtension") {
			t.Fatalf("bound %q, %v", h, err)
		}
		without := obj(t, presented).Clone()
		without.Delete("extensions")
		_, err = p.Bound(without)
		wantRefusal(t, err, str(t, f, "bound", "expectWithoutExtension"))
	})
	t.Run("reference", func(t *testing.T) {
		ref, err := p.Reference(presented)
		if err != nil || str(t, ref, "idDigest") != str(t, f, "reference", "expectIdDigest") ||
			str(t, ref, "idDigest") != str(t, f, "status", "reference", "idDigest") || str(t, ref, "network") != "hedera:testnet" {
			t.Fatalf("reference %s, %v", jsonv.String(ref), err)
		}
	})
	st := obj(t, f, "status")
	t.Run("status", func(t *testing.T) {
		for i, r := range get(t, st, "rows").([]jsonv.Value) {
			calls := 0
			got := hedera.ExecutorStatus(obj(t, st, "reference"), executorMirror(t, str(t, st, "readerNetwork"), get(t, r, "entries"), &calls))
			if jsonv.String(got.JSON()) != jsonv.String(get(t, r, "expect")) || calls != 1 {
				t.Fatalf("row %d: status %s, %d reads", i, jsonv.String(got.JSON()), calls)
			}
		}
	})
	t.Run("plant", func(t *testing.T) {
		calls := 0
		got := hedera.ExecutorStatus(obj(t, st, "reference"), executorMirror(t, str(t, st, "readerNetwork"), get(t, f, "plant", "entries"), &calls))
		if jsonv.String(got.JSON()) != jsonv.String(get(t, f, "plant", "expect")) || calls != 1 {
			t.Fatalf("status %s, %d reads", jsonv.String(got.JSON()), calls)
		}
	})
	reg := all.Default()
	t.Run("B2", func(t *testing.T) {
		in := obj(t, b2, "input")
		srv := newATRSeller(t)
		srv.serveBytes(unhex(t, str(t, in, "servesHex")))
		l, err := signer.NewHedera(account, signer.HederaDevSeed)
		if err != nil {
			t.Fatal(err)
		}
		sg := &countingSigner{inner: l}
		_, err = srv.gateFor(now, reg).Transact(context.Background(), doc, hedera.ExecutorID, sg, nil)
		wantDecline(t, err, gate.Code(str(t, b2, "expect", "decline")), "")
		if sg.calls.Load() != 0 || srv.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), srv.fetches.Load())
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{Pairings: reg}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), hedera.ExecutorID, presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), hedera.ExecutorID, presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}
