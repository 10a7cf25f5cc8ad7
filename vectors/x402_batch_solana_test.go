package vectors_test

// x402-batch-settlement.json's rows of x402/batch-settlement/solana: ES1–ES7,
// the SVM agreedRefusals row and the buyer rows B2 and B6 (run from
// TestX402BatchSettlement under their row names). ES5's status rows read
// the landed opening from a loopback JSON-RPC node through
// solana.ChannelStatus; ES7 locates the opening by the fee payer's
// signatures on such a node.

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
	"github.com/termsgate/termsgate/signer"
)

// batchSVM is the file's fixed.svm with buyer B2's document and inputs.
type batchSVM struct {
	f, svm  *jsonv.Object
	H       atr.Hash
	doc     *jsonv.Object // B2's document: ES4's option, legal context placed
	inputs  *jsonv.Object // B2's inputs
	account string
	key     ed25519.PrivateKey
	network string
}

func loadBatchSVM(t *testing.T, f *jsonv.Object) batchSVM {
	t.Helper()
	b2 := batchRow(t, f, "B2", solana.BatchID)
	seed := unhex(t, str(t, f, "fixed", "svm", "payerSeed"))
	return batchSVM{f: f, svm: obj(t, f, "fixed", "svm"), H: mustHash(t, str(t, f, "fixed", "H")),
		doc: obj(t, b2, "input", "doc"), inputs: obj(t, b2, "input", "inputs"), account: str(t, b2, "input", "account"),
		key: ed25519.NewKeyFromSeed(seed), network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"}
}

func (b batchSVM) signer(t testing.TB) *countingSigner {
	t.Helper()
	l, err := signer.SolanaFromSeedHex(str(t, b.svm, "payerSeed"), b.network)
	if err != nil {
		t.Fatal(err)
	}
	return &countingSigner{inner: l}
}

// build chooses on doc (B2's when nil) with inputs and builds for h.
func (b batchSVM) build(t *testing.T, doc, inputs *jsonv.Object, h atr.Hash) (rails.Unsigned, []*jsonv.Object) {
	t.Helper()
	p := solana.Batch{}
	if doc == nil {
		doc = b.doc
	}
	read, err := p.Read(doc.Clone())
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, b.account, inputs, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(c, nil, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	var reqs []*jsonv.Object
	for _, r := range get(t, req, "requests").([]jsonv.Value) {
		reqs = append(reqs, r.(*jsonv.Object))
	}
	return u, reqs
}

func messageOf(t testing.TB, req *jsonv.Object) []byte {
	t.Helper()
	return unhex(t, strings.TrimPrefix(str(t, req, "message"), "0x"))
}

// opening is the B2 opening, signed with the published payer seed (payer
// and authorizer are the same key).
func (b batchSVM) opening(t *testing.T) *jsonv.Object {
	t.Helper()
	u, reqs := b.build(t, nil, b.inputs, b.H)
	sigs := []jsonv.Value{
		solana.Base58(ed25519.Sign(b.key, messageOf(t, reqs[0]))),
		solana.Base58(ed25519.Sign(b.key, messageOf(t, reqs[1]))),
	}
	c, err := solana.Batch{}.Complete(u, sigs, rails.Chosen{Ref: rails.NewRef()})
	if err != nil {
		t.Fatal(err)
	}
	return c.Signed.(*jsonv.Object)
}

// svmPayment is a payment of ES4's option with payload.
func svmPayment(t testing.TB, f *jsonv.Object, payload *jsonv.Object) *jsonv.Object {
	return jsonv.Obj("x402Version", 2, "accepted", obj(t, f, "ES4", "accepted"), "payload", payload)
}

func batchSolanaRows(t *testing.T, f *jsonv.Object) {
	b := loadBatchSVM(t, f)
	p := solana.Batch{}
	key := func(s string) solana.Key {
		k, ok := solana.ParseKey(s)
		if !ok {
			t.Fatalf("not a key: %s", s)
		}
		return k
	}
	payer, feePayer, mint := key(str(t, b.svm, "payer")), key(str(t, b.svm, "feePayer")), key(str(t, b.svm, "mint"))
	b6 := batchRow(t, f, "B6", solana.BatchID)
	presented := obj(t, b6, "input", "presented")

	t.Run("ES1", func(t *testing.T) {
		v := obj(t, f, "ES1")
		pda, bump, err := solana.ChannelAddress(payer, feePayer, mint, payer, 42, 341000000)
		if err != nil || pda.String() != str(t, v, "channelPda") || jsonv.Number(bump) != get(t, v, "bump") {
			t.Fatalf("channel %s bump %d (%v)", pda, bump, err)
		}
		if pda43, _, _ := solana.ChannelAddress(payer, feePayer, mint, payer, 43, 341000000); pda43.String() != str(t, v, "salt43") {
			t.Fatalf("salt 43: %s", pda43)
		}
		ea, eb, err := solana.FindProgramAddress([][]byte{[]byte("event_authority")}, solana.ChannelProgram)
		if err != nil || ea.String() != str(t, v, "eventAuthority") || jsonv.Number(eb) != get(t, v, "eventAuthorityBump") || solana.EventAuthority() != ea {
			t.Fatalf("event authority %s bump %d (%v)", ea, eb, err)
		}
		// wrongCurveTest is the event authority's bump-255 candidate: an
		// Ed25519 point, so the search passes over it.
		h := sha256.New()
		h.Write([]byte("event_authority"))
		h.Write([]byte{255})
		h.Write(solana.ChannelProgram[:])
		h.Write([]byte("ProgramDerivedAddress"))
		cand := h.Sum(nil)
		if solana.Base58(cand) != str(t, v, "wrongCurveTest") {
			t.Fatalf("bump 255 candidate %s", solana.Base58(cand))
		}
		if _, err := new(edwards25519.Point).SetBytes(cand); err != nil {
			t.Fatal("the bump-255 candidate is not on the curve")
		}
		// The build's voucher names this channel.
		_, reqs := b.build(t, nil, b.inputs, b.H)
		if ch, _, _, ok := solana.ParseVoucher(messageOf(t, reqs[1])); !ok || ch.String() != str(t, v, "channelPda") {
			t.Fatalf("voucher channel %s", ch)
		}
	})

	t.Run("ES2", func(t *testing.T) {
		v := obj(t, f, "ES2")
		if got := hexOf(solana.OpenData(42, 100000, 3600, 341000000, key(str(t, b.svm, "payTo")))); got != str(t, v, "openInstructionData") {
			t.Fatalf("open data %s", got)
		}
		u, reqs := b.build(t, nil, b.inputs, b.H)
		msg := messageOf(t, reqs[0])
		sum := sha256.Sum256(msg)
		if jsonv.Number(len(msg)) != get(t, v, "messageLength") || hexOf(sum[:]) != str(t, v, "messageSha256") {
			t.Fatalf("message %d bytes, SHA-256 %x", len(msg), sum)
		}
		m, ok := solana.DecodeMessage(msg)
		if !ok || len(m.Instructions) != 4 || hexOf(m.Instructions[2].Data) != str(t, v, "openInstructionData") {
			t.Fatal("the open instruction is not the message's third")
		}
		sigs := []jsonv.Value{solana.Base58(ed25519.Sign(b.key, msg)), solana.Base58(ed25519.Sign(b.key, messageOf(t, reqs[1])))}
		c, err := p.Complete(u, sigs, rails.Chosen{Ref: rails.NewRef()})
		if err != nil {
			t.Fatal(err)
		}
		wireText := str(t, c.Signed, "payload", "deposit", "transaction")
		wire, _ := base64.StdEncoding.DecodeString(wireText)
		ws := sha256.Sum256(wire)
		if wireText != str(t, v, "wireBase64") || jsonv.Number(len(wire)) != get(t, v, "wireLength") || !strings.HasPrefix(hexOf(ws[:]), str(t, v, "wireSha256Prefix")) {
			t.Fatalf("wire %s", wireText)
		}
		// The payer's slot holds a signature that verifies; the fee payer's is zero.
		tx, _, _ := solana.DecodeTx(wire)
		if !ed25519.Verify(b.key.Public().(ed25519.PublicKey), tx.Message, tx.Signatures[1]) || tx.Keys[1] != payer || hexOf(tx.Signatures[0]) != strings.Repeat("00", 64) {
			t.Fatal("the payer's signature is not in its slot")
		}
	})

	t.Run("ES3", func(t *testing.T) {
		v := obj(t, f, "ES3")
		_, reqs := b.build(t, nil, b.inputs, b.H)
		if str(t, reqs[1], "kind") != "ed25519-raw" || str(t, reqs[1], "signer") != payer.String() {
			t.Fatalf("voucher request %s", jsonv.Marshal(reqs[1]))
		}
		msg := messageOf(t, reqs[1])
		if hexOf(msg) != str(t, v, "message") {
			t.Fatalf("voucher %x", msg)
		}
		// The local signer answers the batch; its voucher signature is the
		// row's, and verifies.
		sg := b.signer(t)
		req, _ := p.Request(func() rails.Unsigned { u, _ := b.build(t, nil, b.inputs, b.H); return u }())
		answer, err := sg.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		sig, ok := solana.Base58Signature(answer.([]jsonv.Value)[1])
		if !ok || !strings.HasPrefix(hexOf(sig), str(t, v, "signaturePrefix")) || !strings.HasSuffix(hexOf(sig), str(t, v, "signatureSuffix")) {
			t.Fatalf("voucher signature %x", sig)
		}
		if !ed25519.Verify(b.key.Public().(ed25519.PublicKey), msg, sig) {
			t.Fatal("the voucher signature does not verify")
		}
	})

	t.Run("ES4", func(t *testing.T) {
		v := obj(t, f, "ES4")
		if jsonv.String(get(t, presented, "accepted")) != jsonv.String(get(t, v, "accepted")) ||
			jsonv.String(get(t, presented, "payload", "channelConfig")) != jsonv.String(get(t, v, "config")) {
			t.Fatal("B6's payment is not ES4's")
		}
		// The opening Complete makes is B6's payload, byte for byte, but
		// for the voucher signature, which B6 did not make.
		payload := obj(t, b.opening(t), "payload").Clone()
		obj(t, payload, "voucher").Set("signature", str(t, presented, "payload", "voucher", "signature"))
		if got, want := jsonv.String(payload), jsonv.String(get(t, presented, "payload")); got != want {
			t.Fatalf("payload\n got %s\nwant %s", got, want)
		}
		if h, err := p.Bound(presented); err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		if k, err := p.ChannelKind(presented); err != nil || string(k) != str(t, v, "expectKind") {
			t.Fatalf("kind %s (%v)", k, err)
		}
		ref, err := p.ChannelRef(presented)
		if err != nil || ref.Network != str(t, v, "expectRef", "network") || ref.Channel != str(t, v, "expectRef", "channel") {
			t.Fatalf("ref %+v (%v)", ref, err)
		}
		config := obj(t, v, "config")
		topUp := svmPayment(t, f, jsonv.Obj("type", "deposit", "channelConfig", config, "deposit", jsonv.Obj("amount", "50000", "transaction", str(t, v, "topUpWireBase64"))))
		if k, err := p.ChannelKind(topUp); err != nil || string(k) != str(t, v, "expectTopUpKind") {
			t.Fatalf("top-up kind %s (%v)", k, err)
		}
		closing := svmPayment(t, f, jsonv.Obj("type", "refund", "channelConfig", config, "transaction", str(t, v, "closeWireBase64")))
		if k, err := p.ChannelKind(closing); err != nil || string(k) != str(t, v, "expectCloseKind") {
			t.Fatalf("close kind %s (%v)", k, err)
		}
		for name, pay := range map[string]*jsonv.Object{"top-up": topUp, "close": closing} {
			if r, err := p.ChannelRef(pay); err != nil || r != ref {
				t.Fatalf("%s ref %+v (%v)", name, r, err)
			}
			_, err := p.BoundWithin(pay)
			wantRefusal(t, err, str(t, v, "expectBoundWithin"))
		}
		t.Run("plantNonce", func(t *testing.T) {
			planted := presented.Clone()
			obj(t, planted, "payload", "deposit").Set("transaction", str(t, v, "plantNonce", "wireBase64"))
			_, err := p.Bound(planted)
			wantRefusal(t, err, str(t, v, "plantNonce", "expect"))
		})
		t.Run("plantSalt43", func(t *testing.T) {
			c := config.Clone()
			c.Set("salt", "43")
			voucher := svmPayment(t, f, jsonv.Obj("type", "voucher", "channelConfig", c, "voucher",
				jsonv.Obj("channelId", str(t, f, "ES1", "channelPda"), "maxClaimableAmount", "2000", "expiresAt", 0, "signature", "x")))
			_, err := p.ChannelRef(voucher)
			wantRefusal(t, err, str(t, v, "plantSalt43", "expect"))
		})
	})

	t.Run("ES5", func(t *testing.T) {
		v := obj(t, f, "ES5")
		tx, err := solana.WireOf(str(t, v, "landedWireBase64"))
		if err != nil {
			t.Fatal(err)
		}
		ref := solana.ReferenceOf(b.network, tx)
		for _, k := range []string{"network", "transaction", "digest", "feePayer", "blockhash"} {
			if str(t, ref, k) != str(t, v, "ref", k) {
				t.Fatalf("ref.%s %s", k, str(t, ref, k))
			}
		}
		if str(t, ref, "transaction") != str(t, v, "txid") {
			t.Fatalf("txid %s", str(t, ref, "transaction"))
		}
		// The landed opening is the one the buyer signed, co-signed.
		landed := presented.Clone()
		obj(t, landed, "payload", "deposit").Set("transaction", str(t, v, "landedWireBase64"))
		if h, err := p.Bound(landed); err != nil || h != str(t, f, "fixed", "H") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		t.Run("plantNoChannel", func(t *testing.T) {
			pl := obj(t, v, "plantNoChannel")
			tx, err := solana.WireOf(str(t, pl, "landedWireBase64"))
			if err != nil {
				t.Fatal(err)
			}
			if d := solana.ReferenceOf(b.network, tx); str(t, d, "digest") != str(t, pl, "digest") {
				t.Fatalf("digest %s", str(t, d, "digest"))
			}
			_, err = solana.ChannelInstruction(tx)
			wantRefusal(t, err, "svm/"+str(t, pl, "expect", "why"))
		})
		t.Run("rows", func(t *testing.T) {
			svmStatusRows(t, get(t, v, "rows"), obj(t, v, "ref"), wireBytes(t, str(t, v, "landedWireBase64")), solana.ChannelStatus)
		})
	})

	t.Run("ES6", func(t *testing.T) {
		v := obj(t, f, "ES6")
		opening := b.opening(t)
		accepted := obj(t, f, "ES4", "accepted")
		within := func(accepted *jsonv.Object, action rails.WithinAction, refund int64, inputs *jsonv.Object) (rails.InChannel, error) {
			doc := b.doc.Clone()
			doc.Set("accepts", []jsonv.Value{accepted})
			w := rails.Within{Opening: opening, Cumulative: mustBig(t, "0"), Action: action, Required: doc, Accepted: accepted, Inputs: inputs}
			if refund > 0 {
				w.RefundAmount = mustBig(t, "1000")
			}
			return p.BuildWithin(w, b.H)
		}
		bh := jsonv.Obj("recentBlockhash", str(t, b.svm, "blockhash"))
		t.Run("withMemo", func(t *testing.T) {
			built, err := within(accepted, rails.WithinClose, 0, bh)
			if err != nil {
				t.Fatal(err)
			}
			msg := messageOf(t, built.Requests()[0])
			m, _ := solana.DecodeMessage(msg)
			want, err := solana.WireOf(str(t, f, "ES4", "closeWireBase64"))
			if err != nil {
				t.Fatal(err)
			}
			if m.Keys[0] != want.Keys[0] || m.Blockhash != want.Blockhash || m.Required != want.Required ||
				jsonv.String(instructionsJSON(m)) != jsonv.String(instructionsJSON(want)) {
				t.Fatalf("close message\n got %s\nwant %s", jsonv.Marshal(instructionsJSON(m)), jsonv.Marshal(instructionsJSON(want)))
			}
			signed, err := built.Complete([]string{solana.Base58(ed25519.Sign(b.key, msg))})
			if err != nil {
				t.Fatal(err)
			}
			if k, err := p.ChannelKind(signed); err != nil || string(k) != str(t, v, "withMemo", "expectKind") {
				t.Fatalf("kind %s (%v)", k, err)
			}
			payload := obj(t, signed, "payload")
			if payload.Has("amount") || payload.Has("voucher") || str(t, payload, "type") != "refund" {
				t.Fatalf("refund payload %s", jsonv.Marshal(payload))
			}
		})
		t.Run("withoutMemo", func(t *testing.T) {
			a := accepted.Clone()
			obj(t, a, "extra").Delete("memo")
			built, err := within(a, rails.WithinClose, 0, bh)
			if err != nil {
				t.Fatal(err)
			}
			m, _ := solana.DecodeMessage(messageOf(t, built.Requests()[0]))
			if got, want := jsonv.String(instructionsJSON(m)), jsonv.String(get(t, v, "withoutMemo", "instructions")); got != want {
				t.Fatalf("instructions\n got %s\nwant %s", got, want)
			}
		})
		t.Run("refundWithAmount", func(t *testing.T) {
			_, err := within(accepted, rails.WithinRefund, 1000, bh)
			wantRefusal(t, err, str(t, v, "refundWithAmount", "expect"))
		})
		t.Run("noBlockhash", func(t *testing.T) {
			_, err := within(accepted, rails.WithinClose, 0, nil)
			wantRefusal(t, err, str(t, v, "noBlockhash", "expect"))
		})
	})

	// ES7: the opening is found by the fee payer's signatures when each
	// candidate is read through ChannelStatus; read through the transfer
	// test it is not, and the search ends complete and empty.
	t.Run("ES7", func(t *testing.T) {
		v := obj(t, f, "ES7")
		fromSlot, _ := strconv.ParseUint(str(t, v, "fromSlot"), 10, 64)
		first, _ := strconv.ParseUint(str(t, v, "firstAvailableBlock"), 10, 64)
		ref := obj(t, f, "ES5", "ref").Clone()
		ref.Delete("transaction")
		ref.Set("fromSlot", str(t, v, "fromSlot"))
		txid := str(t, f, "ES5", "txid")
		memo := "[77] " + solana.Carrier(b.H)
		for name, status := range map[string]func(*jsonv.Object, solana.Reader) solana.Status{
			"expectChannelStatus": solana.ChannelStatus, "expectTransferTest": solana.TransferStatus,
		} {
			t.Run(name, func(t *testing.T) {
				node, reader := locateNode(t, b.network, str(t, ref, "feePayer"), first, []solanarpc.NodeListed{
					{Signature: txid, Slot: fromSlot + 7, Memo: memo},
					{Signature: fakeSignature("ES7 below", 0), Slot: fromSlot - 1, Memo: memo},
				})
				node.Txs[txid] = solanarpc.NodeTx{Slot: fromSlot + 7, Wire: wireBytes(t, str(t, f, "ES5", "landedWireBase64")), Finalized: true}
				got := solana.Locate(ref, reader, b.H, status)
				if g, w := jsonv.String(got.JSON()), jsonv.String(get(t, v, name)); g != w {
					t.Fatalf("located %s, want %s", g, w)
				}
			})
		}
	})
}

// batchSolanaAgreedRefusal is agreedRefusals row 5: an SVM completion with
// a signature that is not 64 bytes of base58, or a build input out of
// range.
func batchSolanaAgreedRefusal(t *testing.T, f *jsonv.Object) []error {
	b := loadBatchSVM(t, f)
	p := solana.Batch{}
	u, reqs := b.build(t, nil, b.inputs, b.H)
	sig := solana.Base58(ed25519.Sign(b.key, messageOf(t, reqs[0])))
	var errs []error
	for _, answer := range []jsonv.Value{
		[]jsonv.Value{sig}, []jsonv.Value{sig, sig, sig}, []jsonv.Value{sig, "0x" + hex.EncodeToString(make([]byte, 64))},
		[]jsonv.Value{sig, solana.Base58(make([]byte, 63))}, []jsonv.Value{sig, "0OIl" + sig[4:]}, sig,
		[]jsonv.Value{sig, jsonv.Number(1)}, []jsonv.Value{strings.Repeat("1", 91), sig},
	} {
		_, err := p.Complete(u, answer, rails.Chosen{Ref: rails.NewRef()})
		errs = append(errs, err)
	}
	for _, in := range []struct{ k, v string }{
		{"computeUnitPrice", "18446744073709551616"}, {"deposit", "18446744073709551616"},
		{"tokenProgram", solana.Token2022Program.String()}, {"salt", "18446744073709551616"},
		{"openSlot", "9007199254740992"}, {"payerAuthorizer", "x"}, {"recentBlockhash", "x"},
	} {
		read, _ := p.Read(b.doc)
		c, err := p.Choose(read, b.account, b.inputs, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		c.(*jsonv.Object).Set(in.k, in.v)
		_, err = p.Build(c, nil, b.H)
		errs = append(errs, err)
	}
	read, _ := p.Read(b.doc)
	c, _ := p.Choose(read, b.account, b.inputs, 0, "")
	c.(*jsonv.Object).Set("computeUnitLimit", jsonv.Number(1<<32))
	_, err := p.Build(c, nil, b.H)
	return append(errs, err)
}

// batchSolanaBuyerRows are B2 and B6 of x402/batch-settlement/solana.
func batchSolanaBuyerRows(t *testing.T, f *jsonv.Object) {
	b := loadBatchSVM(t, f)
	t.Run("B2/"+solana.BatchID, func(t *testing.T) {
		r := batchRow(t, f, "B2", solana.BatchID)
		in := obj(t, r, "input")
		s := newATRSeller(t)
		s.serveBytes(unhex(t, str(t, in, "servesHex")))
		sg := b.signer(t)
		if sg.Account() != str(t, in, "account") {
			t.Fatalf("account %s", sg.Account())
		}
		_, err := s.gateFor(0, nil).Transact(context.Background(), get(t, in, "doc"), solana.BatchID, sg, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
		}
		// The control: the link serving the advertised ATR is paid with one
		// signer call, and both signatures verify.
		s.serveBytes([]byte("abc"))
		paid, err := s.gateFor(0, nil).Transact(context.Background(), get(t, in, "doc"), solana.BatchID, sg, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("control: %v, %d signer calls", err, sg.calls.Load())
		}
		pub := b.key.Public().(ed25519.PublicKey)
		tx, err := solana.WireOf(get(t, paid.Signed, "payload", "deposit", "transaction"))
		if err != nil || !ed25519.Verify(pub, tx.Message, tx.Signatures[1]) {
			t.Fatalf("control: the payer's signature does not verify (%v)", err)
		}
		vs, _ := solana.Base58Signature(get(t, paid.Signed, "payload", "voucher", "signature"))
		ch, _ := solana.ParseKey(str(t, paid.Signed, "payload", "voucher", "channelId"))
		if !ed25519.Verify(pub, solana.VoucherMessage(ch, 1000, 0), vs) {
			t.Fatal("control: the voucher signature does not verify")
		}
	})
	t.Run("B6/"+solana.BatchID, func(t *testing.T) {
		r := batchRow(t, f, "B6", solana.BatchID)
		presented := get(t, r, "input", "presented")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), solana.BatchID, presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), solana.BatchID, presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

// solanaHold is the channel B2's control opens, held.
func solanaHold(t *testing.T) (batchSVM, *gate.Gate, *gate.Hold) {
	t.Helper()
	b := loadBatchSVM(t, load(t, "x402-batch-settlement.json"))
	g := &gate.Gate{}
	hold, err := g.OpenChannel([]byte("abc"), solana.BatchID, b.opening(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if hold.Channel != "8msh7T45JEaicCMYm5TZeUNeh3WjU1Xb9pAnQet4oek8" || hold.SignedMax != "1000" || hold.Network != b.network {
		t.Fatalf("hold %+v", hold)
	}
	return b, g, hold
}

// runBW3 is buyer.json's published row BW3: a refund of a held
// x402/batch-settlement/solana channel with computeUnitLimit,
// computeUnitPrice or recentBlockhash given and malformed is declined
// no-payable-option (x402/input-malformed) before the build and the
// signer call; its control, each value well formed, signs once.
func runBW3(t *testing.T) {
	b, g, hold := solanaHold(t)
	good := func() *jsonv.Object {
		return jsonv.Obj("recentBlockhash", str(t, b.svm, "blockhash"), "computeUnitLimit", 300000, "computeUnitPrice", "5")
	}
	bad := map[string][]jsonv.Value{
		"computeUnitLimit": {"300000", jsonv.Number(-1), jsonv.Number(1.5), jsonv.Number(1 << 32), true, nil},
		"computeUnitPrice": {jsonv.Number(5), "-5", "1.5", "18446744073709551616", "", nil},
		"recentBlockhash":  {jsonv.Number(1), "", "not a blockhash", "0OIl" + strings.Repeat("1", 40), nil},
	}
	for k, values := range bad {
		for _, v := range values {
			in := good()
			in.Set(k, v)
			sg := b.signer(t)
			_, err := g.Within(context.Background(), b.doc, hold, solana.BatchID, sg, &gate.Refund{}, in)
			wantDecline(t, err, gate.NoPayableOption, "x402/input-malformed")
			if sg.calls.Load() != 0 {
				t.Fatalf("%s %s: the signer was called", k, jsonv.Marshal(v))
			}
		}
	}
	t.Run("control", func(t *testing.T) {
		sg := b.signer(t)
		r, err := g.Within(context.Background(), b.doc, hold, solana.BatchID, sg, &gate.Refund{}, good())
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("%v, %d signer calls", err, sg.calls.Load())
		}
		tx, err := solana.WireOf(get(t, r.Signed, "payload", "transaction"))
		if err != nil {
			t.Fatal(err)
		}
		if !ed25519.Verify(b.key.Public().(ed25519.PublicKey), tx.Message, tx.Signatures[1]) {
			t.Fatal("the payer's signature does not verify")
		}
		if hexOf(tx.Instructions[0].Data) != "02e0930400" || hexOf(tx.Instructions[1].Data) != "030500000000000000" {
			t.Fatalf("compute budget %x %x", tx.Instructions[0].Data, tx.Instructions[1].Data)
		}
		if k, _ := (solana.Batch{}).ChannelKind(r.Signed); k != rails.ChannelClose {
			t.Fatalf("kind %s", k)
		}
	})
}

// TestSolanaBatchChannel pays inside the held Solana channel through the
// gate: a voucher for the recorded charge plus the option's amount, signed
// by the authorizer over the channel the opening named; the charge
// recorded, bounded by what was signed; a document steering the voucher
// into another fee payer's channel refused unsigned.
func TestSolanaBatchChannel(t *testing.T) {
	b, g, hold := solanaHold(t)
	sg := b.signer(t)
	hold, err := gate.RecordCharge(hold, "1000")
	if err != nil {
		t.Fatal(err)
	}
	r, err := g.Within(context.Background(), b.doc, hold, solana.BatchID, sg, nil, nil)
	if err != nil || sg.calls.Load() != 1 {
		t.Fatalf("%v, %d signer calls", err, sg.calls.Load())
	}
	voucher := obj(t, r.Signed, "payload", "voucher")
	sig, _ := solana.Base58Signature(get(t, voucher, "signature"))
	ch, _ := solana.ParseKey(hold.Channel)
	if str(t, voucher, "maxClaimableAmount") != "2000" || str(t, voucher, "channelId") != hold.Channel ||
		!ed25519.Verify(b.key.Public().(ed25519.PublicKey), solana.VoucherMessage(ch, 2000, 0), sig) {
		t.Fatalf("voucher %s", jsonv.Marshal(voucher))
	}
	if r.Hold.SignedMax != "2000" || r.Hold.Charged != "1000" {
		t.Fatalf("hold %+v", r.Hold)
	}
	if _, err := gate.RecordCharge(r.Hold, "2001"); err == nil {
		t.Fatal("a charge above what was signed was recorded")
	}
	// Another fee payer in the new document derives another channel.
	doc := b.doc.Clone()
	opt := get(t, doc, "accepts").([]jsonv.Value)[0].(*jsonv.Object)
	obj(t, opt, "extra").Set("feePayer", str(t, b.svm, "payTo"))
	sg2 := b.signer(t)
	_, err = g.Within(context.Background(), doc, hold, solana.BatchID, sg2, nil, nil)
	wantDecline(t, err, gate.NoPayableOption, gate.DetailOtherChannelAsked)
	if sg2.calls.Load() != 0 {
		t.Fatal("the signer was called")
	}
}
