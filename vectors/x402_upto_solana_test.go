package vectors_test

// x402-upto-solana.json: EU1 (the channel address), EU2 (the open
// instruction's data), EU3 (the opening built, signed with the published
// seed and its wire byte for byte), EU4 (bound, reference, the flow-less
// option's placement), EU5 (status rows and recover against a loopback
// JSON-RPC node, the no-channel transaction), plant, agreedRefusals and
// the buyer rows B2 and B6.

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
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
	"github.com/termsgate/termsgate/signer"
)

// accountsJSON decompiles a message's instructions as EU3 writes them:
// each account [address, signer, writable].
func accountsJSON(m *solana.Tx) []jsonv.Value {
	var out []jsonv.Value
	for _, ix := range instructionsJSON(m) {
		o := ix.(*jsonv.Object)
		accounts := []jsonv.Value{}
		list, _ := o.Get("accounts")
		for _, a := range list.([]jsonv.Value) {
			ao := a.(*jsonv.Object)
			addr, _ := ao.Get("address")
			sg, _ := ao.Get("signer")
			w, _ := ao.Get("writable")
			accounts = append(accounts, []jsonv.Value{addr, sg, w})
		}
		o.Set("accounts", accounts)
		out = append(out, o)
	}
	return out
}

func TestX402UptoSolana(t *testing.T) {
	f := load(t, "x402-upto-solana.json")
	fixed := obj(t, f, "fixed")
	H := mustHash(t, str(t, fixed, "H"))
	p := solana.Upto{}
	network := "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
	key := func(k string) solana.Key { return solana.MustKey(str(t, fixed, k)) }
	u64 := func(k string) uint64 { n, _ := strconv.ParseUint(str(t, fixed, k), 10, 64); return n }
	b2 := row(t, get(t, f, "buyer", "rows"), "B2")
	doc := obj(t, b2, "input", "doc")
	now, _ := jsonv.AsSafeInt(get(t, fixed, "now"))
	inputs := obj(t, b2, "input", "inputs")

	build := func(t *testing.T, d *jsonv.Object, in *jsonv.Object) (*solana.Tx, []byte) {
		t.Helper()
		read, err := p.Read(d)
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.Choose(read, network+":"+str(t, fixed, "payer"), in, now, "")
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(c, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		msg, _ := hex.DecodeString(strings.TrimPrefix(str(t, req, "message"), "0x"))
		m, ok := solana.DecodeMessage(msg)
		if !ok {
			t.Fatal("the built message does not decode")
		}
		return m, msg
	}

	t.Run("EU1", func(t *testing.T) {
		ch, bump, err := solana.ChannelAddress(key("payer"), key("feePayer"), key("mint"), key("receiverAuthorizer"), u64("nonce"), u64("openSlot"))
		want, _ := jsonv.AsSafeInt(get(t, f, "EU1", "bump"))
		if err != nil || ch.String() != str(t, f, "EU1", "channelPda") || int64(bump) != want {
			t.Fatalf("channel %s bump %d (%v)", ch, bump, err)
		}
	})
	t.Run("EU2", func(t *testing.T) {
		delay, _ := jsonv.AsSafeInt(get(t, fixed, "option", "extra", "withdrawDelay"))
		amount, _ := strconv.ParseUint(str(t, fixed, "option", "amount"), 10, 64)
		data := solana.OpenData(u64("nonce"), amount, uint32(delay), u64("openSlot"), key("payTo"))
		want, _ := jsonv.AsSafeInt(get(t, f, "EU2", "length"))
		if hex.EncodeToString(data) != str(t, f, "EU2", "openInstructionData") || int64(len(data)) != want {
			t.Fatalf("open data %x", data)
		}
	})
	t.Run("EU3", func(t *testing.T) {
		v := obj(t, f, "EU3")
		m, msg := build(t, doc, inputs)
		if got, want := jsonv.String(accountsJSON(m)), jsonv.String(get(t, v, "instructions")); got != want {
			t.Fatalf("instructions\n got %s\nwant %s", got, want)
		}
		n, _ := jsonv.AsSafeInt(get(t, v, "messageLength"))
		d := sha256.Sum256(msg)
		if int64(len(msg)) != n || hex.EncodeToString(d[:]) != str(t, v, "messageSha256") ||
			m.Keys[0].String() != str(t, v, "feePayer") || m.Blockhash.String() != str(t, v, "blockhash") {
			t.Fatalf("message %d bytes, sha256 %x", len(msg), d)
		}
		// Signed with the published seed (Ed25519 is deterministic), the
		// wire is the file's byte for byte.
		sig := ed25519.Sign(ed25519.NewKeyFromSeed(unhex(t, str(t, fixed, "payerSeed"))), msg)
		if hx := hex.EncodeToString(sig); !strings.HasPrefix(hx, str(t, v, "payerSignaturePrefix")) || !strings.HasSuffix(hx, str(t, v, "payerSignatureSuffix")) {
			t.Fatalf("signature %s", hx)
		}
		wire, ok := solana.SignedWire(msg, key("payer"), sig)
		wl, _ := jsonv.AsSafeInt(get(t, v, "wireLength"))
		ws := sha256.Sum256(wire)
		if !ok || base64.StdEncoding.EncodeToString(wire) != str(t, v, "wireBase64") || int64(len(wire)) != wl ||
			!strings.HasPrefix(hex.EncodeToString(ws[:]), str(t, v, "wireSha256Prefix")) {
			t.Fatal("the signed wire is not EU3's")
		}
	})
	b6 := obj(t, row(t, get(t, f, "buyer", "rows"), "B6"), "input", "presented")
	payment := func(accepted jsonv.Value, wire string) *jsonv.Object {
		pay := b6.Clone()
		pay.Set("accepted", jsonv.Clone(accepted))
		payload, _ := pay.GetObject("payload")
		payload.Set("openTransaction", wire)
		return pay
	}
	t.Run("EU4", func(t *testing.T) {
		v := obj(t, f, "EU4")
		pay := payment(get(t, v, "accepted"), str(t, f, "EU3", "wireBase64"))
		h, err := p.Bound(pay)
		if err != nil || h != str(t, v, "expectBound") {
			t.Fatalf("bound %s (%v)", h, err)
		}
		ref, err := p.Reference(pay)
		if err != nil || jsonv.String(ref) != jsonv.String(get(t, v, "expectReference")) {
			t.Fatalf("reference %s (%v)", jsonv.String(ref), err)
		}
		if str(t, b6, "payload", "channelId") != str(t, v, "channelId") {
			t.Fatal("channel id")
		}
		placed, err := solana.PlaceUptoCarrier(obj(t, fixed, "option"), H)
		if err != nil || jsonv.String(placed) != jsonv.String(get(t, v, "accepted")) {
			t.Fatalf("placed %s (%v)", jsonv.String(placed), err)
		}
		_, err = solana.PlaceUptoCarrier(obj(t, v, "noFlowOption"), H)
		wantRefusal(t, err, str(t, v, "noFlowAdvertise"))
		// The built payment is the file's B6 payment byte for byte.
		s, _ := signer.SolanaFromSeedHex(str(t, fixed, "payerSeed"), network)
		read, _ := p.Read(doc)
		c, err := p.Choose(read, s.Account(), inputs, now, "")
		if err != nil {
			t.Fatal(err)
		}
		u, err := p.Build(c, nil, H)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := p.Request(u)
		answer, _ := s.Sign(context.Background(), req)
		done, err := p.Complete(u, answer, rails.Chosen{})
		// The built payment's accepted and payload are the file's B6 payment's,
		// byte for byte (the built one also carries the document's resource
		// and extensions, as every x402 payment here does).
		for _, k := range []string{"x402Version", "accepted", "payload"} {
			if err != nil || jsonv.String(get(t, done.Signed, k)) != jsonv.String(get(t, b6, k)) {
				t.Fatalf("payment %s\n got %s\nwant %s (%v)", k, jsonv.String(get(t, done.Signed, k)), jsonv.String(get(t, b6, k)), err)
			}
		}
	})
	t.Run("EU5", func(t *testing.T) {
		v := obj(t, f, "EU5")
		ref := obj(t, v, "ref")
		svmStatusRows(t, get(t, v, "rows"), ref, wireBytes(t, str(t, v, "landedWireBase64")), solana.ChannelStatus)
		node, reader := svmNode(t, network, false)
		node.Txs[str(t, v, "txid")] = solanarpc.NodeTx{Slot: 1000050, Wire: wireBytes(t, str(t, v, "landedWireBase64")), Finalized: true}
		h, err := solana.Recover(ref, reader)
		if err != nil || h != str(t, v, "expectRecover") {
			t.Fatalf("recover %s (%v)", h, err)
		}
		nc := obj(t, v, "noChannel")
		ncWire := wireBytes(t, str(t, nc, "landedWireBase64"))
		d := sha256.Sum256(ncWire[1+64*int(ncWire[0]):])
		if "0x"+hex.EncodeToString(d[:]) != str(t, nc, "digest") {
			t.Fatalf("no-channel digest %x", d)
		}
		ncRef := ref.Clone()
		ncRef.Set("digest", str(t, nc, "digest"))
		node2, reader2 := svmNode(t, network, false)
		node2.Txs[str(t, ref, "transaction")] = solanarpc.NodeTx{Slot: 1000050, Wire: ncWire, Finalized: true}
		if got := solana.ChannelStatus(ncRef, reader2); jsonv.String(got.JSON()) != jsonv.String(get(t, nc, "expect")) {
			t.Fatalf("no channel: %s", jsonv.String(got.JSON()))
		}
	})
	t.Run("plant", func(t *testing.T) {
		for i, rv := range get(t, f, "plant").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				wire := wireBytes(t, str(t, r, "wireBase64"))
				d := sha256.Sum256(wire[1+64*int(wire[0]):])
				if hex.EncodeToString(d[:]) != str(t, r, "messageSha256") {
					t.Fatal("message digest")
				}
				_, err := p.Bound(payment(get(t, r, "accepted"), str(t, r, "wireBase64")))
				wantRefusal(t, err, str(t, r, "expect"))
			})
		}
	})
	t.Run("agreedRefusals", func(t *testing.T) {
		rows := get(t, f, "agreedRefusals", "rows").([]jsonv.Value)
		if len(rows) != 3 {
			t.Fatalf("%d rows; this test knows 3", len(rows))
		}
		eu3, _ := solana.WireOf(str(t, f, "EU3", "wireBase64"))
		choice := func(t *testing.T, mut func(c *jsonv.Object)) error {
			read, _ := p.Read(doc.Clone()) // the row changes the option
			c, err := p.Choose(read, network+":"+str(t, fixed, "payer"), inputs, now, "")
			if err != nil {
				t.Fatal(err)
			}
			mut(c.(*jsonv.Object))
			_, err = p.Build(c, nil, H)
			return err
		}
		withOption := func(mut func(o *jsonv.Object)) func(c *jsonv.Object) {
			return func(c *jsonv.Object) {
				acc, _ := c.GetObject("accepted")
				mut(acc)
				req, _ := c.GetObject("required")
				accepts, _ := req.Get("accepts")
				accepts.([]jsonv.Value)[0] = acc.Clone()
			}
		}
		cases := map[int][]func(t *testing.T) error{
			0: {
				func(t *testing.T) error {
					_, err := p.Bound(payment(get(t, f, "EU4", "accepted"), rebuildWithout(t, eu3, solana.ChannelProgram)))
					return err
				},
				func(t *testing.T) error {
					_, err := p.Bound(payment(get(t, f, "EU4", "accepted"), topUpWire(t, eu3)))
					return err
				},
			},
			1: {
				func(t *testing.T) error {
					return choice(t, func(c *jsonv.Object) { c.Set("tokenProgram", solana.Token2022Program.String()) })
				},
				func(t *testing.T) error { return choice(t, func(c *jsonv.Object) { c.Set("now", jsonv.Number(-1)) }) },
			},
			2: {
				func(t *testing.T) error {
					return choice(t, withOption(func(o *jsonv.Object) { o.Set("amount", "18446744073709551616") }))
				},
				func(t *testing.T) error {
					return choice(t, withOption(func(o *jsonv.Object) { o.Set("maxTimeoutSeconds", jsonv.Number(0)) }))
				},
			},
		}
		for i, rv := range rows {
			r := rv.(*jsonv.Object)
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				for _, c := range cases[i] {
					wantRefusal(t, c(t), str(t, r, "expect"))
				}
			})
		}
	})
	t.Run("B2", func(t *testing.T) {
		in := obj(t, b2, "input")
		srv := newATRSeller(t)
		srv.serveBytes(unhex(t, str(t, in, "servesHex")))
		l, _ := signer.SolanaFromSeedHex(str(t, fixed, "payerSeed"), network)
		sg := &countingSigner{inner: l}
		if sg.Account() != str(t, in, "account") {
			t.Fatalf("account %s", sg.Account())
		}
		opts := &gate.TransactOptions{Inputs: inputs}
		_, err := srv.gateFor(now, nil).Transact(context.Background(), doc, solana.UptoID, sg, opts)
		wantDecline(t, err, gate.Code(str(t, b2, "expect", "decline")), "")
		if sg.calls.Load() != 0 || srv.fetches.Load() != 1 {
			t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), srv.fetches.Load())
		}
		srv.serveBytes([]byte("abc"))
		paid, err := srv.gateFor(now, nil).Transact(context.Background(), doc, solana.UptoID, sg, opts)
		if err != nil || sg.calls.Load() != 1 {
			t.Fatalf("control: %v, %d signer calls", err, sg.calls.Load())
		}
		if got := str(t, paid.Signed, "payload", "openTransaction"); got != str(t, f, "EU3", "wireBase64") {
			t.Fatal("control: the paid opening is not EU3's wire")
		}
	})
	t.Run("B6", func(t *testing.T) {
		r := row(t, get(t, f, "buyer", "rows"), "B6")
		checks := get(t, r, "input", "check").([]jsonv.Value)
		expects := get(t, r, "expect").([]jsonv.Value)
		g := &gate.Gate{}
		h, err := g.Check(unhex(t, str(t, checks[0], "bytesHex")), solana.UptoID, b6)
		if err != nil || h.String() != str(t, expects[0], "h") {
			t.Fatalf("check = %v, %v", h, err)
		}
		_, err = g.Check(unhex(t, str(t, checks[1], "bytesHex")), solana.UptoID, b6)
		wantDecline(t, err, gate.Code(str(t, expects[1], "decline")), "")
	})
}

// topUpWire is tx with its channel instruction's discriminator made a
// top-up's (3): a payment-channels instruction that is not an open.
func topUpWire(t *testing.T, tx *solana.Tx) string {
	t.Helper()
	wire, _ := solana.WireOf(base64.StdEncoding.EncodeToString(append(append([]byte{byte(len(tx.Signatures))}, flat(tx.Signatures)...), tx.Message...)))
	for _, ix := range wire.Instructions {
		if k, _ := wire.ProgramOf(ix); k == solana.ChannelProgram {
			at := indexOf(wire.Message, ix.Data)
			msg := append([]byte(nil), wire.Message...)
			msg[at] = 3
			return base64.StdEncoding.EncodeToString(append(append([]byte{byte(len(tx.Signatures))}, flat(tx.Signatures)...), msg...))
		}
	}
	t.Fatal("no channel instruction")
	return ""
}

func flat(sigs [][]byte) []byte {
	var out []byte
	for _, s := range sigs {
		out = append(out, s...)
	}
	return out
}

func indexOf(haystack, needle []byte) int {
	return strings.Index(string(haystack), string(needle))
}
