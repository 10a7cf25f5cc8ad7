package vectors_test

// x402-exact-starknet.json: fixed, S1–S5, plant, agreedRefusals and the
// buyer rows B2 and B6. S3's typed data and S4's payment are built through
// the pairing from B2's document and compared member for member with B6's
// presented payment, which is the file's S4 payment.

import (
	"context"
	"encoding/hex"
	"errors"
	"strconv"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/starknet"
)

func snFelt(t testing.TB, s string) starknet.Felt {
	t.Helper()
	f, ok := starknet.ParseFelt(s)
	if !ok {
		t.Fatalf("felt %q", s)
	}
	return f
}

func snFelts(t testing.TB, v jsonv.Value) []starknet.Felt {
	t.Helper()
	list, _ := jsonv.AsArray(v)
	out := make([]starknet.Felt, len(list))
	for i, e := range list {
		s, _ := e.(string)
		out[i] = snFelt(t, s)
	}
	return out
}

// snReceipt reads a row's receipt fixture (the file's model of
// starknet_getTransactionReceipt).
func snReceipt(t testing.TB, v jsonv.Value) *starknet.Receipt {
	t.Helper()
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil
	}
	r := &starknet.Receipt{Finality: str(t, o, "finality"), Execution: str(t, o, "execution")}
	if b, ok := o.GetString("blockNumber"); ok {
		n, err := strconv.ParseUint(b, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		r.BlockNumber = &n
	}
	evs, _ := jsonv.AsArray(get(t, o, "events"))
	for _, ev := range evs {
		e, _ := jsonv.AsObject(ev)
		r.Events = append(r.Events, starknet.Event{From: snFelt(t, str(t, e, "fromAddress")), Keys: snFelts(t, get(t, e, "keys")), Data: snFelts(t, get(t, e, "data"))})
	}
	return r
}

// snTrace reads a row's trace fixture (the file's model of
// starknet_traceTransaction's execute_invocation).
func snTrace(t testing.TB, v jsonv.Value) *starknet.Invocation {
	t.Helper()
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil
	}
	inv := &starknet.Invocation{Contract: snFelt(t, str(t, o, "contract")), Selector: snFelt(t, str(t, o, "selector")),
		Calldata: snFelts(t, get(t, o, "calldata")), Reverted: get(t, o, "reverted") == true}
	calls, _ := jsonv.AsArray(get(t, o, "calls"))
	for _, c := range calls {
		inv.Calls = append(inv.Calls, snTrace(t, c))
	}
	return inv
}

// snReader answers a status row from its fixtures.
type snReader struct {
	network string
	receipt *starknet.Receipt
	trace   *starknet.Invocation
	fail    bool
	calls   int
}

func (r *snReader) Network() string { return r.network }

func (r *snReader) Receipt(context.Context, starknet.Felt) (*starknet.Receipt, error) {
	r.calls++
	if r.fail {
		return nil, errors.New("the node did not answer")
	}
	return r.receipt, nil
}

func (r *snReader) Trace(context.Context, starknet.Felt) (*starknet.Invocation, error) {
	r.calls++
	if r.fail {
		return nil, errors.New("the node did not answer")
	}
	return r.trace, nil
}

func snRefJSON(r starknet.Reference) *jsonv.Object {
	o := jsonv.Obj("network", r.Network)
	if r.Transaction != nil {
		o.Set("transaction", r.Transaction.String())
	}
	o.Set("from", r.From.String())
	o.Set("asset", r.Asset.String())
	o.Set("nonce", r.Nonce.String())
	o.Set("idDigest", "0x"+hex.EncodeToString(r.IDDigest[:]))
	o.Set("settleBy", jsonv.Number(r.SettleBy))
	return o
}

func snRef(t testing.TB, o *jsonv.Object) starknet.Reference {
	t.Helper()
	r := starknet.Reference{Network: str(t, o, "network"), From: snFelt(t, str(t, o, "from")), Asset: snFelt(t, str(t, o, "asset")),
		Nonce: snFelt(t, str(t, o, "nonce")), IDDigest: [32]byte(unhex(t, str(t, o, "idDigest")[2:]))}
	if tx, ok := o.GetString("transaction"); ok {
		f := snFelt(t, tx)
		r.Transaction = &f
	}
	n, _ := jsonv.AsSafeInt(get(t, o, "settleBy"))
	r.SettleBy = n
	return r
}

func TestX402ExactStarknet(t *testing.T) {
	f := load(t, "x402-exact-starknet.json")
	p := starknet.Exact{}
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	accepted := obj(t, fixed, "O")
	from := str(t, fixed, "from")
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	b2 := row(t, get(t, f, "buyer", "rows"), "B2")
	b6 := row(t, get(t, f, "buyer", "rows"), "B6")
	doc := obj(t, b2, "input", "doc")
	presented := obj(t, b6, "input", "presented")
	s3 := obj(t, f, "S3")

	// build is the pairing's build for account over B2's document.
	build := func(t *testing.T, account string) (rails.Unsigned, error) {
		t.Helper()
		read, err := p.Read(doc)
		if err != nil {
			t.Fatal(err)
		}
		choice, err := p.Choose(read, "starknet:SN_SEPOLIA:"+account, nil, now, "")
		if err != nil {
			t.Fatal(err)
		}
		return p.Build(choice, []byte("abc"), H)
	}
	built := func(t *testing.T) rails.Unsigned {
		u, err := build(t, from)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	signature := func() *jsonv.Object { return jsonv.Obj("signature", jsonv.Clone(get(t, s3, "signature"))) }

	t.Run("fixed", func(t *testing.T) {
		if c := starknet.CheckOption(accepted); c != "" {
			t.Fatalf("O: %s", c)
		}
		read, err := p.Read(doc)
		if err != nil || read.H != H.String() || read.Link != str(t, fixed, "link") || len(read.Options) != 1 {
			t.Fatalf("read %+v, %v", read, err)
		}
		if jsonv.String(get(t, doc, "resource")) != jsonv.String(get(t, fixed, "resource")) {
			t.Fatal("B2's document is not the fixed resource's")
		}
	})

	t.Run("S1", func(t *testing.T) {
		s1 := obj(t, f, "S1")
		k := starknet.SnKeccak([]byte("transfer"))
		// The file writes it padded to 64 digits.
		if starknet.SelectorTransfer.Padded() != str(t, s1, "expectSelectorTransfer") || k != starknet.SelectorTransfer {
			t.Fatalf("transfer %s", starknet.SelectorTransfer)
		}
		// keccakTransfer is the unmasked Keccak-256: its low 250 bits are
		// the selector.
		full := snFeltUnreduced(t, str(t, s1, "keccakTransfer"))
		if starknet.Nonce(full) != starknet.SelectorTransfer {
			t.Fatalf("keccak %s masked is not the selector", str(t, s1, "keccakTransfer"))
		}
		if starknet.SelectorExecuteFromOutsideV2.String() != str(t, s1, "expectSelectorExecuteFromOutsideV2") ||
			starknet.SelectorTransferEvent.String() != str(t, s1, "expectSelectorTransferEvent") {
			t.Fatalf("selectors %s %s", starknet.SelectorExecuteFromOutsideV2, starknet.SelectorTransferEvent)
		}
	})

	t.Run("S2", func(t *testing.T) {
		s2 := obj(t, f, "S2")
		if n := starknet.Nonce(H); n.String() != str(t, s2, "expectNonce") {
			t.Fatalf("nonce %s", n)
		}
		up, ok := starknet.ParseHash(str(t, s2, "upperCaseH"))
		if !ok || up != H || starknet.Nonce(up).String() != str(t, s2, "expectNonce") {
			t.Fatalf("upper-case H %v", ok)
		}
		req, _ := p.Request(built(t))
		if got := str(t, req, "typedData", "message", "Nonce"); got != str(t, s2, "expectNonce") {
			t.Fatalf("built nonce %s", got)
		}
	})

	t.Run("S3", func(t *testing.T) {
		req, err := p.Request(built(t))
		if err != nil {
			t.Fatal(err)
		}
		r, err := starknet.ReadRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		m := r.Message
		if strconv.FormatUint(m.ExecuteBefore[0], 10) != str(t, s3, "expectExecuteBefore") ||
			str(t, req, "typedData", "message", "Execute Before") != str(t, s3, "expectExecuteBefore") {
			t.Fatalf("execute before %v", m.ExecuteBefore)
		}
		if r.ChainID.String() != str(t, s3, "expectChainId") || str(t, req, "typedData", "domain", "chainId") != str(t, s3, "expectChainId") {
			t.Fatalf("chain id %s", r.ChainID)
		}
		if starknet.TypeHashOutsideExecution.String() != str(t, s3, "expectTypeHashOutsideExecution") ||
			starknet.TypeHashCall.String() != str(t, s3, "expectTypeHashCall") {
			t.Fatalf("type hashes %s %s", starknet.TypeHashOutsideExecution, starknet.TypeHashCall)
		}
		if h := m.MessageHash(r.ChainID, r.Account); h.String() != str(t, s3, "expectMessageHash") {
			t.Fatalf("message hash %s", h)
		}
		calls, _ := jsonv.AsArray(get(t, req, "typedData", "message", "Calls"))
		if len(calls) != 1 {
			t.Fatalf("%d calls", len(calls))
		}
		if got := jsonv.String(get(t, calls[0], "Calldata")); got != jsonv.String(get(t, s3, "expectCalldata")) {
			t.Fatalf("calldata %s", got)
		}
		// The typed data is B6's, member for member and in order.
		if got, want := jsonv.String(get(t, req, "typedData")), jsonv.String(get(t, presented, "payload", "outsideExecution", "typedData")); got != want {
			t.Fatalf("typed data\n%s\nwant\n%s", got, want)
		}
	})

	// payment is S4's payment as the pairing completes it with S3's
	// signature.
	payment := func(t *testing.T) *jsonv.Object {
		t.Helper()
		done, err := p.Complete(built(t), signature(), rails.Chosen{Ref: "ref"})
		if err != nil {
			t.Fatal(err)
		}
		o, _ := jsonv.AsObject(done.Signed)
		return o
	}

	t.Run("S4", func(t *testing.T) {
		s4 := obj(t, f, "S4")
		pay := payment(t)
		if got, want := jsonv.String(pay), jsonv.String(presented); got != want {
			t.Fatalf("payment\n%s\nwant\n%s", got, want)
		}
		if h, err := p.Bound(pay); err != nil || h != str(t, s4, "expectBound") {
			t.Fatalf("bound %s, %v", h, err)
		}
		empty := pay.Clone()
		obj(t, empty, "extensions", "legalContext", "info").Set("value", str(t, s4, "boundWithEmptyHash", "value"))
		if _, err := p.Bound(empty); !isRefusal(err, str(t, s4, "boundWithEmptyHash", "expect", "code")) || get(t, s4, "boundWithEmptyHash", "expect", "refused") != true {
			t.Fatalf("empty hash: %v", err)
		}
		bare := pay.Clone()
		bare.Delete("extensions")
		if _, err := p.Bound(bare); !isRefusal(err, str(t, s4, "boundWithoutExtension", "code")) {
			t.Fatalf("without extension: %v", err)
		}
		want := string(jsonv.Canonical(get(t, s4, "expectReference")))
		ref, err := starknet.PaymentReference(pay)
		if err != nil || string(jsonv.Canonical(snRefJSON(ref))) != want {
			t.Fatalf("reference %s, %v", jsonv.String(snRefJSON(ref)), err)
		}
		short := pay.Clone()
		obj(t, short, "payload", "outsideExecution", "typedData", "domain").Set("chainId", str(t, s4, "chainIdShortString"))
		ref, err = starknet.PaymentReference(short)
		if err != nil || string(jsonv.Canonical(snRefJSON(ref))) != want {
			t.Fatalf("short-string chain id: %s, %v", jsonv.String(snRefJSON(ref)), err)
		}
		if h, err := p.Bound(short); err != nil || h != H.String() {
			t.Fatalf("short-string chain id bound %s, %v", h, err)
		}
	})

	statusRow := func(t *testing.T, ref *jsonv.Object, r *jsonv.Object) {
		t.Helper()
		rd := &snReader{network: "starknet:SN_SEPOLIA"}
		rv, _ := r.Get("receipt")
		if rv == "reader-error" {
			rd.fail = true
		} else {
			rd.receipt = snReceipt(t, rv)
			tv, _ := r.Get("trace")
			rd.trace = snTrace(t, tv)
		}
		st := starknet.PaymentStatus(context.Background(), snRef(t, ref), rd)
		got := jsonv.Obj("state", st.State)
		if st.Why != "" {
			got.Set("why", st.Why)
		}
		if st.State == "settled" {
			got.Set("finality", st.Finality)
			got.Set("blockNumber", strconv.FormatUint(st.BlockNumber, 10))
		}
		if string(jsonv.Canonical(got)) != string(jsonv.Canonical(get(t, r, "expect"))) {
			t.Fatalf("status %s, want %s", jsonv.String(got), jsonv.String(get(t, r, "expect")))
		}
		if rd.calls > 2 {
			t.Fatalf("%d reads", rd.calls)
		}
	}
	s5ref := obj(t, f, "S5", "ref")
	t.Run("S5", func(t *testing.T) {
		pay := payment(t)
		ref, err := starknet.PaymentReference(pay)
		if err != nil {
			t.Fatal(err)
		}
		tx := snFelt(t, str(t, s5ref, "transaction"))
		ref.Transaction = &tx
		if string(jsonv.Canonical(snRefJSON(ref))) != string(jsonv.Canonical(s5ref)) {
			t.Fatalf("S5's ref is not the payment's: %s", jsonv.String(snRefJSON(ref)))
		}
		for i, rv := range get(t, f, "S5", "status").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			t.Run(strconv.Itoa(i)+" "+str(t, r, "case"), func(t *testing.T) { statusRow(t, s5ref, r) })
		}
	})
	t.Run("plant", func(t *testing.T) { statusRow(t, s5ref, obj(t, f, "plant")) })

	t.Run("agreedRefusals", func(t *testing.T) {
		for _, rv := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				switch {
				case r.Has("option"):
					if got := starknet.CheckOption(obj(t, r, "option")); got != str(t, r, "expect") {
						t.Fatalf("option: %q", got)
					}
					// The document offering only it has nothing this pairing pays.
					d := doc.Clone()
					d.Set("accepts", []jsonv.Value{jsonv.Clone(get(t, r, "option"))})
					if read, err := p.Read(d); err == nil && len(read.Options) != 0 {
						t.Fatalf("read %d options", len(read.Options))
					}
				case r.Has("from"):
					if _, err := build(t, str(t, r, "from")); !isRefusal(err, str(t, r, "expect")) {
						t.Fatalf("build: %v", err)
					}
				case r.Has("signatureLengths"):
					for _, nv := range get(t, r, "signatureLengths").([]jsonv.Value) {
						n, _ := jsonv.AsSafeInt(nv)
						sig := make([]jsonv.Value, n)
						for i := range sig {
							sig[i] = "0x1"
						}
						if _, err := p.Complete(built(t), jsonv.Obj("signature", sig), rails.Chosen{}); !isRefusal(err, str(t, r, "expect")) {
							t.Fatalf("%d felts: %v", n, err)
						}
					}
					// 1 and 32 felts complete.
					for _, n := range []int{1, 32} {
						sig := make([]jsonv.Value, n)
						for i := range sig {
							sig[i] = "0x1"
						}
						if _, err := p.Complete(built(t), jsonv.Obj("signature", sig), rails.Chosen{}); err != nil {
							t.Fatalf("%d felts: %v", n, err)
						}
					}
				case r.Has("revision"):
					pay := presented.Clone()
					rev, _ := r.Get("revision")
					obj(t, pay, "payload", "outsideExecution", "typedData", "domain").Set("revision", rev)
					if _, err := p.Bound(pay); !isRefusal(err, str(t, r, "expect")) {
						t.Fatalf("bound: %v", err)
					}
				case r.Has("chainId"):
					pay := presented.Clone()
					obj(t, pay, "payload", "outsideExecution", "typedData", "domain").Set("chainId", str(t, r, "chainId"))
					if _, err := p.Bound(pay); !isRefusal(err, str(t, r, "expect")) {
						t.Fatalf("bound: %v", err)
					}
				case r.Has("twoMatches"):
					first, _ := jsonv.AsObject(get(t, f, "S5", "status").([]jsonv.Value)[0])
					two := first.Clone()
					tr := obj(t, two, "trace")
					calls := get(t, tr, "calls").([]jsonv.Value)
					tr.Set("calls", []jsonv.Value{calls[0], jsonv.Clone(calls[0])})
					two.Set("expect", jsonv.Clone(get(t, r, "expect")))
					statusRow(t, s5ref, two)
				default:
					t.Fatalf("a row this test does not know: %s", jsonv.String(r))
				}
			})
		}
	})

	t.Run("B2", func(t *testing.T) {
		in := obj(t, b2, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		sg := &countingSigner{inner: &accountAs{Signer: refusingSigner{}, account: str(t, in, "account")}}
		n, _ := jsonv.AsSafeInt(get(t, in, "now"))
		_, err := s.gateFor(n, rails.NewRegistry(p)).Transact(context.Background(), doc, str(t, b2, "pairing"), sg, nil)
		wantDecline(t, err, gate.Code(str(t, b2, "expect", "decline")), "")
		want, _ := jsonv.AsSafeInt(get(t, b2, "expect", "signCalls"))
		if sg.calls.Load() != want || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
		}
	})

	t.Run("B6", func(t *testing.T) {
		checks := get(t, b6, "input", "check").([]jsonv.Value)
		expects := get(t, b6, "expect").([]jsonv.Value)
		g := &gate.Gate{Pairings: rails.NewRegistry(p)}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, b6, "pairing"), presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, b6, "pairing"), presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

// snFeltUnreduced reads 0x and 64 hex digits as 32 bytes, P or more.
func snFeltUnreduced(t testing.TB, s string) [32]byte {
	t.Helper()
	b := unhex(t, s[2:])
	if len(b) != 32 {
		t.Fatalf("%q is not 32 bytes", s)
	}
	return [32]byte(b)
}

// refusingSigner is a wallet that declines whatever it is asked: B2's
// account is the vectors' payer, whose key is not published.
type refusingSigner struct{}

func (refusingSigner) Account() string { return "" }
func (refusingSigner) Sign(context.Context, rails.Request) (jsonv.Value, error) {
	return nil, errors.New("no key for this account")
}
