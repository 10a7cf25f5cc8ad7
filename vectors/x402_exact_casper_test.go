package vectors_test

// x402-exact-casper.json: fixed, C1–C4, plant, refusals and the buyer rows
// B2 and B6. C1's typed data and its five hashes are the pairing's, byte
// for byte; C2 assembles the file's placeholder key and signature (its
// form only, which is what the reference gates check: bound verifies no
// signature), and rails/casper's own tests complete a real signature.

import (
	"context"
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/casper"
	"github.com/termsgate/termsgate/signer"
)

// casperReader answers from a row's call: an object, null (the node knows
// no such transaction) or "reader-error".
type casperReader struct {
	network string
	call    jsonv.Value
	calls   int
}

func (r *casperReader) Network() string { return r.network }

func (r *casperReader) Transaction(_ context.Context, _ string) (*casper.Call, error) {
	r.calls++
	if r.call == "reader-error" {
		return nil, errors.New("the node did not answer")
	}
	o, ok := jsonv.AsObject(r.call)
	if !ok {
		return nil, nil
	}
	c := &casper.Call{PackageHash: algoStr(o, "packageHash"), EntryPoint: algoStr(o, "entryPoint")}
	if e, _ := o.Get("executed"); e == true {
		c.Executed = true
	}
	if h, ok := o.GetString("blockHeight"); ok {
		c.BlockHeight, _ = strconv.ParseUint(h, 10, 64)
		c.HasHeight = true
	}
	if e, ok := o.GetString("error"); ok {
		c.Error, c.HasError = e, true
	}
	args, _ := o.GetObject("args")
	c.From, c.To = algoStr(args, "from"), algoStr(args, "to")
	if v, ok := args.GetString("value"); ok {
		c.Value, _ = new(big.Int).SetString(v, 10)
	}
	if n, ok := args.GetString("nonce"); ok {
		c.Nonce, _ = hex.DecodeString(n)
	}
	return c, nil
}

func casperStatusIs(st casper.Status, want *jsonv.Object) bool {
	h := ""
	if st.State == "settled" {
		h = strconv.FormatUint(st.BlockHeight, 10)
	}
	wh, _ := want.GetString("blockHeight")
	return st.State == algoStr(want, "state") && st.Finality == algoStr(want, "finality") && st.Why == algoStr(want, "why") && h == wh
}

// casperMutate sets each dotted path of m in a clone of v; null deletes it.
func casperMutate(t *testing.T, v *jsonv.Object, m *jsonv.Object) *jsonv.Object {
	out := v.Clone()
	for _, mem := range m.Members() {
		parts := strings.Split(mem.Key, ".")
		o := out
		for _, p := range parts[:len(parts)-1] {
			next, ok := o.GetObject(p)
			if !ok {
				t.Fatalf("no %s in %s", p, mem.Key)
			}
			next = next.Clone()
			o.Set(p, next)
			o = next
		}
		last := parts[len(parts)-1]
		if mem.Value == nil {
			o.Delete(last)
		} else {
			o.Set(last, jsonv.Clone(mem.Value))
		}
	}
	return out
}

func TestX402ExactCasper(t *testing.T) {
	f := load(t, "x402-exact-casper.json")
	p := casper.Exact{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	required := func(o jsonv.Value) *jsonv.Object {
		return jsonv.Obj("x402Version", 2, "resource", jsonv.Clone(get(t, fixed, "resource")), "accepts", []jsonv.Value{jsonv.Clone(o)})
	}
	build := func(t *testing.T, o jsonv.Value, from string) (rails.Unsigned, error) {
		req := required(o)
		accepts, _ := jsonv.AsArray(get(t, req, "accepts"))
		return p.Build(jsonv.Obj("required", req, "accepted", accepts[0], "from", from, "now", now), []byte("abc"), H)
	}
	reg := rails.NewRegistry(p)

	t.Run("fixed", func(t *testing.T) {
		if code := casper.CheckOption(obj(t, fixed, "O")); code != "" {
			t.Fatalf("O refused: %s", code)
		}
		// Choose reads the account and the option the reading serves.
		read, err := p.Read(tronDoc(t, f, get(t, fixed, "O")))
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.Choose(read, "casper:casper-test:"+str(t, fixed, "from"), nil, now, "ref")
		if err != nil || str(t, c, "from") != str(t, fixed, "from") {
			t.Fatalf("choose %v, %v", c, err)
		}
		if _, err := p.Choose(read, "casper:casper:"+str(t, fixed, "from"), nil, now, "ref"); !isRefusal(err, "x402/no-payable-option") {
			t.Fatalf("another network's account: %v", err)
		}
	})
	var u rails.Unsigned
	t.Run("C1", func(t *testing.T) {
		c1 := obj(t, f, "C1")
		var err error
		u, err = build(t, get(t, fixed, "O"), str(t, fixed, "from"))
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		td := obj(t, req, "typedData")
		if !jsonv.Equal(get(t, td, "domain"), get(t, c1, "expectDomain")) || !jsonv.Equal(get(t, td, "message"), get(t, c1, "expectMessage")) {
			t.Fatalf("typed data %s", jsonv.String(td))
		}
		a, err := casper.RequestAuthorization(req)
		if err != nil {
			t.Fatal(err)
		}
		ds, sh, d := a.DomainSeparator(), a.StructHash(), a.Digest()
		for name, got := range map[string][]byte{"expectDomainTypeHash": casper.DomainTypeHash[:], "expectDomainSeparator": ds[:],
			"expectTypeHash": casper.TransferTypeHash[:], "expectStructHash": sh[:], "expectDigest": d[:]} {
			if "0x"+hex.EncodeToString(got) != str(t, c1, name) {
				t.Errorf("%s = %x", name, got)
			}
		}
		if str(t, req, "digest") != str(t, c1, "expectDigest") {
			t.Fatalf("request digest %s", str(t, req, "digest"))
		}
		g, err := p.Summarize(req)
		if err != nil || g.Amount.String() != "7500000000" || g.Payer != str(t, fixed, "from") || g.Payee != str(t, fixed, "O", "payTo") ||
			g.PayableUntil.Unix() != 1790000060 || !g.PayableFrom.IsZero() || g.Asset != str(t, fixed, "O", "asset") || g.Network != "casper:casper-test" {
			t.Fatalf("grant %+v, %v", g, err)
		}
		// A digest that is not the typed data's is no request to sign.
		bad := req.Clone()
		bad.Set("digest", "0x"+strings.Repeat("00", 32))
		if _, err := p.Summarize(bad); err == nil {
			t.Fatal("summarized a request whose digest is not its typed data's")
		}
	})
	c2 := obj(t, f, "C2")
	var payment *jsonv.Object
	t.Run("C2", func(t *testing.T) {
		var err error
		payment, err = casper.Assemble(u, get(t, fixed, "publicKey"), get(t, fixed, "signature"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonv.String(payment), jsonv.String(get(t, c2, "expectPayload")); got != want {
			t.Fatalf("payload\n%s\nwant\n%s", got, want)
		}
		if h, err := p.Bound(payment); err != nil || h != str(t, c2, "expectBound") {
			t.Fatalf("bound %s, %v", h, err)
		}
		prefixed := casperMutate(t, payment, jsonv.Obj("payload.authorization.nonce", "0x"+str(t, payment, "payload", "authorization", "nonce")))
		if h, err := p.Bound(prefixed); err != nil || h != str(t, c2, "boundOfPrefixedNonce") {
			t.Fatalf("bound of a prefixed nonce %s, %v", h, err)
		}
		upper := casperMutate(t, payment, jsonv.Obj("payload.authorization.nonce", strings.ToUpper(str(t, payment, "payload", "authorization", "nonce"))))
		if h, err := p.Bound(upper); err != nil || h != str(t, c2, "boundOfUpperCaseNonce") {
			t.Fatalf("bound of an upper-case nonce %s, %v", h, err)
		}
		tm := obj(t, c2, "tagMismatch")
		if _, err := casper.Assemble(u, get(t, tm, "publicKey"), get(t, tm, "signature")); !isRefusal(err, str(t, tm, "expect", "code")) {
			t.Fatalf("tag mismatch: %v", err)
		}
		// Complete checks what Assemble does not: the placeholders are no
		// key of the payer's.
		if _, err := p.Complete(u, jsonv.Obj("publicKey", get(t, fixed, "publicKey"), "signature", get(t, fixed, "signature")), rails.Chosen{}); !isRefusal(err, casper.CodeKeyNotPayer) {
			t.Fatalf("complete with the placeholders: %v", err)
		}
	})
	t.Run("C3", func(t *testing.T) {
		w := obj(t, f, "C3", "expect")
		ref, err := casper.PaymentReference(payment)
		if err != nil || ref.Network != str(t, w, "network") || ref.Asset != str(t, w, "asset") ||
			"0x"+hex.EncodeToString(ref.IDDigest[:]) != str(t, w, "idDigest") || strconv.FormatInt(ref.SettleBy, 10) != jsonv.String(get(t, w, "settleBy")) {
			t.Fatalf("reference %+v, %v", ref, err)
		}
		in, err := p.Inspect(payment)
		if err != nil || in.H != str(t, c2, "expectBound") || in.Grant.Payer != str(t, fixed, "from") || in.Grant.Amount.String() != "7500000000" {
			t.Fatalf("inspect %+v, %v", in, err)
		}
	})
	c4 := obj(t, f, "C4")
	rj := obj(t, c4, "ref")
	idd := unhex(t, strings.TrimPrefix(str(t, rj, "idDigest"), "0x"))
	settleBy, _ := jsonv.AsSafeInt(get(t, rj, "settleBy"))
	ref := casper.Reference{Network: str(t, rj, "network"), Transaction: str(t, rj, "transaction"), Asset: str(t, rj, "asset"),
		IDDigest: [32]byte(idd), SettleBy: settleBy, H: mustHash(t, str(t, rj, "h"))}
	network := str(t, c4, "reader", "network")
	t.Run("C4", func(t *testing.T) {
		if str(t, c4, "transaction") != ref.Transaction {
			t.Fatal("the row's transaction is not its ref's")
		}
		for _, rv := range get(t, c4, "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				call := get(t, r, "call")
				rd := &casperReader{network: network, call: call}
				if st := casper.PaymentStatus(context.Background(), ref, rd); !casperStatusIs(st, obj(t, r, "expectStatus")) || rd.calls != 1 {
					t.Fatalf("status %+v (%d reads)", st, rd.calls)
				}
				rd = &casperReader{network: network, call: call}
				h, err := casper.Recover(context.Background(), ref.Network, ref.Asset, ref.Transaction, rd)
				if want, isHash := get(t, r, "expectRecover").(string); isHash {
					if err != nil || h.String() != want {
						t.Fatalf("recover %s, %v", h, err)
					}
				} else if !isRefusal(err, str(t, r, "expectRecover", "code")) {
					t.Fatalf("recover: %v", err)
				}
			})
		}
		wr := obj(t, c4, "wrongReader")
		t.Run("wrongReader", func(t *testing.T) {
			rows := get(t, c4, "rows").([]jsonv.Value)
			rd := &casperReader{network: str(t, wr, "network"), call: get(t, rows[0], "call")}
			if st := casper.PaymentStatus(context.Background(), ref, rd); !casperStatusIs(st, obj(t, wr, "expectStatus")) || rd.calls != 0 {
				t.Fatalf("status %+v (%d reads)", st, rd.calls)
			}
			if _, err := casper.Recover(context.Background(), ref.Network, ref.Asset, ref.Transaction, rd); !isRefusal(err, str(t, wr, "expectRecover", "code")) || rd.calls != 0 {
				t.Fatalf("recover: %v (%d reads)", err, rd.calls)
			}
		})
	})
	t.Run("plant", func(t *testing.T) {
		pl := obj(t, f, "plant")
		rd := &casperReader{network: network, call: get(t, pl, "call")}
		if st := casper.PaymentStatus(context.Background(), ref, rd); !casperStatusIs(st, obj(t, pl, "expectStatus")) {
			t.Fatalf("status %+v", st)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		for _, rv := range get(t, f, "refusals", "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			want := str(t, r, "expect", "code")
			t.Run(str(t, r, "case"), func(t *testing.T) {
				var err error
				switch fn := str(t, r, "fn"); fn {
				case "bound":
					_, err = p.Bound(casperMutate(t, payment, obj(t, r, "mutate")))
				case "reference":
					_, err = casper.PaymentReference(casperMutate(t, payment, obj(t, r, "mutate")))
				case "build":
					o, from := obj(t, fixed, "O"), str(t, fixed, "from")
					if r.Has("optionMutate") {
						o = casperMutate(t, o, obj(t, r, "optionMutate"))
					}
					if r.Has("from") {
						from = str(t, r, "from")
					}
					_, err = build(t, o, from)
				case "complete":
					_, err = casper.Assemble(u, get(t, r, "publicKey"), get(t, r, "signature"))
				default:
					t.Fatalf("a row this test does not know: %s", fn)
				}
				if !isRefusal(err, want) {
					t.Fatalf("%v, want %s", err, want)
				}
			})
		}
	})
	rows := get(t, f, "buyer", "rows")
	t.Run("B2", func(t *testing.T) {
		r := row(t, rows, "B2")
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		sg := &countingSigner{inner: accountOnly(str(t, in, "account"))}
		n, _ := jsonv.AsSafeInt(get(t, in, "now"))
		_, err := s.gateFor(n, reg).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, nil)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if want, _ := jsonv.AsSafeInt(get(t, r, "expect", "signCalls")); sg.calls.Load() != want || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
		}
		// The control: the terms it advertises, paid once by the published
		// Casper development key (B2's payer's key is no one's here), and
		// the payment's nonce is H.
		s.serveBytes([]byte("abc"))
		dev, err := signer.CasperFromSeed(signer.CasperDevSeed, "casper:casper-test", nil)
		if err != nil {
			t.Fatal(err)
		}
		sg = &countingSigner{inner: dev}
		res, err := s.gateFor(n, reg).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, nil)
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("control: %v (%d calls)", err, sg.calls.Load())
		}
		if h, err := p.Bound(res.Signed); err != nil || h != str(t, r, "advertised") {
			t.Fatalf("control's bound %s, %v", h, err)
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, rows, "B6")
		presented := get(t, r, "input", "presented")
		if !jsonv.Equal(presented, get(t, c2, "expectPayload")) {
			t.Fatal("B6's payment is not C2's")
		}
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{Pairings: reg}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, r, "pairing"), presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, r, "pairing"), presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

// accountOnly is a wallet that names an account and signs nothing: B2's
// payer is x402's Casper example, whose key no one here holds, and B2 must
// decline before any signature is asked for.
type accountOnly string

func (a accountOnly) Account() string { return string(a) }

func (a accountOnly) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	return nil, errors.New("this wallet holds no key")
}
