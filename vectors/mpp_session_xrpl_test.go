package vectors_test

// mpp-session-hedera-solana-xrpl.json's xrpl rows: SS1.xrpl, the xrpl rows
// of SS1refusals, XS1–XS5, plants.xrpl, the xrpl rows of agreedRefusals and
// the xrpl buyer rows B2 and B6; buyer.json's BX1; and the channel through
// the gate: OpenChannel, Within (claims), RecordCharge.

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/xrpl"
)

// xrplSessionInputs are XS2's buyer inputs (the B2 row's).
func xrplSessionInputs(t testing.TB, f *jsonv.Object) *jsonv.Object {
	for _, r := range get(t, f, "buyer", "rows").([]jsonv.Value) {
		if str(t, r, "name") == "B2" && str(t, r, "pairing") == xrpl.SessionID {
			return obj(t, r, "input", "inputs").Clone()
		}
	}
	t.Fatal("no xrpl B2 row")
	return nil
}

// xrplOpeningWith signs XS2's opening with other memos (nil: none).
func xrplOpeningWith(t testing.TB, memos []jsonv.Value) string {
	tx := jsonv.Obj("TransactionType", "PaymentChannelCreate", "Flags", 0, "Account", "r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC",
		"Amount", "1000000", "Destination", "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN", "SettleDelay", 3600,
		"PublicKey", "ED06895BEC3FDE4090F06D840770D888D49E3089B3757C4285E3851BC33964E0F9")
	if memos != nil {
		tx.Set("Memos", memos)
	}
	tx.Set("Fee", "12")
	tx.Set("Sequence", jsonv.Number(7))
	tx.Set("LastLedgerSequence", jsonv.Number(1000))
	a, err := xrplSigner(t, "xrpl:1").Sign(context.Background(), jsonv.Obj("kind", xrpl.KindTx, "txJson", tx))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(a.(string), "0x")
}

func memoOf(text string) jsonv.Value {
	return jsonv.Obj("Memo", jsonv.Obj("MemoData", strings.ToUpper(hexOf([]byte(text)))))
}

func TestMPPSessionXRPL(t *testing.T) {
	f := load(t, "mpp-session-hedera-solana-xrpl.json")
	p := xrpl.Session{}
	H := mustHash(t, "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
	placed := obj(t, f, "SS1", "xrpl", "placed")
	xs2 := obj(t, f, "XS2")
	opening := func(blob string) *jsonv.Object {
		return jsonv.Obj("challenge", placed.Clone(), "payload", jsonv.Obj("action", "open", "transaction", blob, "amount", "100", "signature", "00"))
	}

	t.Run("SS1.xrpl", func(t *testing.T) {
		c := obj(t, f, "SS1", "xrpl", "challenge")
		pairings, err := mpp.PairingsOf(c)
		if err != nil || len(pairings) != 1 || pairings[0] != xrpl.SessionID {
			t.Fatalf("pairings %v, %v", pairings, err)
		}
		link := "https://atr.seller.example/" + H.String()
		doc, err := mpp.Place([]jsonv.Value{c}, H, link, c, "")
		if err != nil || jsonv.String(doc[0]) != jsonv.String(placed) {
			t.Fatalf("placed %v, %v", doc, err)
		}
		d, err := mpp.IssuedDigest(c)
		if err != nil || d.String() != str(t, f, "SS1", "xrpl", "expectIssuedDigest") {
			t.Fatalf("issued digest %v, %v", d, err)
		}
	})
	t.Run("SS1refusals", func(t *testing.T) {
		for _, r := range get(t, f, "SS1refusals").([]jsonv.Value) {
			if m, _ := jsonv.AsObject(r); mpp.String(m, "method") != "xrpl" {
				continue // another rail's row, in its own pairing's test
			}
			t.Run(str(t, r, "case"), func(t *testing.T) {
				c := obj(t, f, "SS1", "xrpl", "challenge").Clone()
				c.Set("request", mpp.EncodeObject(obj(t, r, "request")))
				_, err := mpp.PairingsOf(c)
				wantRefusal(t, err, str(t, r, "expect"))
			})
		}
	})
	t.Run("XS1", func(t *testing.T) {
		a, _ := xrpl.ParseAddress(str(t, f, "XS1", "account"))
		d, _ := xrpl.ParseAddress(str(t, f, "XS1", "destination"))
		seq, _ := jsonv.AsSafeInt(get(t, f, "XS1", "sequence"))
		id := xrpl.ChannelID(a, d, uint32(seq))
		if got := strings.ToUpper(hexOf(id[:])); got != str(t, f, "XS1", "expect") {
			t.Fatalf("channel %s", got)
		}
	})
	t.Run("XS2", func(t *testing.T) {
		blob := str(t, xs2, "blob")
		n, _ := jsonv.AsSafeInt(get(t, xs2, "expectLength"))
		if len(blob)/2 != int(n) {
			t.Fatalf("%d bytes", len(blob)/2)
		}
		tx, err := xrpl.DecodePresented(blob)
		if err != nil || tx.Hash != str(t, xs2, "expectHash") {
			t.Fatalf("hash %v, %v", tx, err)
		}
		h, err := p.Bound(opening(blob))
		if err != nil || h != str(t, xs2, "expectBound") {
			t.Fatalf("bound %q, %v", h, err)
		}
		ref, err := p.ChannelRef(opening(blob))
		if err != nil || ref.Channel != str(t, xs2, "expectChannel") || ref.Network != "xrpl:1" {
			t.Fatalf("channel %v, %v", ref, err)
		}
		// The build with XS2's inputs, signed by the payer's key, is XS2's
		// blob byte for byte.
		s := newATRSeller(t)
		s.serveBytes([]byte("abc"))
		sg := xrplSigner(t, "xrpl:1")
		tr, err := s.gateFor(1_780_000_000, nil).Transact(context.Background(), []jsonv.Value{placed}, xrpl.SessionID, sg,
			&gate.TransactOptions{Inputs: xrplSessionInputs(t, f)})
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, tr.Signed, "payload", "transaction"); got != blob {
			t.Fatalf("opening %s", got)
		}
		if src := str(t, tr.Signed, "source"); src != "did:pkh:xrpl:1:r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC" {
			t.Fatalf("source %s", src)
		}
		// cancelAfter is in Ripple epoch seconds: the opening is payable
		// until cancelAfter + 946684800 Unix seconds.
		in := xrplSessionInputs(t, f)
		x, _ := in.GetObject("xrpl")
		x.Set("cancelAfter", get(t, xs2, "cancelAfter"))
		read, _ := p.Read([]jsonv.Value{placed})
		choice, err := p.Choose(read, "xrpl:1:"+str(t, xs2, "account"), in, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(choice, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		g, err := p.Summarize(req)
		until, _ := jsonv.AsSafeInt(get(t, xs2, "expectUntil"))
		if err != nil || g.PayableUntil.Unix() != until {
			t.Fatalf("until %v, %v", g.PayableUntil, err)
		}
	})
	t.Run("XS3", func(t *testing.T) {
		ch := str(t, xs2, "expectChannel")
		var id [32]byte
		copy(id[:], unhex(t, ch))
		if got := strings.ToUpper(hexOf(xrpl.ClaimBytes(id, 100))); got != str(t, f, "XS3", "expect") || str(t, f, "XS3", "drops") != "100" {
			t.Fatalf("claim %s", got)
		}
	})
	t.Run("XS4", func(t *testing.T) {
		// Open and close status rows against a loopback rippled.
		xrplSessionStatusRows(t, f)
	})
	t.Run("XS5", func(t *testing.T) {
		_, err := p.Bound(opening(str(t, f, "XS5", "blob")))
		wantRefusal(t, err, xrpl.CodeMultisigned)
	})
	t.Run("plants.xrpl", func(t *testing.T) {
		row := obj(t, f, "plants", "xrpl")
		H2 := "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
		_, err := p.Bound(opening(xrplOpeningWith(t, []jsonv.Value{memoOf("lcp:sha256:" + H2)})))
		wantRefusal(t, err, str(t, row, "expectH2"))
		_, err = p.Bound(opening(xrplOpeningWith(t, nil)))
		wantRefusal(t, err, str(t, row, "expectNoMemo"))
	})
	t.Run("agreedRefusals", func(t *testing.T) {
		for _, r := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			name := str(t, r, "case")
			if !strings.Contains(name, "xrpl") && !strings.Contains(name, "bound of a credential") && !strings.Contains(name, "XRPL") {
				continue // another rail's row
			}
			t.Run(name, func(t *testing.T) {
				var errs []error
				switch {
				case strings.Contains(name, "recipient"):
					c := obj(t, f, "SS1", "xrpl", "challenge").Clone()
					c.Set("request", mpp.EncodeObject(jsonv.Obj("amount", "100", "methodDetails", jsonv.Obj("network", "testnet"), "recipient", "0x742d35cc6634c0532925a3b844bc9e7595f8fe00")))
					_, err := mpp.PairingsOf(c)
					errs = append(errs, err)
				case strings.Contains(name, "memos"):
					var memos []jsonv.Value
					for i := 0; i < 9; i++ {
						memos = append(memos, memoOf("note"))
					}
					memos[0] = memoOf("lcp:sha256:" + H.String())
					_, err := p.Bound(opening(xrplOpeningWith(t, memos)))
					errs = append(errs, err)
					// Two LCP memos among eight are as ambiguous.
					_, err = p.Bound(opening(xrplOpeningWith(t, []jsonv.Value{memoOf("lcp:sha256:" + H.String()), memoOf("lcp:sha256:" + H.String())})))
					errs = append(errs, err)
				case strings.Contains(name, "xrplChannelId"):
					// A build whose recipient reads as an address but fails its
					// checksum cannot name a channel.
					c := obj(t, f, "SS1", "xrpl", "challenge").Clone()
					c.Set("request", mpp.EncodeObject(jsonv.Obj("amount", "100", "channelId", "", "methodDetails", jsonv.Obj("network", "testnet"), "recipient", "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyM")))
					doc, err := mpp.Place([]jsonv.Value{c}, H, "https://atr.seller.example/x", c, "")
					if err != nil {
						t.Fatal(err)
					}
					co, _ := jsonv.AsObject(doc[0])
					_, err = p.Build(jsonv.Obj("challenge", co, "from", "r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC", "now", 0, "deposit", "1000000",
						"xrpl", jsonv.Obj("publicKey", "ED06", "settleDelay", 3600, "fee", "12", "sequence", 7, "lastLedgerSequence", 1000)), nil, H)
					errs = append(errs, err)
				case strings.Contains(name, "action is not open"):
					cred := opening(str(t, xs2, "blob"))
					payload, _ := cred.GetObject("payload")
					payload.Set("action", "voucher")
					_, err := p.Bound(cred)
					errs = append(errs, err)
				case strings.Contains(name, "build with a malformed"):
					for _, m := range []func(c, x *jsonv.Object){
						func(c, _ *jsonv.Object) { c.Set("deposit", "0") },
						func(c, _ *jsonv.Object) { c.Set("deposit", "18446744073709551616") },
						func(c, _ *jsonv.Object) { c.Set("from", jsonv.Number(1)) },
						func(_, x *jsonv.Object) { x.Set("publicKey", "ED0") },
						func(_, x *jsonv.Object) { x.Set("fee", "012") },
						func(_, x *jsonv.Object) { x.Set("settleDelay", jsonv.Number(1<<32)) },
						func(_, x *jsonv.Object) { x.Set("cancelAfter", jsonv.Number(-1)) },
					} {
						read, _ := p.Read([]jsonv.Value{placed})
						choice, err := p.Choose(read, "xrpl:1:r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC", xrplSessionInputs(t, f), 0, "")
						if err != nil {
							t.Fatal(err)
						}
						c, _ := jsonv.AsObject(choice)
						x, _ := c.GetObject("xrpl")
						m(c, x)
						_, err = p.Build(c, nil, H)
						errs = append(errs, err)
					}
				default:
					t.Skipf("not an xrpl row the buyer reaches: %s", name)
				}
				for _, err := range errs {
					wantRefusal(t, err, str(t, r, "expect"))
				}
			})
		}
	})
	t.Run("buyer", func(t *testing.T) {
		rows := obj(t, f, "buyer").Clone()
		var mine []jsonv.Value
		for _, r := range get(t, f, "buyer", "rows").([]jsonv.Value) {
			if str(t, r, "pairing") == xrpl.SessionID {
				mine = append(mine, r)
			}
		}
		rows.Set("rows", mine)
		xrplBuyerRows(t, jsonv.Obj("buyer", rows))
	})
}

// runBX1 is buyer.json's BX1: each document's session amount that is not a
// u64 string of drops offers no payable option and signs nothing; "100"
// signs one xrpl-session-open request.
func runBX1(t *testing.T, r *jsonv.Object) {
	in := obj(t, r, "input")
	for _, c := range get(t, in, "cases").([]jsonv.Value) {
		t.Run(str(t, c, "case"), func(t *testing.T) {
			s := newATRSeller(t)
			s.serveBytes(unhex(t, str(t, in, "servesHex")))
			sg := xrplSigner(t, "xrpl:1")
			if sg.Account() != str(t, in, "account") {
				t.Fatalf("account %s", sg.Account())
			}
			doc := get(t, c, "doc")
			_, err := s.gateFor(1_780_000_000, nil).Transact(context.Background(), doc, str(t, in, "pairing"), sg,
				&gate.TransactOptions{Inputs: obj(t, in, "inputs")})
			want := obj(t, c, "expect")
			calls, _ := jsonv.AsSafeInt(get(t, want, "signCalls"))
			if sg.calls.Load() != calls {
				t.Fatalf("%d signer calls, want %d", sg.calls.Load(), calls)
			}
			if want.Has("decline") {
				wantDecline(t, err, gate.Code(str(t, want, "decline")), str(t, want, "detail"))
				ch, _ := jsonv.AsArray(doc)
				_, rerr := mpp.PairingsOf(withoutOpaque(ch[0]))
				wantRefusal(t, rerr, str(t, want, "refusal"))
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if k, _ := sg.seen[0].GetString("kind"); k != str(t, want, "signRequestKind") {
				t.Fatalf("request kind %s", k)
			}
		})
	}
}

func withoutOpaque(v jsonv.Value) *jsonv.Object {
	o, _ := jsonv.AsObject(v)
	o = o.Clone()
	o.Delete("opaque")
	return o
}

// TestXRPLChannel: the session through the gate. The opening is held, a
// voucher challenge naming the held channel gets a claim for the recorded
// charge plus its amount, signed by the channel key and verified; another
// channel is refused; the close signs the recorded charge.
func TestXRPLChannel(t *testing.T) {
	f := load(t, "mpp-session-hedera-solana-xrpl.json")
	placed := obj(t, f, "SS1", "xrpl", "placed")
	s := newATRSeller(t)
	s.serveBytes([]byte("abc"))
	g := s.gateFor(1_780_000_000, nil)
	sg := xrplSigner(t, "xrpl:1")
	tr, err := g.Transact(context.Background(), []jsonv.Value{placed}, xrpl.SessionID, sg,
		&gate.TransactOptions{Inputs: xrplSessionInputs(t, f)})
	if err != nil {
		t.Fatal(err)
	}
	hold, err := g.OpenChannel([]byte("abc"), xrpl.SessionID, tr.Signed, nil)
	if err != nil {
		t.Fatal(err)
	}
	channel := str(t, f, "XS2", "expectChannel")
	if hold.Channel != channel || hold.Network != "xrpl:1" || hold.SignedMax != "100" {
		t.Fatalf("hold %s", jsonv.String(hold.JSON()))
	}
	if hold, err = gate.RecordCharge(hold, "100"); err != nil {
		t.Fatal(err)
	}
	within := func(ch, amount string) jsonv.Value {
		c := jsonv.Obj("realm", "api.seller.example", "method", "xrpl", "intent", "session",
			"request", mpp.EncodeB64URL([]byte(`{"amount":"`+amount+`","channelId":"`+ch+`","methodDetails":{"network":"testnet"},"recipient":"rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN"}`)),
			"expires", "2026-09-21T14:14:20Z", "id", "seller-own-id")
		return []jsonv.Value{c}
	}
	before := sg.calls.Load()
	r, err := g.Within(context.Background(), within(strings.ToLower(channel), "250"), hold, xrpl.SessionID, sg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sg.calls.Load() != before+1 {
		t.Fatal("one signer call per claim")
	}
	payload := obj(t, r.Signed, "payload")
	if str(t, payload, "amount") != "350" || str(t, payload, "channelId") != channel || str(t, payload, "action") != "voucher" {
		t.Fatalf("claim %s", jsonv.String(payload))
	}
	var id [32]byte
	copy(id[:], unhex(t, channel))
	key, _ := xrpl.KeyFromEntropy(unhex(t, "01010101010101010101010101010101"), xrpl.Ed25519)
	if !xrpl.Verify(key.PublicKey(), xrpl.ClaimBytes(id, 350), unhex(t, str(t, payload, "signature"))) {
		t.Fatal("the claim does not verify for 350 drops")
	}
	if r.Hold.SignedMax != "350" {
		t.Fatalf("signedMax %s", r.Hold.SignedMax)
	}
	hold, err = gate.RecordCharge(r.Hold, "350")
	if err != nil {
		t.Fatal(err)
	}
	// Another channel on the network is refused before anything is signed.
	before = sg.calls.Load()
	_, err = g.Within(context.Background(), within(strings.Repeat("AB", 32), "1"), hold, xrpl.SessionID, sg, nil, nil)
	wantDecline(t, err, gate.NoPayableOption, "")
	if sg.calls.Load() != before {
		t.Fatal("signed for another channel")
	}
	// The close signs the recorded charge.
	r, err = g.Within(context.Background(), within(channel, "1"), hold, xrpl.SessionID, sg, &gate.Refund{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := obj(t, r.Signed, "payload"); str(t, p, "action") != "close" || str(t, p, "amount") != "350" {
		t.Fatalf("close %s", jsonv.String(p))
	}
	// A cumulative past a u64 is refused by the builder.
	if _, err := (xrpl.Session{}).BuildWithin(rails.Within{Challenge: obj(t, within(channel, "1").([]jsonv.Value)[0]), Opening: hold.Opening,
		Cumulative: new(big.Int).Lsh(big.NewInt(1), 64), Action: rails.WithinVoucher}, atr.Sum([]byte("abc"))); err == nil {
		t.Fatal("2^64 drops built")
	}
}
