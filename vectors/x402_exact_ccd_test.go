package vectors_test

// x402-exact-ccd.json: every row. fixed, D1–D5 and the plant
// (x402_exact_ccd_rows_test.go); D3's two signed transactions rebuilt byte
// for byte by the Concordium wallet (signer.CCD with the vectors' seed
// 0x00…01, against a loopback node answering over gRPC-web), paid through
// the gate; and the buyer rows B2 and B6.

import (
	"context"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/ccd"
	"github.com/termsgate/termsgate/rails/ccd/ccdrpc"
	"github.com/termsgate/termsgate/signer"
)

// ccdWallet is the development wallet on network against a loopback node
// holding the payer's next nonce (7, as D3 was signed) and EURR at 6
// decimals.
func ccdWallet(t *testing.T, network string) (*signer.CCD, *ccdrpc.Node) {
	t.Helper()
	node := &ccdrpc.Node{}
	payer, _ := ccd.AccountBytes(signer.CCDDevAccount)
	node.SetNonce(payer, 7)
	node.AddToken("EURR", 6)
	srv, err := loopback.Start(node, "grpc.ccd.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rpc := &ccdrpc.Client{URL: "https://grpc.ccd.example", Net: network, HTTP: srv.Client()}
	w, err := signer.CCDFromSeed(signer.CCDDevSeed, signer.CCDDevAccount, network, rpc)
	if err != nil {
		t.Fatal(err)
	}
	return w, node
}

func TestX402ExactCCD(t *testing.T) {
	f := load(t, "x402-exact-ccd.json")
	p := ccd.Exact{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	network := str(t, fixed, "network")
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	b2 := row(t, get(t, f, "buyer", "rows"), "B2")
	b6 := obj(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented")

	ccdRows(t, f)
	t.Run("D3 rebuilt", func(t *testing.T) {
		for _, kind := range []string{"ccd", "plt"} {
			t.Run(kind, func(t *testing.T) {
				want := obj(t, f, "D3", kind, "payment")
				doc := obj(t, b2, "input", "doc").Clone()
				doc.Set("accepts", []jsonv.Value{jsonv.Clone(get(t, want, "accepted"))})
				s := newATRSeller(t)
				s.serveBytes([]byte("abc"))
				w, node := ccdWallet(t, network)
				sg := &countingSigner{inner: w}
				res, err := s.gateFor(now, nil).Transact(context.Background(), doc, ccd.ExactID, sg, nil)
				if err != nil || sg.calls.Load() != 1 {
					t.Fatalf("pay: %v (%d signer calls)", err, sg.calls.Load())
				}
				calls := int64(1)
				if kind == "plt" {
					calls = 2 // the nonce and the token's decimals
				}
				if node.Calls.Load() != calls {
					t.Fatalf("%d node calls, want %d", node.Calls.Load(), calls)
				}
				got := get(t, res.Signed, "payload", "signedTransaction")
				if g, w := string(jsonv.Marshal(got)), string(jsonv.Marshal(get(t, want, "payload", "signedTransaction"))); g != w {
					t.Fatalf("signedTransaction\n got %s\nwant %s", g, w)
				}
				if h, err := p.Bound(res.Signed); err != nil || h != H.String() {
					t.Fatalf("bound %s, %v", h, err)
				}
			})
		}
	})
	t.Run("B2", func(t *testing.T) {
		in := obj(t, b2, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		w, node := ccdWallet(t, network)
		if w.Account() != str(t, in, "account") {
			t.Fatalf("the development wallet is %s, the row's account %s", w.Account(), str(t, in, "account"))
		}
		sg := &countingSigner{inner: w}
		rnow, _ := jsonv.AsSafeInt(get(t, in, "now"))
		_, err := s.gateFor(rnow, nil).Transact(context.Background(), get(t, in, "doc"), str(t, b2, "pairing"), sg, nil)
		wantDecline(t, err, gate.Code(str(t, b2, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 || node.Calls.Load() != 0 {
			t.Fatalf("%d signer calls, %d fetches, %d node calls", sg.calls.Load(), s.fetches.Load(), node.Calls.Load())
		}
		// The control: the terms it advertises, paid once; the payment is
		// B6's presented payment byte for byte, with the document's
		// extensions echoed as x402 payments carry them.
		s.serveBytes([]byte("abc"))
		res, err := s.gateFor(rnow, nil).Transact(context.Background(), get(t, in, "doc"), str(t, b2, "pairing"), sg, nil)
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("control: %v (%d calls)", err, sg.calls.Load())
		}
		paid, _ := jsonv.AsObject(jsonv.Clone(res.Signed))
		if !jsonv.Equal(get(t, paid, "extensions"), get(t, in, "doc", "extensions")) {
			t.Fatal("the payment does not echo the document's extensions")
		}
		paid.Delete("extensions")
		if g, w := string(jsonv.Marshal(paid)), string(jsonv.Marshal(b6)); g != w {
			t.Fatalf("control paid\n %s\nnot B6's\n %s", g, w)
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, r, "pairing"), b6)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, r, "pairing"), b6)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}
