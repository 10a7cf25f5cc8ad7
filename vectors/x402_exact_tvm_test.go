package vectors_test

// x402-exact-tvm.json: fixed, V1–V4, V2b, plant, agreedRefusals and the
// buyer rows B2 and B6; V2 and V2b are built by the pairing and signed by the
// payer's Ed25519 seed through signer.TVM, their hashes and signatures as
// pytoniq and PyNaCl give them.

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/tvm"
	"github.com/termsgate/termsgate/signer"
)

func tvmDoc(t testing.TB, f *jsonv.Object, option jsonv.Value) *jsonv.Object {
	return tronDoc(t, f, option)
}

func tvmInputs(t testing.TB, f *jsonv.Object) *jsonv.Object {
	fixed := obj(t, f, "fixed")
	return jsonv.Obj("walletId", get(t, fixed, "walletId"), "seqno", get(t, fixed, "seqno"),
		"jettonWallet", str(t, fixed, "jettonWallet"), "attachNanotons", str(t, fixed, "attachNanotons"))
}

func tvmAccount(wallet string) string { return "tvm:-239:" + strings.ReplaceAll(wallet, ":", "%3A") }

// tvmBuild is build(choice, H) over fixed's placed option, for wallet and
// inputs.
func tvmBuild(t testing.TB, f *jsonv.Object, wallet string, inputs *jsonv.Object) (*tvm.W5, error) {
	fixed := obj(t, f, "fixed")
	read, err := tvm.Exact{}.Read(tvmDoc(t, f, get(t, fixed, "placed")))
	if err != nil {
		t.Fatal(err)
	}
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	c, err := tvm.Exact{}.Choose(read, tvmAccount(wallet), inputs, now, "ref")
	if err != nil {
		return nil, err
	}
	u, err := tvm.Exact{}.Build(c, nil, mustHash(t, str(t, fixed, "H")))
	if err != nil {
		return nil, err
	}
	return u.(*tvm.W5), nil
}

func tvmSign(t testing.TB, f *jsonv.Object, wallet string, w *tvm.W5) (string, *jsonv.Object) {
	s, err := signer.TVMFromSeedHex(str(t, f, "fixed", "seedHex"), wallet, "tvm:-239")
	if err != nil {
		t.Fatal(err)
	}
	req, err := tvm.Exact{}.Request(w)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := s.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := tvm.Exact{}.Complete(w, sig, rails.Chosen{Ref: "ref"})
	if err != nil {
		t.Fatal(err)
	}
	return sig.(string), done.Signed.(*jsonv.Object)
}

func hexHash(h [32]byte) string { return hex.EncodeToString(h[:]) }

func rootHash(t testing.TB, boc string) string {
	c, err := tvm.DecodeBoC64(boc)
	if err != nil {
		t.Fatal(err)
	}
	return hexHash(c.Hash())
}

func prefixed(t testing.TB, got string, want jsonv.Value) {
	t.Helper()
	if !strings.HasPrefix(got, str(t, want, "prefix")) || !strings.HasSuffix(got, str(t, want, "suffix")) {
		t.Fatalf("%s is not %s…%s", got, str(t, want, "prefix"), str(t, want, "suffix"))
	}
}

// tvmReader answers from a status row.
type tvmReader struct {
	network           string
	byInBody, byInMsg jsonv.Value
	head              jsonv.Value
	tx                *tvm.Tx
	fail              bool
	calls             int
}

func (r *tvmReader) Network() string { return r.network }

func tvmTxs(v jsonv.Value) ([]tvm.Tx, error) {
	if v == "reader-error" {
		return nil, errors.New("TON Center did not answer")
	}
	list, _ := jsonv.AsArray(v)
	var out []tvm.Tx
	for _, e := range list {
		o := e.(*jsonv.Object)
		fin, _ := o.Get("finality")
		n, _ := jsonv.AsSafeInt(fin)
		ab, _ := o.Get("aborted")
		tx := tvm.Tx{Hash: mppStr(o, "hash"), Account: mppStr(o, "account"), Aborted: ab == true, Finality: int(n)}
		msgs, _ := o.Get("outMsgs")
		ml, _ := jsonv.AsArray(msgs)
		for _, m := range ml {
			mo := m.(*jsonv.Object)
			op, _ := mo.Get("opcode")
			code, ok := jsonv.AsSafeInt(op)
			if !ok {
				code = -1
			}
			tx.OutMsgs = append(tx.OutMsgs, tvm.OutMsg{Hash: mppStr(mo, "hash"), Opcode: code})
		}
		out = append(out, tx)
	}
	return out, nil
}

func mppStr(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }

func (r *tvmReader) ByInBody(context.Context, string) ([]tvm.Tx, error) {
	r.calls++
	return tvmTxs(r.byInBody)
}

func (r *tvmReader) ByInMessage(context.Context, string) ([]tvm.Tx, error) {
	r.calls++
	return tvmTxs(r.byInMsg)
}

func (r *tvmReader) ByHash(context.Context, string) (*tvm.Tx, error) {
	r.calls++
	if r.fail {
		return nil, errors.New("TON Center did not answer")
	}
	return r.tx, nil
}

func (r *tvmReader) HeadUtime(context.Context) (int64, error) {
	r.calls++
	n, ok := jsonv.AsSafeInt(r.head)
	if !ok {
		return 0, errors.New("no head")
	}
	return n, nil
}

func readerOf(network string, r *jsonv.Object) *tvmReader {
	rd := &tvmReader{network: network}
	rd.byInBody, _ = r.Get("byInBody")
	rd.byInMsg, _ = r.Get("byInMessage")
	rd.head, _ = r.Get("headUtime")
	return rd
}

func tvmStatusIs(st tvm.Status, want *jsonv.Object) bool {
	return st.State == mppStr(want, "state") && st.Finality == mppStr(want, "finality") && st.Why == mppStr(want, "why")
}

func tvmRef(t testing.TB, o *jsonv.Object) tvm.Reference {
	vu, _ := jsonv.AsSafeInt(get(t, o, "validUntil"))
	return tvm.Reference{Network: str(t, o, "network"), TransferBodyHash: str(t, o, "transferBodyHash"),
		JettonWallet: str(t, o, "jettonWallet"), ValidUntil: uint64(vu)}
}

func TestX402ExactTVM(t *testing.T) {
	f := load(t, "x402-exact-tvm.json")
	p := tvm.Exact{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	wallet := str(t, fixed, "wallet")
	reg := rails.NewRegistry(p)
	var v2 *jsonv.Object

	t.Run("fixed", func(t *testing.T) {
		s, err := signer.TVMFromSeedHex(str(t, fixed, "seedHex"), wallet, "tvm:-239")
		if err != nil || hex.EncodeToString(s.PublicKey()) != str(t, fixed, "publicKey") {
			t.Fatalf("public key %v", err)
		}
		if code := tvm.CheckOption(obj(t, fixed, "O")); code != "" {
			t.Fatalf("O refused: %s", code)
		}
		doc := tvmDoc(t, f, get(t, fixed, "O"))
		if err := tvm.Place(doc, 0, H); err != nil {
			t.Fatal(err)
		}
		accepts, _ := doc.Get("accepts")
		if got, want := jsonv.String(accepts.([]jsonv.Value)[0]), jsonv.String(get(t, fixed, "placed")); got != want {
			t.Fatalf("placed %s, want %s", got, want)
		}
	})
	t.Run("V1", func(t *testing.T) {
		c := tvm.Comment(H)
		if c.Bits() != 648 || hexHash(c.Hash()) != str(t, f, "V1", "expectCommentHash") || tvm.EncodeBoC64(c) != str(t, f, "V1", "expectBoc") {
			t.Fatalf("comment %d bits %x", c.Bits(), c.Hash())
		}
		if h, ok := tvm.CommentHash(c); !ok || h != H {
			t.Fatal("comment read back")
		}
	})
	t.Run("V2", func(t *testing.T) {
		w, err := tvmBuild(t, f, wallet, tvmInputs(t, f))
		if err != nil {
			t.Fatal(err)
		}
		actions := w.Cell().Refs()[0]
		out := actions.Refs()[1]
		body := out.Refs()[0]
		if body.Bits() != 391 || hexHash(body.Hash()) != str(t, f, "V2", "expectTransferBodyHash") {
			t.Fatalf("transfer body %d bits %x", body.Bits(), body.Hash())
		}
		prefixed(t, hexHash(out.Hash()), get(t, f, "V2", "expectOutMessageHash"))
		prefixed(t, hexHash(actions.Hash()), get(t, f, "V2", "expectActionsHash"))
		if got := hexHash(w.RequestHash()); got != str(t, f, "V2", "expectRequestHash") {
			t.Fatalf("request hash %s", got)
		}
		sig, pay := tvmSign(t, f, wallet, w)
		prefixed(t, strings.TrimPrefix(sig, "0x"), get(t, f, "V2", "expectSignature"))
		if got := rootHash(t, str(t, pay, "payload", "settlementBoc")); got != str(t, f, "V2", "expectSettlementRootHash") {
			t.Fatalf("settlement root %s", got)
		}
		v2 = pay
	})
	t.Run("V2b", func(t *testing.T) {
		v := obj(t, f, "V2b")
		in := tvmInputs(t, f)
		in.Set("seqno", get(t, v, "seqno"))
		in.Set("stateInit", str(t, v, "stateInit"))
		if rootHash(t, str(t, v, "stateInit")) != str(t, v, "expectStateInitHash") {
			t.Fatal("state init hash")
		}
		w, err := tvmBuild(t, f, str(t, v, "wallet"), in)
		if err != nil {
			t.Fatal(err)
		}
		body := w.Cell().Refs()[0].Refs()[1].Refs()[0]
		if hexHash(body.Hash()) != str(t, v, "expectTransferBodyHash") || hexHash(w.RequestHash()) != str(t, v, "expectRequestHash") {
			t.Fatalf("body %x request %x", body.Hash(), w.RequestHash())
		}
		sig, pay := tvmSign(t, f, str(t, v, "wallet"), w)
		if sig != "0x"+str(t, v, "expectSignature") {
			t.Fatalf("signature %s", sig)
		}
		if got := rootHash(t, str(t, pay, "payload", "settlementBoc")); got != str(t, v, "expectSettlementRootHash") {
			t.Fatalf("settlement root %s", got)
		}
		for _, r := range get(t, v, "refusals").([]jsonv.Value) {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				in.Set("stateInit", str(t, r, "stateInit"))
				if _, err := tvmBuild(t, f, str(t, v, "wallet"), in); !isRefusal(err, str(t, r, "expect")) {
					t.Fatalf("build: %v", err)
				}
			})
		}
	})
	withBoc := func(accepted jsonv.Value, boc string) *jsonv.Object {
		return jsonv.Obj("x402Version", 2, "resource", jsonv.Clone(get(t, fixed, "resource")), "accepted", jsonv.Clone(accepted),
			"payload", jsonv.Obj("settlementBoc", boc, "asset", str(t, fixed, "placed", "asset")))
	}
	t.Run("V3", func(t *testing.T) {
		if v2 == nil {
			t.Fatal("V2 did not pay")
		}
		h, err := p.Bound(v2)
		if err != nil || h != str(t, f, "V3", "expectBound") {
			t.Fatalf("bound %s, %v", h, err)
		}
		ref, err := tvm.PaymentReference(v2)
		if err != nil || ref != tvmRef(t, obj(t, f, "V3", "expectReference")) {
			t.Fatalf("reference %+v, %v", ref, err)
		}
		for _, r := range get(t, f, "V3", "refusals").([]jsonv.Value) {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				if _, err := p.Bound(withBoc(get(t, r, "accepted"), str(t, r, "settlementBoc"))); !isRefusal(err, str(t, r, "expect")) {
					t.Fatalf("bound: %v", err)
				}
			})
		}
	})
	t.Run("V4", func(t *testing.T) {
		ref := tvmRef(t, obj(t, f, "V4", "ref"))
		for _, r := range get(t, f, "V4", "status").([]jsonv.Value) {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				if st := tvm.StatusOf(context.Background(), ref, readerOf(ref.Network, r.(*jsonv.Object))); !tvmStatusIs(st, obj(t, r, "expect")) {
					t.Fatalf("status %+v", st)
				}
			})
		}
		for _, r := range get(t, f, "V4", "recover").([]jsonv.Value) {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				rd := &tvmReader{network: ref.Network, tx: &tvm.Tx{Hash: str(t, r, "transaction"), InBody: unhex(t, str(t, r, "inBodyHex"))}}
				h, err := tvm.Recover(context.Background(), ref.Network, str(t, r, "transaction"), rd)
				if err != nil || h != str(t, r, "expect") || rd.calls != 1 {
					t.Fatalf("recover %s, %v (%d calls)", h, err, rd.calls)
				}
			})
		}
	})
	t.Run("plant", func(t *testing.T) {
		r := obj(t, f, "plant")
		ref := tvmRef(t, obj(t, f, "V4", "ref"))
		if st := tvm.StatusOf(context.Background(), ref, readerOf(ref.Network, r)); !tvmStatusIs(st, obj(t, r, "expect")) {
			t.Fatalf("status %+v", st)
		}
	})
	t.Run("agreedRefusals", func(t *testing.T) {
		for _, rv := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				want := str(t, r, "expect")
				var err error
				if o, has := r.Get("option"); has {
					if code := tvm.CheckOption(o.(*jsonv.Object)); code != want {
						t.Fatalf("check: %s", code)
					}
					return
				}
				switch {
				case has(r, "advertiseOption"):
					err = tvm.Place(tvmDoc(t, f, get(t, r, "advertiseOption")), 0, H)
				case has(r, "attachNanotons"):
					in := tvmInputs(t, f)
					in.Set("attachNanotons", str(t, r, "attachNanotons"))
					_, err = tvmBuild(t, f, wallet, in)
				case has(r, "wallet"):
					_, err = tvmBuild(t, f, str(t, r, "wallet"), tvmInputs(t, f))
				case has(r, "signatureBytes"):
					w, e := tvmBuild(t, f, wallet, tvmInputs(t, f))
					if e != nil {
						t.Fatal(e)
					}
					_, err = p.Complete(w, "0x"+strings.Repeat("11", 63), rails.Chosen{Ref: "ref"})
				case has(r, "settlementBoc"):
					_, err = p.Bound(withBoc(get(t, fixed, "placed"), str(t, r, "settlementBoc")))
				case want == "tvm/unreadable":
					rd := &tvmReader{network: "tvm:-239", fail: true}
					_, err = tvm.Recover(context.Background(), "tvm:-239", "tx-payer", rd)
				case want == "tvm/peer-missing":
					t.Skip("the row is about the TypeScript package's optional @ton/core peer; the Go rail's cell codec is built in, so no function can lack it")
				default:
					t.Fatalf("a row this test does not know: %s", jsonv.String(r))
				}
				if !isRefusal(err, want) {
					t.Fatalf("got %v, want %s", err, want)
				}
			})
		}
	})
	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		key, err := signer.TVMFromSeedHex(str(t, fixed, "seedHex"), wallet, "tvm:-239")
		if err != nil || key.Account() != str(t, in, "account") {
			t.Fatalf("account %v", err)
		}
		sg := &countingSigner{inner: key}
		now, _ := jsonv.AsSafeInt(get(t, in, "now"))
		_, err = s.gateFor(now, reg).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
		}
		// The control: the terms it advertises, paid once, V2's settlement.
		s.serveBytes([]byte("abc"))
		res, err := s.gateFor(now, reg).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("control: %v (%d calls)", err, sg.calls.Load())
		}
		if got := rootHash(t, str(t, res.Signed, "payload", "settlementBoc")); got != str(t, f, "V2", "expectSettlementRootHash") {
			t.Fatalf("control's settlement root %s", got)
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		b6 := obj(t, r, "input", "presented")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{Pairings: reg}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, r, "pairing"), b6)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, r, "pairing"), b6)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

func has(o *jsonv.Object, k string) bool { _, ok := o.Get(k); return ok }
