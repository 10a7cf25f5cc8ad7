package vectors_test

// x402-exact-tron-lcp-trc20-memo.json: fixed, V1–V4, plant, agreedRefusals
// and the buyer rows B2 and B6; V2 is built and signed by the published
// Anvil key through the pairing and the Tron signer, byte for byte.

import (
	"context"
	"encoding/hex"
	"errors"
	"strconv"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/tron"
	"github.com/termsgate/termsgate/signer"
)

func tronDoc(t testing.TB, f *jsonv.Object, option jsonv.Value) *jsonv.Object {
	fixed := obj(t, f, "fixed")
	return jsonv.Obj("x402Version", 2, "resource", jsonv.Clone(get(t, fixed, "resource")),
		"accepts", []jsonv.Value{jsonv.Clone(option)},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info",
			jsonv.Obj("type", "sha256", "value", str(t, fixed, "H"), "legalContextUrl", str(t, fixed, "link")),
			"schema", jsonv.Obj())))
}

// tronChoice is V2's choice: fixed's option, payer, refBlock, now (ms, so
// the gate's seconds are now/1000) and feeLimit, with changes applied.
func tronChoice(t testing.TB, f *jsonv.Object, payer string, inputs *jsonv.Object) (jsonv.Value, error) {
	fixed := obj(t, f, "fixed")
	read, err := tron.Exact{}.Read(tronDoc(t, f, get(t, fixed, "O")))
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := strconv.ParseInt(str(t, fixed, "now"), 10, 64)
	return tron.Exact{}.Choose(read, "tron:728126428:"+payer, inputs, ms/1000, "ref")
}

func tronInputs(t testing.TB, f *jsonv.Object) *jsonv.Object {
	fixed := obj(t, f, "fixed")
	return jsonv.Obj("refBlock", jsonv.Clone(get(t, fixed, "refBlock")), "feeLimit", str(t, fixed, "feeLimit"))
}

// tronReader answers from a status row's solid, head and solidHead.
type tronReader struct {
	network          string
	solid, head, top jsonv.Value
	raw              jsonv.Value
	calls            int
}

func (r *tronReader) Network() string { return r.network }

func (r *tronReader) Info(_ context.Context, _ string, solid bool) (*tron.Info, error) {
	r.calls++
	v := r.head
	if solid {
		v = r.solid
	}
	if v == "reader-error" {
		return nil, errors.New("the node did not answer")
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, nil
	}
	n, _ := strconv.ParseUint(algoStr(o, "blockNumber"), 10, 64)
	info := &tron.Info{BlockNumber: n, Result: algoStr(o, "result")}
	logs, _ := o.Get("logs")
	for _, lv := range logs.([]jsonv.Value) {
		lo := lv.(*jsonv.Object)
		l := tron.Log{Address: algoStr(lo, "address")}
		ts, _ := lo.Get("topics")
		for _, tp := range ts.([]jsonv.Value) {
			l.Topics = append(l.Topics, tp.(string))
		}
		info.Logs = append(info.Logs, l)
	}
	return info, nil
}

func (r *tronReader) RawData(context.Context, string) (string, error) {
	r.calls++
	if r.raw == "reader-error" {
		return "", errors.New("the node did not answer")
	}
	s, _ := r.raw.(string)
	return s, nil
}

func (r *tronReader) SolidHead(context.Context) (uint64, error) {
	r.calls++
	o, ok := jsonv.AsObject(r.top)
	if !ok {
		return 0, errors.New("no solid head")
	}
	return strconv.ParseUint(algoStr(o, "timestamp"), 10, 64)
}

func tronStatusIs(st tron.Status, want *jsonv.Object) bool {
	n, _ := strconv.ParseUint(algoStr(want, "blockNumber"), 10, 64)
	return st.State == algoStr(want, "state") && st.Finality == algoStr(want, "finality") && st.Why == algoStr(want, "why") &&
		st.Result == algoStr(want, "result") && st.BlockNumber == n
}

func TestX402ExactTronLCPTRC20Memo(t *testing.T) {
	f := load(t, "x402-exact-tron-lcp-trc20-memo.json")
	p := tron.Exact{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	b6 := obj(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented")
	withTx := func(tx jsonv.Value) *jsonv.Object {
		pay := b6.Clone()
		pay.Set("payload", jsonv.Obj("transaction", jsonv.Clone(tx)))
		return pay
	}

	t.Run("fixed", func(t *testing.T) {
		s, err := signer.TronFromHex(str(t, fixed, "payerKey"), "tron:728126428")
		if err != nil || s.Address() != str(t, fixed, "payer") {
			t.Fatalf("payer %v, %v", s, err)
		}
		for addr, want := range map[string]string{"payer": "payerBytes", "asset": "assetBytes", "payTo": "payToBytes"} {
			var text string
			if addr == "payer" {
				text = str(t, fixed, addr)
			} else {
				text = str(t, fixed, "O", addr)
			}
			a, ok := tron.ParseAddress(text)
			if !ok || hex.EncodeToString(a[:]) != str(t, fixed, want) || a.String() != text {
				t.Fatalf("%s: %x", addr, a)
			}
		}
		if code := tron.CheckOption(obj(t, fixed, "O")); code != "" {
			t.Fatalf("O refused: %s", code)
		}
	})
	t.Run("V1", func(t *testing.T) {
		v1 := obj(t, f, "V1")
		raw := unhex(t, str(t, v1, "rawHex"))
		r, err := tron.DecodeRaw(raw)
		if err != nil {
			t.Fatal(err)
		}
		if id := tron.TxID(raw); "0x"+hex.EncodeToString(id[:]) != str(t, v1, "expectTxid") {
			t.Fatalf("txid %x", id)
		}
		d := obj(t, v1, "expectDecoded")
		u := func(n uint64) string { return strconv.FormatUint(n, 10) }
		for k, got := range map[string]string{"refBlockBytes": hexOf(r.RefBlockBytes), "refBlockHash": hexOf(r.RefBlockHash),
			"expiration": u(r.Expiration), "data": hexOf(r.Data), "owner": hexOf(r.Owner), "contractAddress": hexOf(r.ContractAddress),
			"callData": hexOf(r.CallData), "timestamp": u(r.Timestamp), "feeLimit": u(r.FeeLimit)} {
			if got != str(t, d, k) {
				t.Fatalf("%s = %s, want %s", k, got, str(t, d, k))
			}
		}
		if string(r.Data) != str(t, v1, "expectDataUtf8") {
			t.Fatalf("data %q", r.Data)
		}
		tx := hex.EncodeToString(tron.EncodeTransaction(raw, unhex(t, str(t, v1, "signatureForPayload"))))
		if _, err := p.Bound(withTx(tx)); !isRefusal(err, str(t, v1, "expectBound", "code")) {
			t.Fatalf("bound: %v", err)
		}
	})
	t.Run("V2", func(t *testing.T) {
		v2 := obj(t, f, "V2")
		choice, err := tronChoice(t, f, str(t, fixed, "payer"), tronInputs(t, f))
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(choice, []byte("abc"), H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		raw := str(t, req, "rawData")[2:]
		if raw != str(t, v2, "expectRawHex") || str(t, req, "txid") != str(t, v2, "expectTxid") {
			t.Fatalf("raw %s\ntxid %s", raw, str(t, req, "txid"))
		}
		r, _ := tron.DecodeRaw(unhex(t, raw))
		if hexOf(r.RefBlockBytes) != str(t, v2, "expectRefBlockBytes") || hexOf(r.RefBlockHash) != str(t, v2, "expectRefBlockHash") {
			t.Fatalf("ref block %x %x", r.RefBlockBytes, r.RefBlockHash)
		}
		s, _ := signer.TronFromHex(str(t, fixed, "payerKey"), "tron:728126428")
		sg := &countingSigner{inner: s}
		answer, err := sg.Sign(context.Background(), req)
		if err != nil || answer != "0x"+str(t, v2, "expectSignature") {
			t.Fatalf("signature %v, %v", answer, err)
		}
		if a, ok := tron.Recover([32]byte(unhex(t, str(t, req, "txid")[2:])), unhex(t, str(t, v2, "expectSignature"))); !ok || a.String() != str(t, v2, "expectRecoversTo") {
			t.Fatalf("recovers to %s", a)
		}
		c, err := p.Complete(u, answer, rails.Chosen{Ref: "ref"})
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, c.Signed, "payload", "transaction"); got != str(t, v2, "expectTransactionHex") {
			t.Fatalf("transaction %s", got)
		}
		// V2's document carries no extensions (the test's advertises H, as
		// Read asks): the payment is the file's with the document's
		// extensions echoed after it.
		wantPayload := obj(t, v2, "expectPayload").Clone()
		wantPayload.Set("extensions", jsonv.Clone(get(t, c.Signed, "extensions")))
		if string(jsonv.Marshal(c.Signed)) != string(jsonv.Marshal(wantPayload)) {
			t.Fatalf("payload %s", jsonv.Marshal(c.Signed))
		}
		g, err := p.Summarize(req)
		if err != nil || g.Asset != str(t, fixed, "O", "asset") || g.Amount.String() != "10000" || g.Decimals != 6 ||
			g.Payer != str(t, fixed, "payer") || g.Payee != str(t, fixed, "O", "payTo") || g.PayableUntil.UnixMilli() != 1790300724000 {
			t.Fatalf("grant %+v, %v", g, err)
		}
		// Another key's signature, and a v of 2.
		other, _ := signer.TronFromHex("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", "tron:728126428")
		sig, _ := other.Sign(context.Background(), withOwner(t, req, other.Address()))
		if _, err := p.Complete(u, sig, rails.Chosen{}); !isRefusal(err, tron.CodeSignatureInvalid) {
			t.Fatalf("another key: %v", err)
		}
	})
	t.Run("V3", func(t *testing.T) {
		v3 := obj(t, f, "V3")
		if h, err := p.Bound(b6); err != nil || h != str(t, v3, "expectBound") {
			t.Fatalf("bound %q, %v", h, err)
		}
		ref, err := tron.PaymentReference(b6)
		want := obj(t, v3, "expectReference")
		if err != nil || ref.Network != str(t, want, "network") || ref.TxID != str(t, want, "txid") || ref.Asset != str(t, want, "asset") ||
			strconv.FormatUint(ref.Expiration, 10) != str(t, want, "expiration") {
			t.Fatalf("reference %+v, %v", ref, err)
		}
		for _, rv := range get(t, v3, "refusals").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				if _, err := p.Bound(withTx(get(t, r, "transaction"))); !isRefusal(err, str(t, r, "expect")) {
					t.Fatalf("bound: %v, want %s", err, str(t, r, "expect"))
				}
			})
		}
	})
	v4 := obj(t, f, "V4")
	rv4 := obj(t, v4, "ref")
	exp, _ := strconv.ParseUint(str(t, rv4, "expiration"), 10, 64)
	ref := tron.Reference{Network: str(t, rv4, "network"), TxID: str(t, rv4, "txid"), Asset: str(t, rv4, "asset"), Expiration: exp}
	t.Run("V4", func(t *testing.T) {
		for _, sv := range get(t, v4, "status").([]jsonv.Value) {
			r := sv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				rd := &tronReader{network: ref.Network, solid: get(t, r, "solid"), head: get(t, r, "head"), top: get(t, r, "solidHead")}
				if st := tron.PaymentStatus(context.Background(), ref, rd); !tronStatusIs(st, obj(t, r, "expect")) || rd.calls > 3 {
					t.Fatalf("status %+v (%d reads), want %s", st, rd.calls, jsonv.String(get(t, r, "expect")))
				}
			})
		}
		for _, rcv := range get(t, v4, "recover").([]jsonv.Value) {
			r := rcv.(*jsonv.Object)
			t.Run("recover/"+str(t, r, "case"), func(t *testing.T) {
				rd := &tronReader{network: ref.Network, raw: get(t, r, "rawDataHex")}
				h, err := tron.RecoverH(context.Background(), ref.Network, ref.TxID, rd)
				if e, ok := get(t, r, "expect").(string); ok {
					if err != nil || h.String() != e {
						t.Fatalf("recover %v, %v", h, err)
					}
				} else if !isRefusal(err, str(t, r, "expect", "code")) {
					t.Fatalf("recover: %v", err)
				}
				if rd.calls != 1 {
					t.Fatalf("%d reads", rd.calls)
				}
			})
		}
		other := &tronReader{network: "tron:3448148188"}
		if st := tron.PaymentStatus(context.Background(), ref, other); st.Why != "unreadable" || other.calls != 0 {
			t.Fatalf("another network's reader: %+v", st)
		}
	})
	t.Run("plant", func(t *testing.T) {
		pl := obj(t, f, "plant")
		rd := &tronReader{network: ref.Network, solid: get(t, pl, "solid")}
		if st := tron.PaymentStatus(context.Background(), ref, rd); !tronStatusIs(st, obj(t, pl, "expect")) {
			t.Fatalf("status %+v", st)
		}
	})
	t.Run("agreedRefusals", func(t *testing.T) {
		for _, av := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			r := av.(*jsonv.Object)
			want := str(t, r, "expect")
			t.Run(str(t, r, "case"), func(t *testing.T) {
				switch {
				case r.Has("option"):
					if code := tron.CheckOption(obj(t, r, "option")); code != want {
						t.Fatalf("option: %q", code)
					}
				case r.Has("payer"):
					if _, err := tronChoice(t, f, str(t, r, "payer"), tronInputs(t, f)); !isRefusal(err, want) {
						t.Fatalf("choose: %v", err)
					}
				case r.Has("feeLimit"):
					for _, fl := range get(t, r, "feeLimit").([]jsonv.Value) {
						in := tronInputs(t, f)
						in.Set("feeLimit", fl)
						if _, err := tronChoice(t, f, str(t, fixed, "payer"), in); !isRefusal(err, want) {
							t.Fatalf("feeLimit %v: %v", fl, err)
						}
					}
				case r.Has("refBlockId"):
					in := tronInputs(t, f)
					obj(t, in, "refBlock").Set("id", str(t, r, "refBlockId"))
					if _, err := tronChoice(t, f, str(t, fixed, "payer"), in); !isRefusal(err, want) {
						t.Fatalf("refBlock: %v", err)
					}
					// and a now below 1
					read, _ := p.Read(tronDoc(t, f, get(t, fixed, "O")))
					if _, err := p.Choose(read, "tron:728126428:"+str(t, fixed, "payer"), tronInputs(t, f), 0, "ref"); !isRefusal(err, want) {
						t.Fatalf("now 0: %v", err)
					}
				case r.Has("signatureV"):
					choice, _ := tronChoice(t, f, str(t, fixed, "payer"), tronInputs(t, f))
					u, _ := p.Build(choice, []byte("abc"), H)
					sig := unhex(t, str(t, f, "V2", "expectSignature"))
					v, _ := jsonv.AsSafeInt(get(t, r, "signatureV"))
					sig[64] = byte(v)
					if _, err := p.Complete(u, "0x"+hex.EncodeToString(sig), rails.Chosen{}); !isRefusal(err, want) {
						t.Fatalf("v %d: %v", v, err)
					}
					if _, err := p.Complete(u, "0x"+hex.EncodeToString(sig[:64]), rails.Chosen{}); !isRefusal(err, want) {
						t.Fatalf("64 bytes: %v", err)
					}
				case r.Has("transaction"):
					if _, err := p.Bound(withTx(get(t, r, "transaction"))); !isRefusal(err, want) {
						t.Fatalf("bound: %v", err)
					}
				case want == "x402/payload-malformed":
					if _, err := p.Bound(withTx(jsonv.Number(1))); !isRefusal(err, want) {
						t.Fatalf("bound: %v", err)
					}
				case want == "tron/unreadable":
					rd := &tronReader{network: ref.Network, raw: "reader-error"}
					if _, err := tron.RecoverH(context.Background(), ref.Network, ref.TxID, rd); !isRefusal(err, want) {
						t.Fatalf("recover: %v", err)
					}
				case want == "tron/tx-malformed":
					rd := &tronReader{network: ref.Network, raw: str(t, f, "V1", "rawHex")}
					if _, err := tron.RecoverH(context.Background(), ref.Network, ref.TxID, rd); !isRefusal(err, want) {
						t.Fatalf("recover: %v", err)
					}
				default:
					t.Fatalf("a row this test does not know: %s", jsonv.String(r))
				}
			})
		}
	})
	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		key, _ := signer.TronFromHex(str(t, fixed, "payerKey"), "tron:728126428")
		if key.Account() != str(t, in, "account") {
			t.Fatalf("account %s", key.Account())
		}
		sg := &countingSigner{inner: key}
		now, _ := strconv.ParseInt(str(t, fixed, "now"), 10, 64)
		_, err := s.gateFor(now/1000, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
		}
		// The control: the terms it advertises, paid once, V2's transaction.
		s.serveBytes([]byte("abc"))
		res, err := s.gateFor(now/1000, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("control: %v (%d calls)", err, sg.calls.Load())
		}
		if got := str(t, res.Signed, "payload", "transaction"); got != str(t, f, "V2", "expectTransactionHex") {
			t.Fatalf("control's transaction %s", got)
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

// withOwner is req's raw data with another owner, rehashed: what another
// key would be asked to sign.
func withOwner(t testing.TB, req rails.Request, owner string) rails.Request {
	r, err := tron.DecodeRaw(unhex(t, str(t, req, "rawData")[2:]))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tron.ParseAddress(owner)
	r.Owner = a[:]
	raw := r.Encode()
	id := tron.TxID(raw)
	return jsonv.Obj("kind", tron.KindTxID, "network", str(t, req, "network"), "txid", "0x"+hex.EncodeToString(id[:]), "rawData", "0x"+hex.EncodeToString(raw))
}
