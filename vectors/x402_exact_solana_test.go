package vectors_test

// x402-exact-solana.json: V1, defaultComputeBudget, V2, V3, carrierSpelling
// (the read-back), durableNonce (the references), V4's status rows, V5's
// searches and plant (read from a loopback JSON-RPC node), agreedRefusals
// with their recover rows, durableNonce's accounts, nonceMoved and status
// rows, and the buyer rows B2 and B6.

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

type solanaFixture struct {
	f, fixed *jsonv.Object
	H        atr.Hash
	doc      *jsonv.Object // buyer B2's document, extra.memo placed
	network  string
}

func loadSolana(t *testing.T) solanaFixture {
	t.Helper()
	f := load(t, "x402-exact-solana.json")
	b2 := row(t, get(t, f, "buyer", "rows"), "B2")
	return solanaFixture{f: f, fixed: obj(t, f, "fixed"), H: mustHash(t, str(t, f, "fixed", "H")),
		doc: obj(t, b2, "input", "doc"), network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"}
}

// choice is the fixed inputs' choice on the B2 document.
func (s solanaFixture) choice(t *testing.T, inputs *jsonv.Object) *jsonv.Object {
	t.Helper()
	p := solana.Exact{}
	read, err := p.Read(s.doc.Clone()) // a row may change the choice
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, s.network+":"+str(t, s.fixed, "payer"), inputs, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	return c.(*jsonv.Object)
}

func (s solanaFixture) inputs(t *testing.T, budget bool) *jsonv.Object {
	in := jsonv.Obj("decimals", get(t, s.fixed, "decimals"), "tokenProgram", str(t, s.fixed, "tokenProgram"),
		"recentBlockhash", str(t, s.fixed, "blockhash"))
	if budget {
		in.Set("computeUnitLimit", get(t, s.fixed, "computeUnitLimit"))
		in.Set("computeUnitPrice", str(t, s.fixed, "computeUnitPrice"))
	}
	return in
}

func (s solanaFixture) build(t *testing.T, budget bool) (rails.Unsigned, []byte) {
	t.Helper()
	p := solana.Exact{}
	u, err := p.Build(s.choice(t, s.inputs(t, budget)), nil, s.H)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	msg, _ := hex.DecodeString(strings.TrimPrefix(str(t, req, "message"), "0x"))
	return u, msg
}

// instructionsJSON decompiles a message as the vectors write it.
func instructionsJSON(m *solana.Tx) []jsonv.Value {
	var out []jsonv.Value
	for _, ix := range m.Instructions {
		accounts := []jsonv.Value{}
		for _, a := range ix.Accounts {
			i := int(a)
			signer := i < m.Required
			writable := i < m.Required-m.ReadonlySigned || i >= m.Required && i < len(m.Keys)-m.ReadonlyUnsigned
			accounts = append(accounts, jsonv.Obj("address", m.Keys[i].String(), "signer", signer, "writable", writable))
		}
		out = append(out, jsonv.Obj("program", m.Keys[ix.Program].String(), "accounts", accounts, "data", hex.EncodeToString(ix.Data)))
	}
	return out
}

func payment(accepted jsonv.Value, wireB64 string) *jsonv.Object {
	return jsonv.Obj("x402Version", 2, "accepted", accepted, "payload", jsonv.Obj("transaction", wireB64))
}

func TestX402ExactSolana(t *testing.T) {
	s := loadSolana(t)
	f := s.f
	p := solana.Exact{}
	payerSeed, _ := hex.DecodeString(str(t, s.fixed, "payerSeed"))
	payerKey := ed25519.NewKeyFromSeed(payerSeed)

	t.Run("V1", func(t *testing.T) {
		v := obj(t, f, "V1")
		u, msg := s.build(t, true)
		m, ok := solana.DecodeMessage(msg)
		if !ok {
			t.Fatal("the built message does not decode")
		}
		if got, want := jsonv.String(instructionsJSON(m)), jsonv.String(get(t, v, "instructions")); got != want {
			t.Fatalf("instructions\n got %s\nwant %s", got, want)
		}
		if m.Keys[0].String() != str(t, v, "feePayer") || m.Blockhash.String() != str(t, v, "blockhash") {
			t.Fatalf("fee payer %s, blockhash %s", m.Keys[0], m.Blockhash)
		}
		sum := sha256.Sum256(msg)
		n, _ := jsonv.AsSafeInt(get(t, v, "messageLength"))
		first, _ := jsonv.AsSafeInt(get(t, v, "messageFirstByte"))
		if len(msg) != int(n) || int64(msg[0]) != first || hex.EncodeToString(sum[:]) != str(t, v, "messageSha256") {
			t.Fatalf("message %d bytes, first %d, SHA-256 %x", len(msg), msg[0], sum)
		}
		// The payer's signature, by the local signer from the published seed.
		sg, err := signer.SolanaFromSeedHex(str(t, s.fixed, "payerSeed"), s.network)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		answer, err := sg.Sign(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		sig, ok := solana.Signature64(answer)
		hexSig := hex.EncodeToString(sig)
		if !ok || !strings.HasPrefix(hexSig, str(t, v, "payerSignaturePrefix")) || !strings.HasSuffix(hexSig, str(t, v, "payerSignatureSuffix")) {
			t.Fatalf("signature %s", hexSig)
		}
		if !ed25519.Verify(payerKey.Public().(ed25519.PublicKey), msg, sig) {
			t.Fatal("the signature does not verify")
		}
		if n, _ := jsonv.AsSafeInt(get(t, v, "Lbytes")); len(solana.Carrier(s.H)) != int(n) {
			t.Fatal("carrier length")
		}
		// Completed, it is V2's wire.
		c, err := p.Complete(u, answer, rails.Chosen{Ref: rails.NewRef()})
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, c.Signed, "payload", "transaction"); got != str(t, f, "V2", "wireBase64") {
			t.Fatalf("wire %s", got)
		}
	})

	t.Run("defaultComputeBudget", func(t *testing.T) {
		_, msg := s.build(t, false)
		m, _ := solana.DecodeMessage(msg)
		if got, want := jsonv.String(instructionsJSON(m)[:2]), jsonv.String(get(t, f, "defaultComputeBudget", "instructions")); got != want {
			t.Fatalf("compute budget\n got %s\nwant %s", got, want)
		}
	})

	t.Run("V2", func(t *testing.T) {
		v := obj(t, f, "V2")
		pay := payment(get(t, v, "accepted"), str(t, v, "wireBase64"))
		raw, _ := base64.StdEncoding.DecodeString(str(t, v, "wireBase64"))
		if n, _ := jsonv.AsSafeInt(get(t, v, "wireLength")); len(raw) != int(n) {
			t.Fatalf("wire %d bytes", len(raw))
		}
		if h, err := p.Bound(pay); err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		ref, err := p.Reference(pay)
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, v, "expectReference")) {
			t.Fatalf("reference %s (%v)", jsonv.Marshal(ref), err)
		}
	})

	t.Run("V3", func(t *testing.T) {
		for _, c := range get(t, f, "V3").([]jsonv.Value) {
			t.Run(str(t, c, "case"), func(t *testing.T) {
				if o, _ := jsonv.AsObject(c); o.Has("advertiseOption") {
					_, err := solana.PlaceCarrier(obj(t, c, "advertiseOption"), s.H)
					wantRefusal(t, err, str(t, c, "expect"))
					return
				}
				_, err := p.Bound(payment(get(t, c, "accepted"), str(t, c, "wireBase64")))
				wantRefusal(t, err, str(t, c, "expect"))
			})
		}
	})

	t.Run("carrierSpelling", func(t *testing.T) {
		b := obj(t, f, "carrierSpelling", "bound")
		_, err := p.Bound(payment(get(t, b, "accepted"), str(t, b, "wireBase64")))
		wantRefusal(t, err, str(t, b, "expect"))
		t.Run("recover", func(t *testing.T) {
			rc := obj(t, f, "carrierSpelling", "recover")
			node, reader := svmNode(t, s.network, false)
			node.Txs[str(t, rc, "txid")] = solanarpc.NodeTx{Slot: 1000050, Wire: wireBytes(t, str(t, rc, "landedWireBase64")), Finalized: true}
			_, err := solana.Recover(jsonv.Obj("network", s.network, "transaction", str(t, rc, "txid")), reader)
			wantRefusal(t, err, str(t, rc, "expect"))
		})
		// locate: the node's memo rendering is matched without regard to
		// case, so the upper-case spelling is a candidate, and the
		// reference's digest is that message's.
		t.Run("locate", func(t *testing.T) {
			rc, lc := obj(t, f, "carrierSpelling", "recover"), obj(t, f, "carrierSpelling", "locate")
			ref := obj(t, f, "V4", "ref").Clone()
			ref.Delete("transaction")
			ref.Set("digest", str(t, lc, "digest"))
			ref.Set("fromSlot", "1000000")
			node, reader := locateNode(t, s.network, str(t, ref, "feePayer"), 0, []solanarpc.NodeListed{
				{Signature: str(t, rc, "txid"), Slot: 1000010, Memo: str(t, lc, "memoRendering")},
				{Signature: fakeSignature("below", 0), Slot: 999999},
			})
			node.Txs[str(t, rc, "txid")] = solanarpc.NodeTx{Slot: 1000010, Wire: wireBytes(t, str(t, rc, "landedWireBase64")), Finalized: true}
			got := solana.Locate(ref, reader, s.H, solana.TransferStatus)
			if g, w := jsonv.String(got.JSON()), jsonv.String(get(t, lc, "expect")); g != w {
				t.Fatalf("located %s, want %s", g, w)
			}
		})
	})

	t.Run("durableNonce", func(t *testing.T) {
		accepted := get(t, f, "V2", "accepted")
		for _, r := range get(t, f, "durableNonce", "reference").([]jsonv.Value) {
			t.Run(str(t, r, "case"), func(t *testing.T) {
				ref, err := p.Reference(payment(accepted, str(t, r, "wireBase64")))
				if err != nil || jsonv.String(ref) != jsonv.String(get(t, r, "expect")) {
					t.Fatalf("reference %s (%v)\nwant %s", jsonv.Marshal(ref), err, jsonv.Marshal(get(t, r, "expect")))
				}
			})
		}
		d := obj(t, f, "durableNonce")
		account := func(t *testing.T, name string) (owner string, data []byte) {
			a := obj(t, d, "accounts", name)
			return str(t, a, "owner"), wireBytes(t, str(t, a, "dataBase64"))
		}
		// accounts: the nonce account's layout, read as the node gives it.
		t.Run("accounts", func(t *testing.T) {
			for name, want := range map[string]struct {
				version, state uint32
				value          string
			}{
				"held": {1, 1, str(t, d, "value")}, "moved": {1, 1, str(t, d, "movedValue")},
				"legacyHeld": {0, 1, str(t, d, "value")}, "uninitialized": {0, 0, "11111111111111111111111111111111"},
			} {
				_, data := account(t, name)
				version, state, value, ok := solana.NonceOf(data)
				if !ok || version != want.version || state != want.state || value.String() != want.value {
					t.Fatalf("%s: version %d state %d value %s (%v)", name, version, state, value, ok)
				}
			}
		})
		durableRef := func(t *testing.T, fromSlot string) *jsonv.Object {
			ref := obj(t, get(t, d, "reference").([]jsonv.Value)[0], "expect").Clone()
			ref.Set("fromSlot", fromSlot)
			return ref
		}
		// node is a scripted node holding the named account (null: none;
		// "reader-error": failing reads) at slot.
		node := func(t *testing.T, name jsonv.Value, slot string) *scriptedNode {
			n := &scriptedNode{}
			n.slot, _ = strconv.ParseUint(slot, 10, 64)
			switch name {
			case nil:
			case "reader-error":
				n.failing = true
			default:
				n.owner, n.data = account(t, name.(string))
			}
			return n
		}
		t.Run("nonceMoved", func(t *testing.T) {
			nm := obj(t, d, "nonceMoved")
			for _, rv := range get(t, nm, "rows").([]jsonv.Value) {
				t.Run(str(t, rv, "case"), func(t *testing.T) {
					a, _ := obj(t, rv).Get("account")
					n := node(t, a, str(t, rv, "slot"))
					got := solana.NonceMoved(durableRef(t, str(t, nm, "fromSlot")), n.reader(t, s.network))
					if want, _ := obj(t, rv).Get("expect"); got != want {
						t.Fatalf("moved %v, want %v", got, want)
					}
					if n.accountReads != 1 {
						t.Fatalf("%d account reads", n.accountReads)
					}
				})
			}
		})
		t.Run("status", func(t *testing.T) {
			st := obj(t, d, "status")
			tx, err := solana.WireOf(str(t, st, "landedWireBase64"))
			if err != nil {
				t.Fatal(err)
			}
			ref := solana.ReferenceOf(s.network, tx)
			ref.Set("fromSlot", str(t, st, "fromSlot"))
			if !ref.Has("nonce") {
				t.Fatalf("not a durable reference: %s", jsonv.String(ref))
			}
			for _, rv := range get(t, st, "rows").([]jsonv.Value) {
				t.Run(str(t, rv, "case"), func(t *testing.T) {
					a, _ := obj(t, rv).Get("account")
					n := node(t, a, "1150")
					n.wire = wireBytes(t, str(t, st, "landedWireBase64"))
					n.first, _ = strconv.ParseUint(str(t, rv, "firstAvailableBlock"), 10, 64)
					script := get(t, rv, "transactions").([]jsonv.Value)
					for _, e := range script {
						n.txs = append(n.txs, e == "landed")
					}
					got := solana.TransferStatus(ref, n.reader(t, s.network))
					if g, w := jsonv.String(got.JSON()), jsonv.String(get(t, rv, "expect")); g != w {
						t.Fatalf("status %s, want %s", g, w)
					}
					reads, _ := jsonv.AsSafeInt(get(t, rv, "accountReads"))
					if n.txReads != len(script) || int64(n.accountReads) != reads {
						t.Fatalf("%d transaction reads, %d account reads", n.txReads, n.accountReads)
					}
				})
			}
		})
	})

	t.Run("V4", func(t *testing.T) {
		v := obj(t, f, "V4")
		tx, err := solana.WireOf(str(t, v, "landedWireBase64"))
		if err != nil {
			t.Fatal(err)
		}
		ref := solana.ReferenceOf(s.network, tx)
		for _, k := range []string{"network", "transaction", "digest", "feePayer", "blockhash"} {
			if str(t, ref, k) != str(t, v, "ref", k) {
				t.Fatalf("ref.%s %s", k, str(t, ref, k))
			}
		}
		t.Run("rows", func(t *testing.T) {
			svmStatusRows(t, get(t, v, "rows"), obj(t, v, "ref"), wireBytes(t, str(t, v, "landedWireBase64")), solana.TransferStatus)
		})
		t.Run("recover", func(t *testing.T) {
			node, reader := svmNode(t, s.network, false)
			node.Txs[str(t, v, "txid")] = solanarpc.NodeTx{Slot: 1000050, Wire: wireBytes(t, str(t, v, "landedWireBase64")), Finalized: true}
			if h, err := solana.Recover(ref, reader); err != nil || h != str(t, v, "expectRecover") {
				t.Fatalf("recover %s (%v)", h, err)
			}
		})
	})

	// V5: the search over the fee payer's signatures, each case a node
	// holding the list the case describes (memos rendered as the row's
	// memoRendering gives them), read through TransferStatus.
	t.Run("V5", func(t *testing.T) {
		v := obj(t, f, "V5")
		fromSlot, _ := strconv.ParseUint(str(t, v, "fromSlot"), 10, 64)
		first, _ := strconv.ParseUint(str(t, v, "firstAvailableBlock"), 10, 64)
		ref := obj(t, f, "V4", "ref").Clone()
		ref.Delete("transaction")
		ref.Set("fromSlot", str(t, v, "fromSlot"))
		payer := str(t, ref, "feePayer")
		carrier, other := str(t, v, "memoRendering", "carrier"), str(t, v, "memoRendering", "other")
		landed := wireBytes(t, str(t, f, "V4", "landedWireBase64"))
		plant := wireBytes(t, str(t, f, "plant", "landedWireBase64"))
		below := solanarpc.NodeListed{Signature: fakeSignature("below", 0), Slot: fromSlot - 1, Memo: carrier}
		// others are n entries above fromSlot with another memo or none.
		others := func(tag string, n int, top uint64) []solanarpc.NodeListed {
			out := make([]solanarpc.NodeListed, n)
			for i := range out {
				out[i] = solanarpc.NodeListed{Signature: fakeSignature(tag, i), Slot: top - uint64(i)}
				if i%2 == 0 {
					out[i].Memo = other
				}
			}
			return out
		}
		run := func(t *testing.T, name string, first uint64, list []solanarpc.NodeListed, txs map[string][]byte) {
			node, reader := locateNode(t, s.network, payer, first, list)
			for sig, wire := range txs {
				node.Txs[sig] = solanarpc.NodeTx{Slot: fromSlot + 1, Wire: wire, Finalized: true}
			}
			got := solana.Locate(ref, reader, s.H, solana.TransferStatus)
			if g, w := jsonv.String(got.JSON()), jsonv.String(get(t, v, name, "expect")); g != w {
				t.Fatalf("located %s, want %s", g, w)
			}
			// The ten pages are read in full: the bound, not a failed read, ends it.
			if name == "tenFullPagesNoMatch" && node.Calls.Load() != 1+solana.LocatePages {
				t.Fatalf("%d calls", node.Calls.Load())
			}
		}
		t.Run("tenFullPagesNoMatch", func(t *testing.T) {
			run(t, "tenFullPagesNoMatch", first, others("other", 10*solana.LocatePage, fromSlot+20000), nil)
		})
		t.Run("secondPageReachesFromSlot", func(t *testing.T) {
			list := append(others("other", solana.LocatePage, fromSlot+5000),
				solanarpc.NodeListed{Signature: str(t, f, "V4", "txid"), Slot: fromSlot + 10, Memo: carrier}, below)
			run(t, "secondPageReachesFromSlot", first, list, map[string][]byte{str(t, f, "V4", "txid"): landed})
		})
		for _, name := range []string{"candidateCap", "candidatesWithinCap", "candidatesNotReadable"} {
			t.Run(name, func(t *testing.T) {
				n, ok := jsonv.AsSafeInt(get(t, v, name, "candidates"))
				if !ok {
					t.Fatal("candidates")
				}
				var list []solanarpc.NodeListed
				txs := map[string][]byte{}
				for i := range int(n) {
					sig := fakeSignature(name, i)
					list = append(list, solanarpc.NodeListed{Signature: sig, Slot: fromSlot + 100 - uint64(i), Memo: carrier})
					if cw, _ := obj(t, v, name).Get("candidateWire"); cw == "plant" {
						txs[sig] = plant
					}
				}
				run(t, name, first, append(list, below), txs)
			})
		}
		for _, name := range []string{"firstAvailableAboveFromSlot", "firstAvailableAtFromSlot"} {
			t.Run(name, func(t *testing.T) {
				fb, _ := strconv.ParseUint(str(t, v, name, "firstAvailableBlock"), 10, 64)
				run(t, name, fb, append(others(name, 3, fromSlot+10), below), nil)
			})
		}
	})

	// plant: a landed transaction carrying L as its memo but moving nothing
	// is not the payment, whichever digest the reference names.
	t.Run("plant", func(t *testing.T) {
		v := obj(t, f, "plant")
		wire := wireBytes(t, str(t, v, "landedWireBase64"))
		tx, err := solana.WireOf(str(t, v, "landedWireBase64"))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"ownDigest", "v1Digest"} {
			t.Run(k, func(t *testing.T) {
				ref := solana.ReferenceOf(s.network, tx)
				ref.Set("digest", str(t, v, k, "digest"))
				node, reader := svmNode(t, s.network, false)
				node.Txs[str(t, ref, "transaction")] = solanarpc.NodeTx{Slot: 1000050, Wire: wire, Finalized: true}
				got := solana.TransferStatus(ref, reader)
				if g, w := jsonv.String(got.JSON()), jsonv.String(get(t, v, k, "expect")); g != w {
					t.Fatalf("status %s, want %s", g, w)
				}
			})
		}
	})

	t.Run("agreedRefusals", func(t *testing.T) {
		for i, r := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			code := str(t, r, "expect")
			t.Run(str(t, r, "case"), func(t *testing.T) {
				errs := solanaAgreedRefusal(t, i, s)
				for _, err := range errs {
					wantRefusal(t, err, code)
				}
			})
		}
	})

	t.Run("B2", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B2")
		in := obj(t, r, "input")
		srv := newATRSeller(t)
		srv.serveBytes(unhex(t, str(t, in, "servesHex")))
		l, _ := signer.SolanaFromSeedHex(str(t, s.fixed, "payerSeed"), s.network)
		sg := &countingSigner{inner: l}
		if sg.Account() != str(t, in, "account") {
			t.Fatalf("account %s", sg.Account())
		}
		_, err := srv.gateFor(0, nil).Transact(context.Background(), get(t, in, "doc"), solana.ExactID, sg, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
		if sg.calls.Load() != 0 || srv.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), srv.fetches.Load())
		}
		// The control: the link serving the advertised ATR is paid, one
		// signer call, and the payer's signature over the message verifies.
		srv.serveBytes([]byte("abc"))
		paid, err := srv.gateFor(0, nil).Transact(context.Background(), get(t, in, "doc"), solana.ExactID, sg, &gate.TransactOptions{Inputs: obj(t, in, "inputs")})
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("control: %v, %d signer calls", err, sg.calls.Load())
		}
		tx, err := solana.WireOf(get(t, paid.Signed, "payload", "transaction"))
		if err != nil || !ed25519.Verify(payerKey.Public().(ed25519.PublicKey), tx.Message, tx.Signatures[1]) || tx.Keys[1] != l.Key() {
			t.Fatalf("control: the payer's signature does not verify (%v)", err)
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		presented := get(t, r, "input", "presented")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), solana.ExactID, presented)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), solana.ExactID, presented)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

// solanaAgreedRefusal makes the inputs each agreedRefusals row describes;
// nil for the recover rows.
func solanaAgreedRefusal(t *testing.T, i int, s solanaFixture) []error {
	t.Helper()
	p := solana.Exact{}
	v2 := obj(t, s.f, "V2")
	accepted := obj(t, v2, "accepted")
	wire, _ := base64.StdEncoding.DecodeString(str(t, v2, "wireBase64"))
	bound := func(accepted jsonv.Value, tx jsonv.Value) error {
		_, err := p.Bound(jsonv.Obj("x402Version", 2, "accepted", accepted, "payload", jsonv.Obj("transaction", tx)))
		return err
	}
	build := func(mut func(c *jsonv.Object)) error {
		c := s.choice(t, s.inputs(t, true))
		mut(c)
		_, err := p.Build(c, nil, s.H)
		return err
	}
	switch i {
	case 0: // no memo, or two
		tx, _, _ := solana.DecodeTx(wire)
		noMemo := rebuildWithout(t, tx, solana.MemoV3)
		two := get(t, s.f, "V3").([]jsonv.Value)[1]
		return []error{bound(accepted, noMemo), bound(get(t, two, "accepted"), str(t, two, "wireBase64"))}
	case 1, 2, 3, 4: // recover: another network's reader, not found, err, a failed or malformed read
		v4 := obj(t, s.f, "V4")
		txid, landed := str(t, v4, "txid"), wireBytes(t, str(t, v4, "landedWireBase64"))
		ref := jsonv.Obj("network", s.network, "transaction", txid)
		recover := func(network string, broken bool, held *solanarpc.NodeTx) error {
			node, reader := svmNode(t, network, broken)
			if held != nil {
				node.Txs[txid] = *held
			}
			_, err := solana.Recover(ref, reader)
			return err
		}
		failure, _ := jsonv.Parse([]byte(`{"InstructionError":[2,{"Custom":1}]}`))
		switch i {
		case 1:
			return []error{recover("solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z", false, &solanarpc.NodeTx{Wire: landed, Finalized: true})}
		case 2:
			return []error{recover(s.network, false, nil)}
		case 3:
			return []error{recover(s.network, false, &solanarpc.NodeTx{Wire: landed, Err: failure, Finalized: true}),
				recover(s.network, false, &solanarpc.NodeTx{Wire: landed, Err: failure})}
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","result":{"slot":1,"transaction":{"message":{}},"meta":{"err":null}},"id":1}`))
		}))
		defer srv.Close()
		_, malformed := solana.Recover(ref, solanarpc.Reader{Client: &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}, Of: s.network})
		return []error{recover(s.network, true, nil), malformed}
	case 5: // malformed key, token program, decimals, amount, compute budget or signature
		u, _ := s.build(t, true)
		_, errSig := p.Complete(u, "0x"+strings.Repeat("ab", 63), rails.Chosen{})
		errs := []error{
			build(func(c *jsonv.Object) { c.Set("tokenProgram", str(t, s.fixed, "mint")) }),
			build(func(c *jsonv.Object) { c.Set("recentBlockhash", "0OIl") }),
			build(func(c *jsonv.Object) { c.Set("decimals", jsonv.Number(256)) }),
			build(func(c *jsonv.Object) { c.Set("computeUnitLimit", jsonv.Number(1<<32)) }),
			build(func(c *jsonv.Object) { c.Set("computeUnitPrice", "18446744073709551616") }),
			build(func(c *jsonv.Object) { c.Set("payer", "notakey") }),
		}
		wantRefusal(t, errSig, x402.CodeSignatureMalformed) // the gate's answer check comes first
		return errs
	case 6: // amount not a u64
		return []error{build(func(c *jsonv.Object) {
			o := obj(t, c, "accepted")
			o.Set("amount", "18446744073709551616")
			obj(t, c, "required").Set("accepts", []jsonv.Value{o})
		})}
	case 7: // not base64, not decoding exactly, signature count
		short := base64.StdEncoding.EncodeToString(wire[:len(wire)-1])
		trailing := base64.StdEncoding.EncodeToString(append(append([]byte(nil), wire...), 0))
		count := append([]byte{1}, wire[1+64:]...)
		return []error{bound(accepted, "not base64!"), bound(accepted, ""), bound(accepted, short), bound(accepted, trailing),
			bound(accepted, base64.StdEncoding.EncodeToString(count)), bound(accepted, jsonv.Number(1))}
	case 8: // over 1232 bytes
		return []error{bound(accepted, base64.StdEncoding.EncodeToString(make([]byte, 1233))), bound(accepted, strings.Repeat("A", 1652))}
	case 9: // the option fails the filter
		o := accepted.Clone()
		o.Set("network", "eip155:1")
		return []error{bound(o, str(t, v2, "wireBase64"))}
	}
	t.Fatalf("no inputs for agreedRefusals row %d", i)
	return nil
}

// rebuildWithout is tx's wire with the instructions of program dropped
// (the same keys, so the message still decodes).
func rebuildWithout(t *testing.T, tx *solana.Tx, program solana.Key) string {
	t.Helper()
	var kept []solana.Instruction
	for _, ix := range tx.Instructions {
		if k, _ := tx.ProgramOf(ix); k != program {
			kept = append(kept, ix)
		}
	}
	msg := []byte{0x80, byte(tx.Required), byte(tx.ReadonlySigned), byte(tx.ReadonlyUnsigned), byte(len(tx.Keys))}
	for _, k := range tx.Keys {
		msg = append(msg, k[:]...)
	}
	msg = append(msg, tx.Blockhash[:]...)
	msg = append(msg, byte(len(kept)))
	for _, ix := range kept {
		msg = append(msg, ix.Program, byte(len(ix.Accounts)))
		msg = append(msg, ix.Accounts...)
		msg = append(msg, byte(len(ix.Data)))
		msg = append(msg, ix.Data...)
	}
	msg = append(msg, 0)
	wire := append([]byte{byte(tx.Required)}, make([]byte, 64*tx.Required)...)
	return base64.StdEncoding.EncodeToString(append(wire, msg...))
}
