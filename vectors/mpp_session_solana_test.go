package vectors_test

// mpp-session-hedera-solana-xrpl.json's solana rows: SS1.solana, the solana
// row of SS1refusals, SV1–SV5, plants.solana, the solana rows of
// agreedRefusals and the solana buyer rows B2 and B6; and the channel
// through the gate: OpenChannel, Within (vouchers and the close),
// RecordCharge. The payer is x402-exact-solana.json's published seed.

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"math/big"
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

const solanaDevnetNet = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"

// solanaPayer is the payer of the Solana vectors (seed 01×32), counted.
func solanaPayer(t testing.TB) (*countingSigner, ed25519.PrivateKey) {
	t.Helper()
	seed := str(t, load(t, "x402-exact-solana.json"), "fixed", "payerSeed")
	s, err := signer.SolanaFromSeedHex(seed, solanaDevnetNet)
	if err != nil {
		t.Fatal(err)
	}
	return &countingSigner{inner: s}, ed25519.NewKeyFromSeed(unhex(t, seed))
}

// solanaOpening is the opening credential answering placed with wire.
func solanaOpening(placed *jsonv.Object, channel, wire string) *jsonv.Object {
	return jsonv.Obj("challenge", placed.Clone(), "payload", jsonv.Obj("action", "open", "channelId", channel, "transaction", wire))
}

// withDetails is c with its request's methodDetails extended by extra.
func withDetails(t testing.TB, c *jsonv.Object, extra *jsonv.Object) *jsonv.Object {
	t.Helper()
	c = c.Clone()
	req, ok := mpp.DecodeObject(mpp.String(c, "request"))
	if !ok {
		t.Fatal("request")
	}
	d, _ := req.GetObject("methodDetails")
	for _, m := range extra.Members() {
		d.Set(m.Key, m.Value)
	}
	c.Set("request", mpp.EncodeB64URL(jsonv.Marshal(req)))
	return c
}

// channelClient answers solana-session-open with a fixed open payload, as
// the reference gates' tests do, and passes every other request to inner.
type channelClient struct {
	inner gate.Signer
	open  jsonv.Value
}

func (c *channelClient) Account() string { return c.inner.Account() }

func (c *channelClient) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	if k, _ := req.GetString("kind"); k == solana.KindSessionOpen {
		return jsonv.Clone(c.open), nil
	}
	return c.inner.Sign(ctx, req)
}

func TestMPPSessionSolana(t *testing.T) {
	f := load(t, "mpp-session-hedera-solana-xrpl.json")
	p := solana.Session{}
	H := mustHash(t, str(t, f, "fixed", "H"))
	placed := obj(t, f, "SS1", "solana", "placed")
	sv2 := obj(t, f, "SV2")
	opening := solanaOpening(placed, str(t, sv2, "channel"), str(t, sv2, "wireBase64"))

	t.Run("SS1.solana", func(t *testing.T) {
		c := obj(t, f, "SS1", "solana", "challenge")
		pairings, err := mpp.PairingsOf(c)
		if err != nil || len(pairings) != 1 || pairings[0] != solana.SessionID {
			t.Fatalf("pairings %v, %v", pairings, err)
		}
		doc, err := mpp.Place([]jsonv.Value{c}, H, str(t, f, "fixed", "link"), c, "")
		if err != nil || jsonv.String(doc[0]) != jsonv.String(placed) {
			t.Fatalf("placed %v, %v", doc, err)
		}
		d, err := mpp.IssuedDigest(c)
		if err != nil || d.String() != str(t, f, "SS1", "solana", "expectIssuedDigest") {
			t.Fatalf("issued digest %v, %v", d, err)
		}
	})
	t.Run("SS1refusals", func(t *testing.T) {
		n := 0
		for _, r := range get(t, f, "SS1refusals").([]jsonv.Value) {
			if m, _ := jsonv.AsObject(r); mpp.String(m, "method") != "solana" {
				continue // another rail's row, in its own pairing's test
			}
			n++
			t.Run(str(t, r, "case"), func(t *testing.T) {
				c := obj(t, f, "SS1", "solana", "challenge").Clone()
				c.Set("request", mpp.EncodeObject(obj(t, r, "request")))
				_, err := mpp.PairingsOf(c)
				wantRefusal(t, err, str(t, r, "expect"))
			})
		}
		if n == 0 {
			t.Fatal("no solana row")
		}
	})
	t.Run("SV1", func(t *testing.T) {
		salt := solana.SessionSalt(H)
		if strconv.FormatUint(salt, 10) != str(t, f, "SV1", "expectSalt") {
			t.Fatalf("salt %d", salt)
		}
		if got := "0x" + strconv.FormatUint(salt, 16); got != str(t, f, "SV1", "expectSaltHex") {
			t.Fatalf("salt hex %s", got)
		}
	})
	t.Run("SV2", func(t *testing.T) {
		wire, err := base64.StdEncoding.DecodeString(str(t, sv2, "wireBase64"))
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := jsonv.AsSafeInt(get(t, sv2, "wireLength")); len(wire) != int(n) {
			t.Fatalf("%d bytes", len(wire))
		}
		tx, ok, _ := solana.DecodeTx(wire)
		if !ok {
			t.Fatal("the wire does not decode")
		}
		digest := sha256.Sum256(tx.Message)
		if "0x"+hexOf(digest[:]) != str(t, sv2, "expectMessageSha256") || !strings.Contains(hexOf(tx.Message), str(t, sv2, "expectOpenData")) {
			t.Fatalf("message %x", digest)
		}
		h, err := p.Bound(opening)
		if err != nil || h != str(t, sv2, "expectBound") {
			t.Fatalf("bound %q, %v", h, err)
		}
		ref, err := p.Reference(opening)
		if err != nil || jsonv.String(ref) != jsonv.String(obj(t, sv2, "expectReference")) {
			t.Fatalf("reference %v, %v", ref, err)
		}
		cref, err := p.ChannelRef(opening)
		if err != nil || cref.Channel != str(t, sv2, "channel") || cref.Network != solanaDevnetNet {
			t.Fatalf("channel %v, %v", cref, err)
		}
		// The gate builds the open from SS1's challenge, the local signer
		// signs it as the channel client, and the credential is SV2's
		// opening byte for byte.
		s := newATRSeller(t)
		s.serveBytes([]byte("abc"))
		sg, _ := solanaPayer(t)
		tr, err := s.gateFor(1_780_000_000, nil).Transact(context.Background(), []jsonv.Value{placed}, solana.SessionID, sg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if jsonv.String(tr.Signed) != jsonv.String(opening) {
			t.Fatalf("opening %s", jsonv.String(tr.Signed))
		}
		if sg.calls.Load() != 1 || str(t, sg.seen[0], "salt") != str(t, f, "SV1", "expectSalt") {
			t.Fatalf("%d signer calls, request %s", sg.calls.Load(), jsonv.String(sg.seen[0]))
		}
		// What the spend policy is shown: the whole deposit, to the payee.
		g, err := p.Summarize(sg.seen[0])
		if err != nil || g.Amount.String() != "10000000" || g.Payee != "2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4" ||
			g.Asset != "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" || g.Payer != str(t, f, "SV3", "payer") || g.Network != solanaDevnetNet {
			t.Fatalf("grant %+v, %v", g, err)
		}
	})
	t.Run("SV3", func(t *testing.T) {
		sv3 := obj(t, f, "SV3")
		want := unhex(t, str(t, sv3, "expectVoucher"))
		ch, cumulative, expires, ok := solana.ParseVoucher(want)
		if !ok || ch.String() != str(t, sv2, "channel") || expires != 0 {
			t.Fatalf("voucher %v %d %d", ok, cumulative, expires)
		}
		// The voucher the channel builds for that cumulative amount in
		// SV2's channel, for its payer.
		within := withDetails(t, placed, jsonv.Obj("channelId", str(t, sv2, "channel")))
		u, err := p.BuildWithin(rails.Within{Challenge: within, Opening: opening, Cumulative: new(big.Int).SetUint64(cumulative), Action: rails.WithinVoucher}, H)
		if err != nil {
			t.Fatal(err)
		}
		req := u.Requests()[0]
		if str(t, req, "message") != "0x"+str(t, sv3, "expectVoucher") || str(t, req, "signer") != str(t, sv3, "payer") {
			t.Fatalf("request %s", jsonv.String(req))
		}
		proof := solana.SessionProof(str(t, sv2, "channel"), str(t, sv3, "payer"), str(t, f, "fixed", "MV1"))
		if string(proof) != str(t, sv3, "expectProofText") {
			t.Fatalf("proof %s", proof)
		}
		d := hex.EncodeToString(sha256Of(proof))
		if !strings.HasPrefix(d, str(t, sv3, "expectProofSha256Prefix")) || !strings.HasSuffix(d, str(t, sv3, "expectProofSha256Suffix")) {
			t.Fatalf("proof sha256 %s", d)
		}
		_, key := solanaPayer(t)
		sig := hex.EncodeToString(ed25519.Sign(key, proof))
		if !strings.HasPrefix(sig, str(t, sv3, "expectProofSignaturePrefix")) || !strings.HasSuffix(sig, str(t, sv3, "expectProofSignatureSuffix")) {
			t.Fatalf("proof signature %s", sig)
		}
	})
	// SV4: a reported close landed with a top-level channel-program
	// instruction naming SV2's channel: data 04 (settleAndSeal) is the
	// close, data 02 is not. The row gives no wire; this one is compiled
	// here, fee-paid and signed by a seller key from a fixed seed.
	t.Run("SV4", func(t *testing.T) {
		const network = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
		program := solana.MustKey("CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX")
		channel := solana.MustKey(str(t, sv2, "channel"))
		payee := solana.MustKey("2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4")
		clock := solana.MustKey("SysvarC1ock11111111111111111111111111111111")
		seed := sha256Of([]byte("SV4 seller fee payer"))
		seller := ed25519.NewKeyFromSeed(seed)
		var feePayer solana.Key
		copy(feePayer[:], seller.Public().(ed25519.PublicKey))
		for _, c := range []struct {
			name string
			data byte
			want string
		}{{"data04", 4, `{"state":"settled","commitment":"finalized"}`}, {"data02", 2, `{"state":"failed","why":"not-a-close"}`}} {
			t.Run(c.name, func(t *testing.T) {
				msg := solana.CompileV0(feePayer, solana.MustKey("EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k"), []solana.Ix{{
					Program: program, Data: []byte{c.data},
					Accounts: []solana.AccountMeta{{Key: payee, Writable: true}, {Key: channel, Writable: true}, {Key: clock}},
				}})
				sig := ed25519.Sign(seller, msg)
				wire, ok := solana.SignedWire(msg, feePayer, sig)
				if !ok {
					t.Fatal("wire")
				}
				txid := solana.Base58(sig)
				node, reader := svmNode(t, network, false)
				node.Txs[txid] = solanarpc.NodeTx{Slot: 352114200, Wire: wire, Finalized: true}
				ref := jsonv.Obj("phase", "close", "network", network, "program", program.String(), "channel", channel.String(), "transaction", txid)
				if got := jsonv.String(solana.CloseStatus(ref, reader).JSON()); got != c.want {
					t.Fatalf("status %s, want %s", got, c.want)
				}
			})
		}
	})
	t.Run("SV5", func(t *testing.T) {
		sv5, sv3 := obj(t, f, "SV5"), obj(t, f, "SV3")
		c := withDetails(t, obj(t, f, "SS1", "solana", "challenge"), obj(t, sv5, "methodDetails"))
		doc, err := mpp.Place([]jsonv.Value{c}, H, str(t, f, "fixed", "link"), c, "")
		if err != nil {
			t.Fatal(err)
		}
		docPlaced, _ := jsonv.AsObject(doc[0])
		s := newATRSeller(t)
		s.serveBytes([]byte("abc"))
		payer, _ := solanaPayer(t)
		// The channel client answers SV2's open; the payer's own key
		// signs the session proof.
		open := jsonv.Obj("action", "open", "channelId", str(t, sv2, "channel"), "transaction", str(t, sv2, "wireBase64"))
		sg := &countingSigner{inner: &channelClient{inner: payer.inner, open: open}}
		tr, err := s.gateFor(1_780_000_000, nil).Transact(context.Background(), doc, solana.SessionID, sg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, r := range sg.seen {
			kinds = append(kinds, str(t, r, "kind"))
		}
		if jsonv.String(toValues(kinds)) != jsonv.String(get(t, sv5, "expectRequestKinds")) {
			t.Fatalf("request kinds %v", kinds)
		}
		if msg := unhex(t, strings.TrimPrefix(str(t, sg.seen[1], "message"), "0x")); string(msg) != str(t, sv3, "expectProofText") ||
			str(t, sg.seen[1], "signer") != str(t, sv3, "payer") {
			t.Fatalf("proof request %s", jsonv.String(sg.seen[1]))
		}
		auth := obj(t, tr.Signed, "payload", "authentication")
		var keys []string
		for _, m := range auth.Members() {
			keys = append(keys, m.Key)
		}
		if jsonv.String(toValues(keys)) != jsonv.String(get(t, sv5, "expectAuthenticationKeys")) {
			t.Fatalf("authentication keys %v", keys)
		}
		wantAuth := obj(t, sv5, "expectAuthentication").Clone()
		wantAuth.Set("signature", str(t, auth, "signature"))
		if jsonv.String(auth) != jsonv.String(wantAuth) {
			t.Fatalf("authentication %s", jsonv.String(auth))
		}
		raw, _ := solana.DecodeBase58(str(t, auth, "signature"))
		if sig := hexOf(raw); !strings.HasPrefix(sig, str(t, sv3, "expectProofSignaturePrefix")) || !strings.HasSuffix(sig, str(t, sv3, "expectProofSignatureSuffix")) {
			t.Fatalf("proof signature %s", sig)
		}
		if h, err := p.Bound(tr.Signed); err != nil || h != H.String() {
			t.Fatalf("bound %q, %v", h, err)
		}
		if payload := obj(t, tr.Signed, "payload"); str(t, payload, "transaction") != str(t, sv2, "wireBase64") || str(t, payload, "action") != "open" {
			t.Fatalf("payload %s", jsonv.String(payload))
		}
		use := tr.Signed.(*jsonv.Object).Clone()
		obj(t, use, "payload").Set("action", "use")
		if h, err := p.BoundWithin(use); err != nil || h != H.String() {
			t.Fatalf("use bound %q, %v", h, err)
		}
		// Without operator mode the open alone completes the credential.
		sg = &countingSigner{inner: &channelClient{inner: payer.inner, open: open}}
		tr, err = s.gateFor(1_780_000_000, nil).Transact(context.Background(), []jsonv.Value{placed}, solana.SessionID, sg, nil)
		if err != nil || sg.calls.Load() != 1 || obj(t, tr.Signed, "payload").Has("authentication") {
			t.Fatalf("client mode: %d calls, %v", sg.calls.Load(), err)
		}
		// The operator's own composition signs for the operator: the
		// local signer's opening names it as the voucher signer.
		sg = &countingSigner{inner: payer.inner}
		tr, err = s.gateFor(1_780_000_000, nil).Transact(context.Background(), doc, solana.SessionID, sg, nil)
		if err != nil || sg.calls.Load() != 2 {
			t.Fatalf("local signer: %d calls, %v", sg.calls.Load(), err)
		}
		wire, _ := base64.StdEncoding.DecodeString(str(t, tr.Signed, "payload", "transaction"))
		tx, _, _ := solana.DecodeTx(wire)
		o, err := solana.OpenOf(tx, solana.MustKey("CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX"))
		if err != nil || o.AuthorizedSigner.String() != str(t, sv5, "methodDetails", "operator") || o.Channel.String() != str(t, tr.Signed, "payload", "channelId") {
			t.Fatalf("operator open %+v, %v", o, err)
		}
		// An operator channel's vouchers are the operator's.
		within := withDetails(t, docPlaced, jsonv.Obj("channelId", o.Channel.String()))
		if _, err := p.BuildWithin(rails.Within{Challenge: within, Opening: tr.Signed.(*jsonv.Object), Cumulative: big.NewInt(1), Action: rails.WithinVoucher}, H); err == nil {
			t.Fatal("built an operator channel's voucher")
		} else {
			wantRefusal(t, err, solana.CodeWithinActionNotBuilt)
		}
	})
	t.Run("plants.solana", func(t *testing.T) {
		row := obj(t, f, "plants", "solana")
		wire := str(t, row, "wireBase64")
		raw, _ := base64.StdEncoding.DecodeString(wire)
		d := hexOf(sha256Of(raw))
		if !strings.HasPrefix(d, str(t, row, "expectWireSha256Prefix")) || !strings.HasSuffix(d, str(t, row, "expectWireSha256Suffix")) {
			t.Fatalf("wire sha256 %s", d)
		}
		H2 := mustHash(t, str(t, f, "fixed", "H2"))
		if strconv.FormatUint(solana.SessionSalt(H2), 10) != str(t, row, "expectSaltH2") {
			t.Fatal("H2's salt")
		}
		_, err := p.Bound(solanaOpening(placed, str(t, row, "channel"), wire))
		wantRefusal(t, err, str(t, row, "expect"))
		// Through the gate: finish over the plant declines signed-not-bound.
		s := newATRSeller(t)
		s.serveBytes([]byte("abc"))
		payer, _ := solanaPayer(t)
		sg := &countingSigner{inner: &channelClient{inner: payer.inner, open: jsonv.Obj("action", "open", "channelId", str(t, row, "channel"), "transaction", wire)}}
		_, err = s.gateFor(1_780_000_000, nil).Transact(context.Background(), []jsonv.Value{placed}, solana.SessionID, sg, nil)
		wantDecline(t, err, gate.SignedNotBound, "")
		// A use whose proof names another challenge binds nothing.
		use := opening.Clone()
		obj(t, use, "payload").Set("action", "use")
		obj(t, use, "payload").Set("authentication", jsonv.Obj("type", "proof", "challengeId", str(t, row, "useWrongChallengeId"),
			"payer", str(t, f, "SV3", "payer"), "signature", "1"))
		_, err = p.BoundWithin(use)
		wantRefusal(t, err, str(t, row, "expectUse"))
	})
	t.Run("agreedRefusals", func(t *testing.T) {
		for _, r := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
			name := str(t, r, "case")
			if !strings.Contains(name, "solana") && !strings.Contains(name, "bound of a credential") && !strings.Contains(name, "build with a malformed") {
				continue // another rail's row
			}
			t.Run(name, func(t *testing.T) {
				var errs []error
				switch {
				case strings.Contains(name, "network is absent"):
					for _, network := range []jsonv.Value{nil, "testnet", jsonv.Number(1), "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"} {
						c := obj(t, f, "SS1", "solana", "challenge").Clone()
						rq, _ := mpp.DecodeObject(mpp.String(c, "request"))
						d, _ := rq.GetObject("methodDetails")
						if network == nil {
							d.Delete("network")
						} else {
							d.Set("network", network)
						}
						c.Set("request", mpp.EncodeObject(rq))
						_, err := mpp.PairingsOf(c)
						errs = append(errs, err)
					}
				case strings.Contains(name, "solanaVoucher"):
					ch := str(t, sv2, "channel")
					for _, c := range []struct {
						channel             string
						cumulative, expires *big.Int
					}{
						{"not-a-key", big.NewInt(1), big.NewInt(0)},
						{ch[:len(ch)-1] + "0", big.NewInt(1), big.NewInt(0)}, // 0 is not base58
						{ch + ch, big.NewInt(1), big.NewInt(0)},
						{ch, new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(0)},
						{ch, big.NewInt(-1), big.NewInt(0)},
						{ch, big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 63)},
						{ch, big.NewInt(1), new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63)).Sub(new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63)), big.NewInt(1))},
					} {
						_, err := solana.VoucherFor(c.channel, c.cumulative, c.expires)
						errs = append(errs, err)
					}
					// The control: in range, SV3's voucher.
					if b, err := solana.VoucherFor(ch, big.NewInt(100), big.NewInt(0)); err != nil || hexOf(b) != str(t, f, "SV3", "expectVoucher") {
						t.Fatalf("voucher %x, %v", b, err)
					}
				case strings.Contains(name, "action is not open"):
					cred := opening.Clone()
					obj(t, cred, "payload").Set("action", "voucher")
					_, err := p.Bound(cred)
					errs = append(errs, err)
				case strings.Contains(name, "build with a malformed"):
					read, _ := p.Read([]jsonv.Value{placed})
					for _, m := range []func(c *jsonv.Object){
						func(c *jsonv.Object) { c.Set("from", "0x742d35cc6634c0532925a3b844bc9e7595f8fe00") },
						func(c *jsonv.Object) { c.Set("deposit", "0") },
						func(c *jsonv.Object) { c.Set("deposit", "18446744073709551616") },
					} {
						choice, err := p.Choose(read, solanaDevnetNet+":"+str(t, f, "SV3", "payer"), &jsonv.Object{}, 0, "")
						if err != nil {
							t.Fatal(err)
						}
						c := choice.(*jsonv.Object)
						m(c)
						_, err = p.Build(c, nil, H)
						errs = append(errs, err)
					}
				default:
					t.Skipf("not a solana row the buyer reaches: %s", name)
				}
				for _, err := range errs {
					wantRefusal(t, err, str(t, r, "expect"))
				}
			})
		}
	})
	t.Run("buyer", func(t *testing.T) {
		for _, r := range get(t, f, "buyer", "rows").([]jsonv.Value) {
			if str(t, r, "pairing") != solana.SessionID {
				continue
			}
			t.Run(str(t, r, "name"), func(t *testing.T) {
				in := obj(t, r, "input")
				if str(t, r, "name") == "B6" {
					presented := get(t, in, "presented")
					checks := get(t, in, "check").([]jsonv.Value)
					expects := get(t, r, "expect").([]jsonv.Value)
					g := &gate.Gate{}
					h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), solana.SessionID, presented)
					if err != nil || h.String() != str(t, expects[0], "h") {
						t.Fatalf("check = %v, %v", h, err)
					}
					_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), solana.SessionID, presented)
					wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
					return
				}
				s := newATRSeller(t)
				s.serveBytes(unhex(t, str(t, in, "servesHex")))
				sg, _ := solanaPayer(t)
				if sg.Account() != str(t, in, "account") {
					t.Fatalf("signer account %s", sg.Account())
				}
				_, err := s.gateFor(1_780_000_000, nil).Transact(context.Background(), get(t, in, "doc"), solana.SessionID, sg, nil)
				wantDecline(t, err, gate.Code(str(t, r, "expect", "decline")), "")
				if sg.calls.Load() != 0 || s.fetches.Load() != 1 {
					t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), s.fetches.Load())
				}
			})
		}
	})
}

func sha256Of(b []byte) []byte {
	d := sha256.Sum256(b)
	return d[:]
}

// TestSolanaChannel: the session through the gate. SV2's opening, paid by
// the local signer, is held; a challenge naming the held channel gets a
// voucher for the recorded charge plus its amount, signed by the payer the
// open named and verified; another channel is refused before the signer is
// asked; the close signs the recorded charge.
func TestSolanaChannel(t *testing.T) {
	f := load(t, "mpp-session-hedera-solana-xrpl.json")
	placed := obj(t, f, "SS1", "solana", "placed")
	s := newATRSeller(t)
	s.serveBytes([]byte("abc"))
	g := s.gateFor(1_780_000_000, nil)
	sg, key := solanaPayer(t)
	tr, err := g.Transact(context.Background(), []jsonv.Value{placed}, solana.SessionID, sg, nil)
	if err != nil {
		t.Fatal(err)
	}
	hold, err := g.OpenChannel([]byte("abc"), solana.SessionID, tr.Signed, nil)
	if err != nil {
		t.Fatal(err)
	}
	channel := str(t, f, "SV2", "channel")
	if hold.Channel != channel || hold.Network != solanaDevnetNet || hold.SignedMax != "0" {
		t.Fatalf("hold %s", jsonv.String(hold.JSON()))
	}
	// Nothing is signed in the channel yet: no charge can be recorded.
	if _, err := gate.RecordCharge(hold, "1"); err == nil {
		t.Fatal("recorded a charge above what was signed")
	}
	within := func(ch, amount string) jsonv.Value {
		c := withDetails(t, placed, jsonv.Obj("channelId", ch))
		req, _ := mpp.DecodeObject(mpp.String(c, "request"))
		req.Set("amount", amount)
		c.Set("request", mpp.EncodeObject(req))
		c.Delete("opaque")
		c.Set("id", "seller-own-id")
		return []jsonv.Value{c}
	}
	before := sg.calls.Load()
	r, err := g.Within(context.Background(), within(channel, "250"), hold, solana.SessionID, sg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sg.calls.Load() != before+1 {
		t.Fatal("one signer call per voucher")
	}
	payload := obj(t, r.Signed, "payload")
	v := obj(t, payload, "voucher")
	if str(t, payload, "action") != "voucher" || str(t, payload, "channelId") != channel || str(t, v, "voucher", "cumulativeAmount") != "250" ||
		str(t, v, "signer") != str(t, f, "SV3", "payer") || str(t, v, "signatureType") != "ed25519" {
		t.Fatalf("voucher %s", jsonv.String(payload))
	}
	sig, _ := solana.DecodeBase58(str(t, v, "signature"))
	msg, _ := solana.VoucherFor(channel, big.NewInt(250), big.NewInt(0))
	if !ed25519.Verify(key.Public().(ed25519.PublicKey), msg, sig) {
		t.Fatal("the voucher does not verify for 250")
	}
	if r.Hold.SignedMax != "250" {
		t.Fatalf("signedMax %s", r.Hold.SignedMax)
	}
	hold, err = gate.RecordCharge(r.Hold, "250")
	if err != nil {
		t.Fatal(err)
	}
	r, err = g.Within(context.Background(), within(channel, "25"), hold, solana.SessionID, sg, nil, nil)
	if err != nil || str(t, r.Signed, "payload", "voucher", "voucher", "cumulativeAmount") != "275" {
		t.Fatalf("second voucher %v", err)
	}
	hold, _ = gate.RecordCharge(r.Hold, "275")
	// What the spend policy is shown for a voucher: its cumulative amount
	// in the held channel, from the opening's payer to its payee.
	gr, err := solana.Session{}.SummarizeWithin(jsonv.Obj("kind", "batch", "requests", []jsonv.Value{
		jsonv.Obj("kind", solana.KindEd25519Raw, "message", "0x"+hexOf(msg), "signer", str(t, f, "SV3", "payer"))}), hold.Opening)
	if err != nil || gr.Amount.String() != "250" || gr.Payee != "2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4" || gr.Network != solanaDevnetNet {
		t.Fatalf("within grant %+v, %v", gr, err)
	}
	// Another channel on the network is refused before anything is signed.
	before = sg.calls.Load()
	_, err = g.Within(context.Background(), within("C2beJBW1reYrCRtMtrk1nszBLY7SQCfDTaUQR7JauRAw", "1"), hold, solana.SessionID, sg, nil, nil)
	wantDecline(t, err, gate.NoPayableOption, "")
	if sg.calls.Load() != before {
		t.Fatal("signed for another channel")
	}
	// The close signs the recorded charge.
	r, err = g.Within(context.Background(), within(channel, "1"), hold, solana.SessionID, sg, &gate.Refund{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := obj(t, r.Signed, "payload"); str(t, p, "action") != "close" || str(t, p, "voucher", "voucher", "cumulativeAmount") != "275" {
		t.Fatalf("close %s", jsonv.String(p))
	}
}

// TestSolanaSessionHostileSeller: challenges a seller may send that the
// session cannot pay are each declined with a named code, before the
// signer is asked.
func TestSolanaSessionHostileSeller(t *testing.T) {
	f := load(t, "mpp-session-hedera-solana-xrpl.json")
	placed := obj(t, f, "SS1", "solana", "placed")
	for _, c := range []struct {
		name   string
		extra  *jsonv.Object // methodDetails members
		req    *jsonv.Object // request members
		code   gate.Code
		detail string
	}{
		{"a recipient not a key", nil, jsonv.Obj("recipient", "0x742d35cc6634c0532925a3b844bc9e7595f8fe00"), gate.NoPayableOption, mpp.CodeNoPayableOption},
		{"a currency not a key", nil, jsonv.Obj("currency", "USDC"), gate.NoPayableOption, mpp.CodeNoPayableOption},
		{"a program not a key", jsonv.Obj("channelProgram", "CHNL"), nil, gate.NoPayableOption, mpp.CodeNoPayableOption},
		{"a recent slot not a decimal", jsonv.Obj("recentSlot", 352114093), nil, gate.NoPayableOption, mpp.CodeNoPayableOption},
		{"no recent blockhash", jsonv.Obj("recentBlockhash", nil), nil, gate.NoPayableOption, mpp.CodeNoPayableOption},
		{"localnet", jsonv.Obj("network", "localnet"), nil, gate.NoPayableOption, mpp.CodeNoPayableOption},
		{"an operator without its key", jsonv.Obj("voucherSigner", "operator"), nil, gate.NoPayableOption, mpp.CodeNoPayableOption},
		{"a recent slot past a u64", jsonv.Obj("recentSlot", "18446744073709551616"), nil, gate.OfferUnreadable, solana.CodeInputMalformed},
		{"a fee payer without its key", jsonv.Obj("feePayerKey", nil), nil, gate.OfferUnreadable, solana.CodeInputMalformed},
		{"a grace period past a u32", jsonv.Obj("gracePeriodSeconds", 1<<32), nil, gate.OfferUnreadable, solana.CodeInputMalformed},
		{"distribution splits", jsonv.Obj("distributionSplits", []jsonv.Value{jsonv.Obj("recipient", "x", "shareBps", 100)}), nil, gate.OfferUnreadable, solana.CodeInputMalformed},
		{"an unknown token program", jsonv.Obj("tokenProgram", "11111111111111111111111111111111"), nil, gate.OfferUnreadable, solana.CodeInputMalformed},
		{"a suggested deposit of 0", nil, jsonv.Obj("suggestedDeposit", "0"), gate.OfferUnreadable, mpp.CodeInputMalformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := placed.Clone() // the id and opaque stay: they carry H, not the request
			req, _ := mpp.DecodeObject(mpp.String(ch, "request"))
			d, _ := req.GetObject("methodDetails")
			for _, m := range c.extra.Members() {
				if m.Value == nil {
					d.Delete(m.Key)
				} else {
					d.Set(m.Key, m.Value)
				}
			}
			for _, m := range c.req.Members() {
				req.Set(m.Key, m.Value)
			}
			ch.Set("request", mpp.EncodeB64URL(jsonv.Marshal(req)))
			doc := []jsonv.Value{ch}
			s := newATRSeller(t)
			s.serveBytes([]byte("abc"))
			sg, _ := solanaPayer(t)
			_, err := s.gateFor(1_780_000_000, nil).Transact(context.Background(), doc, solana.SessionID, sg, nil)
			wantDecline(t, err, c.code, c.detail)
			if sg.calls.Load() != 0 {
				t.Fatalf("%d signer calls", sg.calls.Load())
			}
		})
	}
}
