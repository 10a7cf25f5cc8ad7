package vectors_test

// mpp-charge-solana.json: fixed, challenge, place, occupied, V2, build,
// defaultComputeBudget, refusals, split, plant, push, recover,
// agreedRefusals and the buyer rows B2 and B6 (the build compared with
// x402-exact-solana.json's V1 message, which the file reuses). Landed
// transactions are read from a loopback JSON-RPC node.

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
	"github.com/termsgate/termsgate/signer"
)

// solanaChargeCase is what the Solana charge files share: a pairing, its
// placed challenge and the V2 wire.
type solanaChargeCase struct {
	p       rails.Pairing
	placed  *jsonv.Object
	wire    string
	payer   string
	network string
}

func (c solanaChargeCase) credential(challenge *jsonv.Object, payload *jsonv.Object) *jsonv.Object {
	if challenge == nil {
		challenge = c.placed
	}
	return jsonv.Obj("challenge", challenge.Clone(), "payload", payload)
}

func txPayload(wire string) *jsonv.Object {
	return jsonv.Obj("type", "transaction", "transaction", wire)
}

// withRequest is the placed challenge whose request has mut applied (id
// and opaque kept), re-encoded canonically.
func (c solanaChargeCase) withRequest(t *testing.T, mut func(r *jsonv.Object)) *jsonv.Object {
	t.Helper()
	r, ok := mpp.DecodeObject(mpp.String(c.placed, "request"))
	if !ok {
		t.Fatal("the placed request does not decode")
	}
	mut(r)
	out := c.placed.Clone()
	out.Set("request", mpp.EncodeObject(r))
	return out
}

func (c solanaChargeCase) bound(presented jsonv.Value) error {
	_, err := c.p.Bound(presented)
	return err
}

// chargeChoice reads the placed challenge and chooses it for the payer.
func (c solanaChargeCase) choice(t *testing.T, challenge *jsonv.Object, inputs *jsonv.Object) *jsonv.Object {
	t.Helper()
	read, err := c.p.Read([]jsonv.Value{challenge})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := c.p.Choose(read, c.network+":"+c.payer, inputs, 1790000000, "")
	if err != nil {
		t.Fatal(err)
	}
	return ch.(*jsonv.Object)
}

// rebuildWith is tx's message with one more instruction at the end,
// unsigned (zero signatures).
func rebuildWith(t *testing.T, tx *solana.Tx, extra solana.Instruction) string {
	t.Helper()
	msg := []byte{0x80, byte(tx.Required), byte(tx.ReadonlySigned), byte(tx.ReadonlyUnsigned), byte(len(tx.Keys))}
	for _, k := range tx.Keys {
		msg = append(msg, k[:]...)
	}
	msg = append(msg, tx.Blockhash[:]...)
	ixs := append(append([]solana.Instruction(nil), tx.Instructions...), extra)
	msg = append(msg, byte(len(ixs)))
	for _, ix := range ixs {
		msg = append(msg, ix.Program, byte(len(ix.Accounts)))
		msg = append(msg, ix.Accounts...)
		msg = append(msg, byte(len(ix.Data)))
		msg = append(msg, ix.Data...)
	}
	msg = append(msg, 0)
	wire := append([]byte{byte(tx.Required)}, make([]byte, 64*tx.Required)...)
	return base64.StdEncoding.EncodeToString(append(wire, msg...))
}

func programIndex(t *testing.T, tx *solana.Tx, k solana.Key) uint8 {
	t.Helper()
	for i, x := range tx.Keys {
		if x == k {
			return uint8(i)
		}
	}
	t.Fatalf("no key %s", k)
	return 0
}

func TestMPPChargeSolana(t *testing.T) {
	f := load(t, "mpp-charge-solana.json")
	x := load(t, "x402-exact-solana.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	challenge := obj(t, f, "challenge")
	placed := obj(t, f, "place", "expect")
	c := solanaChargeCase{p: solana.Charge{}, placed: placed, wire: str(t, f, "V2", "wireBase64"),
		payer: str(t, fixed, "payer"), network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"}
	p := solana.Charge{}

	t.Run("fixed", func(t *testing.T) {
		if id, _ := mpp.ChallengeID(H, 0); id != str(t, fixed, "MV1") || mpp.LegalContextValue(H) != str(t, fixed, "L") || solana.Carrier(H) != str(t, fixed, "L") {
			t.Fatalf("id %s", id)
		}
		opaque := mpp.EncodeObject(jsonv.Obj("legalContext", str(t, fixed, "L"), "legalContextUrl", str(t, fixed, "link")))
		if opaque != str(t, fixed, "MV3opaque") {
			t.Fatalf("opaque %s", opaque)
		}
	})

	t.Run("challenge", func(t *testing.T) {
		if got := mpp.EncodeObject(obj(t, fixed, "request")); got != str(t, challenge, "request") {
			t.Fatalf("request %s", got)
		}
		pairings, err := mpp.PairingsOf(challenge)
		if err != nil || len(pairings) != 1 || pairings[0] != solana.ChargeID {
			t.Fatalf("pairings %v (%v)", pairings, err)
		}
		if n, err := mpp.Network(challenge); err != nil || n != c.network {
			t.Fatalf("network %s (%v)", n, err)
		}
	})

	t.Run("place", func(t *testing.T) {
		pc, err := solana.PlaceChargeChallenge(challenge, H)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := mpp.Place([]jsonv.Value{pc}, H, str(t, fixed, "link"), pc, "")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonv.String(doc[0]), jsonv.String(placed); got != want {
			t.Fatalf("placed\n got %s\nwant %s", got, want)
		}
		read, err := p.Read([]jsonv.Value{placed})
		if err != nil || read.H != H.String() || read.Link != str(t, fixed, "link") {
			t.Fatalf("read %+v (%v)", read, err)
		}
	})

	t.Run("occupied", func(t *testing.T) {
		o := challenge.Clone()
		o.Set("request", mpp.EncodeObject(obj(t, f, "occupied", "request")))
		_, err := solana.PlaceChargeChallenge(o, H)
		wantRefusal(t, err, str(t, f, "occupied", "expect"))
	})

	t.Run("V2", func(t *testing.T) {
		cred := c.credential(nil, txPayload(c.wire))
		h, err := p.Bound(cred)
		if err != nil || h != str(t, f, "V2", "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		ref, err := p.Reference(cred)
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, f, "V2", "expectReference")) {
			t.Fatalf("reference %s (%v)", jsonv.String(ref), err)
		}
	})

	build := func(t *testing.T, inputs *jsonv.Object) *solana.Tx {
		t.Helper()
		u, err := p.Build(c.choice(t, placed, inputs), nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		msg, _ := hex.DecodeString(strings.TrimPrefix(str(t, req, "message"), "0x"))
		m, ok := solana.DecodeMessage(msg)
		if !ok {
			t.Fatal("the built message does not decode")
		}
		return m
	}
	t.Run("build", func(t *testing.T) {
		b := obj(t, f, "build")
		m := build(t, jsonv.Obj("computeUnitLimit", get(t, b, "computeUnitLimit"), "computeUnitPrice", str(t, b, "computeUnitPrice")))
		if got, want := jsonv.String(instructionsJSON(m)), jsonv.String(get(t, x, "V1", "instructions")); got != want {
			t.Fatalf("instructions\n got %s\nwant %s", got, want)
		}
		// The same message as V2's wire, whose digest the file states.
		if d := sha256.Sum256(m.Message); "0x"+hex.EncodeToString(d[:]) != str(t, f, "V2", "expectReference", "digest") {
			t.Fatal("the built message is not V2's")
		}
	})
	t.Run("defaultComputeBudget", func(t *testing.T) {
		m := build(t, &jsonv.Object{})
		got := instructionsJSON(m)[:2]
		if g, w := jsonv.String(got), jsonv.String(get(t, f, "defaultComputeBudget", "instructions")); g != w {
			t.Fatalf("budget\n got %s\nwant %s", g, w)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		for i, rv := range get(t, f, "refusals").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				ch := placed
				if ext, ok := r.GetString("externalId"); ok {
					ch = c.withRequest(t, func(q *jsonv.Object) { q.Set("externalId", ext) })
				}
				payload := txPayload(mpp.String(r, "wireBase64"))
				if pl, ok := r.GetObject("payload"); ok {
					payload = pl
				}
				wantRefusal(t, c.bound(c.credential(ch, payload)), str(t, r, "expect"))
			})
		}
	})

	t.Run("split", func(t *testing.T) {
		tx, _ := solana.WireOf(c.wire)
		wire := rebuildWith(t, tx, solana.Instruction{Program: programIndex(t, tx, solana.MemoV3), Data: []byte(str(t, f, "split", "splitMemo"))})
		h, err := p.Bound(c.credential(nil, txPayload(wire)))
		if err != nil || h != str(t, f, "split", "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
	})

	t.Run("plant", func(t *testing.T) {
		wantRefusal(t, c.bound(c.credential(nil, txPayload(str(t, f, "plant", "wireBase64")))), str(t, f, "plant", "expect"))
	})

	push := obj(t, f, "push")
	txid := str(t, push, "txid")
	landed := wireBytes(t, str(t, push, "landedWireBase64"))
	sigCred := c.credential(nil, jsonv.Obj("type", "signature", "signature", txid))
	t.Run("push", func(t *testing.T) {
		node, reader := svmNode(t, str(t, push, "network"), false)
		node.Txs[txid] = solanarpc.NodeTx{Slot: 1000050, Wire: landed}
		fetched, err := p.FetchPresented(sigCred, reader)
		if err != nil {
			t.Fatal(err)
		}
		h, err := p.Bound(fetched)
		if err != nil || h != str(t, push, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		ref, err := p.Reference(fetched)
		if err != nil || str(t, ref, "transaction") != str(t, push, "expectReferenceTransaction") {
			t.Fatalf("reference %v (%v)", jsonv.String(ref), err)
		}
		if node.Calls.Load() != 1 {
			t.Fatalf("%d node calls, want 1 (at confirmed)", node.Calls.Load())
		}
	})
	t.Run("recover", func(t *testing.T) {
		node, reader := svmNode(t, str(t, push, "network"), false)
		node.Txs[txid] = solanarpc.NodeTx{Slot: 1000050, Wire: landed, Finalized: true}
		h, err := solana.ChargeRecover(jsonv.Obj("network", str(t, push, "network"), "transaction", txid), reader)
		if err != nil || h != str(t, f, "recover", "expect") {
			t.Fatalf("recover %s (%v)", h, err)
		}
	})

	t.Run("agreedRefusals", func(t *testing.T) {
		rows := get(t, f, "agreedRefusals", "rows").([]jsonv.Value)
		for i, rv := range rows {
			r := rv.(*jsonv.Object)
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				for _, err := range solanaChargeAgreed(t, i, f, c, r) {
					code := str(t, r, "expect")
					if alt := strings.Split(code, " or "); len(alt) == 2 {
						if rf, ok := err.(*rails.Refusal); !ok || rf.Code != alt[0] && rf.Code != alt[1] {
							t.Fatalf("want %s, got %v", code, err)
						}
						continue
					}
					wantRefusal(t, err, code)
				}
			})
		}
		if len(rows) != 9 {
			t.Fatalf("%d rows; this test knows 9", len(rows))
		}
	})

	solanaChargeBuyerRows(t, f, c)
}

// solanaChargeAgreed makes the inputs each agreedRefusals row describes.
func solanaChargeAgreed(t *testing.T, i int, f *jsonv.Object, c solanaChargeCase, r *jsonv.Object) []error {
	t.Helper()
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	issued := func(mut func(q, d *jsonv.Object)) error {
		q := obj(t, fixed, "request").Clone()
		d, _ := q.GetObject("methodDetails")
		mut(q, d)
		ch := obj(t, f, "challenge").Clone()
		ch.Set("request", mpp.EncodeObject(q))
		_, err := mpp.PairingsOf(ch)
		return err
	}
	push := obj(t, f, "push")
	txid := str(t, push, "txid")
	sigCred := c.credential(nil, jsonv.Obj("type", "signature", "signature", txid))
	p := solana.Charge{}
	switch i {
	case 0:
		return []error{issued(func(_, d *jsonv.Object) { d.Set("network", "testnet") }), issued(func(_, d *jsonv.Object) { d.Set("network", jsonv.Number(1)) })}
	case 1:
		return []error{
			issued(func(q, _ *jsonv.Object) { q.Set("amount", "0") }),
			issued(func(q, _ *jsonv.Object) { q.Set("amount", "18446744073709551616") }),
			issued(func(q, _ *jsonv.Object) { q.Set("currency", "usdc") }),
			issued(func(q, _ *jsonv.Object) { q.Set("recipient", "0x2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4") }),
			issued(func(q, _ *jsonv.Object) { q.Set("externalId", strings.Repeat("x", 567)) }),
			issued(func(_, d *jsonv.Object) { d.Delete("feePayerKey") }),
		}
	case 2:
		tx, _ := solana.WireOf(c.wire)
		return []error{c.bound(c.credential(nil, txPayload(rebuildWithout(t, tx, solana.MemoV3))))}
	case 3:
		return []error{c.bound(c.credential(nil, txPayload(str(t, f, "plant", "wireBase64"))))}
	case 4:
		q := obj(t, fixed, "request").Clone()
		d, _ := q.GetObject("methodDetails")
		d.Set("network", "localnet")
		ch := obj(t, f, "challenge").Clone()
		ch.Set("request", mpp.EncodeObject(q))
		ch, err := solana.PlaceChargeChallenge(ch, H)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := mpp.Place([]jsonv.Value{ch}, H, str(t, fixed, "link"), ch, "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Reference(c.credential(doc[0].(*jsonv.Object), txPayload(c.wire)))
		return []error{err}
	case 5:
		_, broken := svmNode(t, c.network, true)
		_, empty := svmNode(t, c.network, false)
		_, err1 := p.FetchPresented(sigCred, broken)
		_, err2 := p.FetchPresented(sigCred, empty)
		return []error{err1, err2}
	case 6:
		node, reader := svmNode(t, c.network, false)
		node.Txs[txid] = solanarpc.NodeTx{Slot: 1000050, Wire: wireBytes(t, str(t, push, "landedWireBase64")), Err: get(t, r, "err")}
		_, err := p.FetchPresented(sigCred, reader)
		return []error{err}
	case 7:
		buildWith := func(mutReq func(q, d *jsonv.Object), mutChoice func(ch *jsonv.Object)) error {
			ch := c.placed
			if mutReq != nil {
				ch = c.withRequest(t, func(q *jsonv.Object) { d, _ := q.GetObject("methodDetails"); mutReq(q, d) })
			}
			choice := jsonv.Obj("challenge", ch.Clone(), "payer", c.payer, "now", 1790000000)
			if mutChoice != nil {
				mutChoice(choice)
			}
			_, err := p.Build(choice, nil, H)
			return err
		}
		return []error{
			buildWith(func(_, d *jsonv.Object) { d.Set("splits", []jsonv.Value{}) }, nil),
			buildWith(func(_, d *jsonv.Object) { d.Set("confidential", true) }, nil),
			buildWith(nil, func(ch *jsonv.Object) { ch.Set("payer", "not-a-key") }),
			buildWith(func(_, d *jsonv.Object) { d.Delete("decimals"); d.Delete("tokenProgram") }, nil),
		}
	case 8:
		return []error{c.bound(c.credential(nil, jsonv.Obj("type", "hash", "hash", "0x00")))}
	}
	t.Fatalf("row %d: this test does not know it", i)
	return nil
}

// solanaChargeBuyerRows runs B2 (the plant declined unsigned, then the
// control paid once, the payer's signature verifying) and B6.
func solanaChargeBuyerRows(t *testing.T, f *jsonv.Object, c solanaChargeCase) {
	x := load(t, "x402-exact-solana.json")
	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		srv := newATRSeller(t)
		srv.serveBytes(unhex(t, str(t, in, "servesHex")))
		l, err := signer.SolanaFromSeedHex(str(t, x, "fixed", "payerSeed"), c.network)
		if err != nil {
			t.Fatal(err)
		}
		sg := &countingSigner{inner: l}
		if sg.Account() != str(t, in, "account") {
			t.Fatalf("account %s", sg.Account())
		}
		const now = 1790000000
		opts := &gate.TransactOptions{Inputs: obj(t, in, "inputs")}
		_, err = srv.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, opts)
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || srv.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), srv.fetches.Load())
		}
		srv.serveBytes([]byte("abc"))
		paid, err := srv.gateFor(now, nil).Transact(context.Background(), get(t, in, "doc"), str(t, r, "pairing"), sg, opts)
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("control: %v, %d signer calls", err, sg.calls.Load())
		}
		tx, err := solana.WireOf(get(t, paid.Signed, "payload", "transaction"))
		payerKey := ed25519.NewKeyFromSeed(unhex(t, str(t, x, "fixed", "payerSeed")))
		if err != nil || !ed25519.Verify(payerKey.Public().(ed25519.PublicKey), tx.Message, tx.Signatures[1]) || tx.Keys[1] != l.Key() {
			t.Fatalf("control: the payer's signature does not verify (%v)", err)
		}
		if h, err := c.p.Bound(paid.Signed); err != nil || h != str(t, r, "advertised") {
			t.Fatalf("control: bound %s (%v)", h, err)
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		presented := get(t, r, "input", "presented")
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
