package vectors_test

// mpp-charge-usdc-stacks.json: fixed (the usdc request and the challenge
// placed, as B2 holds it), M4 (the transfer built and signed byte for byte
// by the scalar-1 key, its txid, bound, reference, the memo-none and
// other-format refusals), M4b (status over a fixture reader, every row, and
// recover), plant, pattern and the buyer rows B2 and B6.

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stacks"
	"github.com/termsgate/termsgate/signer"
)

// stacksReader is the vector's fixture reader: L with a row's changes.
type stacksReader struct {
	network   string
	tx        *stacks.Mined
	txErr     bool
	confirmed *uint64
	tip       uint64
	tipErr    bool
}

func (r *stacksReader) Network() string { return r.network }

func (r *stacksReader) Tx(context.Context, [32]byte) (*stacks.Mined, error) {
	if r.txErr {
		return nil, errors.New("reader-error")
	}
	return r.tx, nil
}

func (r *stacksReader) ConfirmedNonce(context.Context, string) (*uint64, error) {
	return r.confirmed, nil
}

func (r *stacksReader) TipTenure(context.Context) (uint64, error) {
	if r.tipErr {
		return 0, errors.New("reader-error")
	}
	return r.tip, nil
}

func TestMPPChargeUSDCStacks(t *testing.T) {
	f := load(t, "mpp-charge-usdc-stacks.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	p := stacks.ChargeUSDC{}
	rows := get(t, f, "buyer", "rows")
	placed := get(t, row(t, rows, "B2"), "input", "doc").([]jsonv.Value)[0].(*jsonv.Object)
	presented := obj(t, row(t, rows, "B6"), "input", "presented")
	network := str(t, fixed, "network")
	account := network + ":" + str(t, fixed, "sender")
	m4 := obj(t, f, "M4")
	wire := unhex(t, strings.TrimPrefix(str(t, m4, "wireHex"), "0x"))
	key, err := signer.StacksFromHex(signer.StacksDevKey, network, nil)
	if err != nil {
		t.Fatal(err)
	}
	withTx := func(raw []byte, format string) *jsonv.Object {
		c := presented.Clone()
		c.Set("payload", jsonv.Obj("type", "transaction", "transaction", base64.StdEncoding.EncodeToString(raw), "transactionFormat", format))
		return c
	}
	// build pays the placed challenge from the key with the fixture's nonce
	// and fee and returns the credential and the unsigned build.
	build := func(t *testing.T) (*jsonv.Object, rails.Request) {
		t.Helper()
		read, err := p.Read([]jsonv.Value{placed})
		if err != nil || read.H != H.String() {
			t.Fatalf("read %+v (%v)", read, err)
		}
		choice, err := p.Choose(read, account, jsonv.Obj("nonce", str(t, fixed, "nonce"), "fee", str(t, fixed, "fee")), 0, "")
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(choice, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		answer, err := key.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		done, err := p.Complete(u, answer, rails.Chosen{})
		if err != nil {
			t.Fatal(err)
		}
		return done.Signed.(*jsonv.Object), req
	}

	t.Run("fixed", func(t *testing.T) {
		if got := mpp.EncodeB64URL(jsonv.Marshal(obj(t, fixed, "request"))); got != str(t, placed, "request") {
			t.Fatalf("request %s", got)
		}
		if id, err := mpp.ChallengeID(H, 0); err != nil || id != str(t, fixed, "MV1") || mpp.String(placed, "id") != id {
			t.Fatalf("id %s (%v)", id, err)
		}
		if pairings := mpp.PairingsOfPlaced(placed); len(pairings) != 1 || pairings[0] != stacks.ChargeUSDCID {
			t.Fatalf("pairings %v", pairings)
		}
		if n, err := mpp.Network(placed); err != nil || n != network {
			t.Fatalf("network %s (%v)", n, err)
		}
		if key.Account() != account {
			t.Fatalf("account %s", key.Account())
		}
	})

	t.Run("M4", func(t *testing.T) {
		cred, req := build(t)
		if jsonv.String(cred) != jsonv.String(presented) {
			t.Fatalf("credential\n got %s\nwant %s", jsonv.String(cred), jsonv.String(presented))
		}
		raw, _ := base64.StdEncoding.DecodeString(str(t, cred, "payload", "transaction"))
		if string(raw) != string(wire) || len(raw) != int(stacksNum(t, m4, "expectLength")) {
			t.Fatalf("wire %x", raw)
		}
		h := "0x" + hex.EncodeToString(raw)
		sig := obj(t, m4, "expectSignature")
		off, n := int(stacksNum(t, sig, "offset")), int(stacksNum(t, sig, "length"))
		sigHex := hex.EncodeToString(raw[off : off+n])
		if !strings.HasPrefix(h, str(t, m4, "expectPrefix")) || !strings.HasSuffix(h, strings.TrimPrefix(str(t, m4, "expectSuffix"), "0x")) ||
			!strings.Contains(h, strings.TrimPrefix(str(t, m4, "expectSigner"), "0x")) ||
			!strings.HasPrefix(sigHex, strings.TrimPrefix(str(t, sig, "prefix"), "0x")) || !strings.HasSuffix(sigHex, str(t, sig, "suffix")) {
			t.Fatalf("transaction %s", h)
		}
		if id := stacks.TxID(raw); "0x"+hex.EncodeToString(id[:]) != str(t, m4, "expectTxid") {
			t.Fatalf("txid %x", id)
		}
		if b, err := p.Bound(cred); err != nil || b != str(t, m4, "expectBound") {
			t.Fatalf("bound %s (%v)", b, err)
		}
		ref, err := p.Reference(cred)
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, m4, "expectReference")) {
			t.Fatalf("reference %s (%v)", jsonv.String(ref), err)
		}
		g, err := p.Summarize(req)
		if err != nil || g.Amount.String() != str(t, fixed, "amount") || g.Payer != str(t, fixed, "sender") ||
			g.Payee != str(t, fixed, "recipient") || g.Asset != str(t, fixed, "request", "currency") || g.Network != network {
			t.Fatalf("summary %+v (%v)", g, err)
		}
		in, err := p.Inspect(cred)
		if err != nil || in.H != H.String() || str(t, in.JSON(), "details", "txid") != str(t, m4, "expectTxid") ||
			get(t, in.JSON(), "details", "paysRequest") != true || get(t, in.JSON(), "details", "signatureVerifies") != true {
			t.Fatalf("inspect %s (%v)", jsonv.String(in.JSON()), err)
		}
		// The memo none: the same transfer with (none) as memo, signed by
		// the same key, is its memoNoneLength and is refused.
		tx, err := stacks.DecodeTx(raw)
		if err != nil {
			t.Fatal(err)
		}
		tx.Args[3] = []byte{0x09}
		tx.Signature = [65]byte{}
		unsigned := jsonv.Obj("kind", stacks.KindContractCall, "network", network, "transaction", "0x"+hex.EncodeToString(tx.Encode()),
			"nonce", "0", "fee", "1000")
		if _, err := key.Sign(context.Background(), unsigned); err == nil {
			t.Fatal("the signer signed a transfer whose memo is not H's")
		}
		tx.Signature = stacks.Sign(tx, mustStacksKey(t))
		none := tx.Encode()
		if len(none) != int(stacksNum(t, m4, "memoNoneLength")) {
			t.Fatalf("memo none length %d", len(none))
		}
		_, err = p.Bound(withTx(none, stacks.TransactionFormat))
		wantRefusal(t, err, str(t, m4, "expectMemoNone", "code"))
		_, err = p.Bound(withTx(raw, "stacks_transaction_"+str(t, m4, "otherFormat")))
		wantRefusal(t, err, str(t, m4, "expectOtherFormat", "code"))
	})

	ref := stacks.Reference{Network: network, Contract: str(t, fixed, "contract"), Origin: str(t, fixed, "sender"), TxID: stacks.TxID(wire)}
	m4b := obj(t, f, "M4b")
	L := obj(t, m4b, "L")
	readerFor := func(t *testing.T, r *jsonv.Object) *stacksReader {
		args := get(t, L, "call", "args").([]jsonv.Value)
		m := &stacks.Mined{Mined: true, Status: str(t, L, "status"), Sender: str(t, L, "sender", "address"),
			Nonce: stacksU64(t, str(t, L, "sender", "nonce")), BlockHeight: stacksU64(t, str(t, L, "blockHeight")),
			Tenure: stacksU64(t, str(t, m4b, "blockTenure")), Contract: str(t, L, "call", "contractId"), Function: str(t, L, "call", "functionName")}
		for _, a := range args {
			m.Args = append(m.Args, unhex(t, strings.TrimPrefix(a.(string), "0x")))
		}
		rd := &stacksReader{network: network, tx: m, tipErr: true}
		if s, ok := r.GetString("status"); ok {
			m.Status = s
		}
		if s, ok := r.GetString("senderNonce"); ok {
			m.Nonce = stacksU64(t, s)
		}
		if s, ok := r.GetString("memo"); ok {
			m.Args[3] = unhex(t, strings.TrimPrefix(s, "0x"))
		}
		switch tip, _ := r.GetString("tip"); tip {
		case "", "reader-error":
		default:
			rd.tip, rd.tipErr = stacksU64(t, tip), false
		}
		if v, has := r.Get("tx"); has {
			switch tv := v.(type) {
			case nil:
				rd.tx = nil
			case string:
				rd.txErr = true
			default:
				o := tv.(*jsonv.Object)
				rd.tx = &stacks.Mined{Mined: get(t, o, "mined") == true, Status: str(t, o, "status")}
			}
		}
		if v, has := r.Get("confirmedNonce"); has && v != nil {
			n := stacksU64(t, v.(string))
			rd.confirmed = &n
		}
		if s, ok := r.GetString("readerNetwork"); ok {
			rd.network = s
		}
		return rd
	}
	wantStatus := func(t *testing.T, st stacks.Status, want *jsonv.Object) {
		t.Helper()
		got := jsonv.Obj("state", st.State)
		if st.Why != "" {
			got.Set("why", st.Why)
		}
		if st.Finality != "" {
			got.Set("finality", st.Finality)
		}
		if st.BlockHeight != nil {
			got.Set("blockHeight", strconv.FormatUint(*st.BlockHeight, 10))
		}
		w := jsonv.Obj()
		for _, k := range []string{"state", "why", "finality", "blockHeight"} {
			if v, ok := want.Get(k); ok {
				w.Set(k, v)
			}
		}
		if jsonv.String(got) != jsonv.String(w) {
			t.Fatalf("status %s, want %s", jsonv.String(got), jsonv.String(w))
		}
	}
	t.Run("M4b", func(t *testing.T) {
		for _, rv := range get(t, m4b, "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				wantStatus(t, stacks.PaymentStatus(context.Background(), ref, H, readerFor(t, r)), obj(t, r, "expect"))
			})
		}
	})
	recoverRow := func(t *testing.T, r *jsonv.Object, expect jsonv.Value) {
		h, err := stacks.Recover(context.Background(), network, ref.TxID, readerFor(t, r))
		if s, ok := expect.(string); ok {
			if err != nil || h.String() != s {
				t.Fatalf("recover %s (%v)", h, err)
			}
			return
		}
		wantRefusal(t, err, str(t, expect, "code"))
	}
	t.Run("recover", func(t *testing.T) {
		for _, rv := range get(t, m4b, "recover").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) { recoverRow(t, r, get(t, r, "expect")) })
		}
	})
	t.Run("plant", func(t *testing.T) {
		r := obj(t, f, "plant")
		wantStatus(t, stacks.PaymentStatus(context.Background(), ref, H, readerFor(t, r)), obj(t, r, "expectStatus"))
		recoverRow(t, r, get(t, r, "expectRecover"))
	})
	t.Run("pattern", func(t *testing.T) {
		pt := obj(t, f, "pattern")
		if str(t, pt, "profile") != p.ID() || p.Pattern().Name != str(t, pt, "pattern") || p.Pattern().PublicProof != (get(t, pt, "publicProof") == true) {
			t.Fatalf("pattern %+v", p.Pattern())
		}
	})

	t.Run("B2", func(t *testing.T) {
		r := row(t, rows, "B2")
		in := obj(t, r, "input")
		srv := newATRSeller(t)
		srv.serveBytes(unhex(t, str(t, in, "servesHex")))
		sg := &countingSigner{inner: key}
		if sg.Account() != str(t, in, "account") {
			t.Fatalf("account %s", sg.Account())
		}
		const now = 1790000000
		_, err := srv.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, nil)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || srv.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), srv.fetches.Load())
		}
		// The control: the terms served, the same gate pays, and the
		// payment is B6's.
		srv.serveBytes([]byte("abc"))
		opts := &gate.TransactOptions{Inputs: jsonv.Obj("nonce", "0", "fee", "1000")}
		paid, err := srv.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, opts)
		if err != nil || sg.calls.Load() != 1 || jsonv.String(paid.Signed) != jsonv.String(presented) {
			t.Fatalf("control: %v, %d signer calls", err, sg.calls.Load())
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, rows, "B6")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), str(t, r, "pairing"), presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), str(t, r, "pairing"), presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

func mustStacksKey(t *testing.T) *secp256k1.PrivateKey {
	t.Helper()
	var one [32]byte
	one[31] = 1
	return secp256k1.PrivKeyFromBytes(one[:])
}

func stacksNum(t *testing.T, o *jsonv.Object, k string) int64 {
	t.Helper()
	n, ok := jsonv.AsSafeInt(get(t, o, k))
	if !ok {
		t.Fatalf("%s is not a number", k)
	}
	return n
}

func stacksU64(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
