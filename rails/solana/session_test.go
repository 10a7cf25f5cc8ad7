package solana_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	solanago "github.com/gagliardetto/solana-go"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/vectors"
)

// sessionPlaced is the vectors' placed Solana session challenge (SS1), its
// request's methodDetails extended by extra and placed again for H of abc.
func sessionPlaced(t testing.TB, extra *jsonv.Object) *jsonv.Object {
	t.Helper()
	f, err := vectors.Load("mpp-session-hedera-solana-xrpl.json")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := mustGet(f, "SS1", "solana", "challenge").(*jsonv.Object)
	c = c.Clone()
	req, _ := mpp.DecodeObject(mpp.String(c, "request"))
	d, _ := req.GetObject("methodDetails")
	for _, m := range extra.Members() {
		d.Set(m.Key, m.Value)
	}
	c.Set("request", mpp.EncodeB64URL(jsonv.Marshal(req)))
	h := atr.Sum(atrBytes)
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	o, _ := jsonv.AsObject(doc[0])
	return o
}

// sessionBuild reads, chooses and builds an opening of placed for s.
func sessionBuild(t testing.TB, placed *jsonv.Object, s *signer.Solana, inputs *jsonv.Object) (rails.Unsigned, rails.Request) {
	t.Helper()
	p := solana.Session{}
	read, err := p.Read([]jsonv.Value{placed})
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, s.Account(), inputs, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(c, atrBytes, atr.Sum(atrBytes))
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.Request(u)
	if err != nil {
		t.Fatal(err)
	}
	return u, req
}

func refusal(err error) string {
	var r *rails.Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

// The opening the local signer answers decodes with solana-go, which finds
// the payer's valid signature, the fee payer's empty slot, and the open
// instruction with H's first 8 bytes as its salt.
func TestSessionOpenAgreesWithSolanaGo(t *testing.T) {
	s := devSigner(t)
	u, req := sessionBuild(t, sessionPlaced(t, &jsonv.Object{}), s, nil)
	answer, err := s.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := solana.Session{}.Complete(u, answer, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := jsonv.AsString(mustGet(done.Signed, "payload", "transaction"))
	tx, err := solanago.TransactionFromBase64(text)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := tx.Message.MarshalBinary()
	payer := solanago.PublicKey(s.Key())
	if tx.Message.AccountKeys[1] != payer || !tx.Signatures[1].Verify(payer, msg) || !tx.Signatures[0].IsZero() {
		t.Fatal("solana-go does not verify the payer's signature")
	}
	program := solanago.MustPublicKeyFromBase58("CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX")
	n := 0
	for _, ix := range tx.Message.Instructions {
		if tx.Message.AccountKeys[ix.ProgramIDIndex] != program {
			continue
		}
		n++
		h := atr.Sum(atrBytes)
		if string(ix.Data[1:9]) != string(h[:8]) || binary.LittleEndian.Uint64(ix.Data[9:17]) != solana.DefaultSessionDeposit {
			t.Fatalf("open data %x", []byte(ix.Data))
		}
		if ch := tx.Message.AccountKeys[ix.Accounts[5]].String(); ch != mustGet(done.Signed, "payload", "channelId") {
			t.Fatalf("channel %s", ch)
		}
	}
	if n != 1 {
		t.Fatalf("%d open instructions", n)
	}
}

// rebuildMsg compiles msg's instructions again, with f applied, under the
// same fee payer and blockhash.
func rebuildMsg(t testing.TB, msg []byte, f func(ixs []solana.Ix) []solana.Ix) []byte {
	t.Helper()
	tx, ok := solana.DecodeMessage(msg)
	if !ok {
		t.Fatal("the message does not decode")
	}
	var ixs []solana.Ix
	for _, ix := range tx.Instructions {
		p, _ := tx.ProgramOf(ix)
		var metas []solana.AccountMeta
		for _, a := range ix.Accounts {
			metas = append(metas, solana.AccountMeta{Key: tx.Keys[a], Signer: int(a) < tx.Required, Writable: true})
		}
		ixs = append(ixs, solana.Ix{Program: p, Accounts: metas, Data: append([]byte(nil), ix.Data...)})
	}
	return solana.CompileV0(tx.Keys[0], tx.Blockhash, f(ixs))
}

// resign is the wire of msg signed by key, zeros in the other slots.
func resign(t testing.TB, key ed25519.PrivateKey, msg []byte) string {
	t.Helper()
	var k solana.Key
	copy(k[:], key.Public().(ed25519.PublicKey))
	w, ok := solana.SignedWire(msg, k, ed25519.Sign(key, msg))
	if !ok {
		t.Fatal("the message does not ask the payer")
	}
	return base64.StdEncoding.EncodeToString(w)
}

// Every signer answer that is not the built opening is refused with its
// code and nothing goes out: an answer of another shape, another action, a
// wire that does not decode, another message (a larger deposit, another
// payee, an extra instruction), a signature that does not verify, another
// channel id; in operator mode a proof that does not verify.
func TestSessionHostileAnswers(t *testing.T) {
	s := devSigner(t)
	seed, _ := hex.DecodeString(signer.SolanaDevSeed)
	key := ed25519.NewKeyFromSeed(seed)
	placed := sessionPlaced(t, &jsonv.Object{})
	u, req := sessionBuild(t, placed, s, nil)
	good, err := s.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := hex.DecodeString(strings.TrimPrefix(mpp.String(req, "message"), "0x"))
	with := func(k string, v jsonv.Value) jsonv.Value {
		o := jsonv.Clone(good).(*jsonv.Object)
		o.Set(k, v)
		return o
	}
	patched := func(at int, b byte) string { // the message with one byte changed, re-signed
		m := append([]byte(nil), msg...)
		m[at] ^= b
		return resign(t, key, m)
	}
	h := atr.Sum(atrBytes)
	openAt := bytes.Index(msg, append([]byte{1}, h[:8]...))
	wire, _ := base64.StdEncoding.DecodeString(mpp.String(good.(*jsonv.Object), "transaction"))
	unsigned := append([]byte(nil), wire...)
	unsigned[1+64+3] ^= 1 // the payer's signature
	// The built message with a System transfer of the payer's lamports.
	withSystem := resign(t, key, rebuildMsg(t, msg, func(ixs []solana.Ix) []solana.Ix {
		return append(ixs, solana.Ix{Program: solana.SystemProgram, Data: []byte{2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0},
			Accounts: []solana.AccountMeta{{Key: s.Key(), Signer: true, Writable: true}, {Key: solana.MustKey(payTo), Writable: true}}})
	}))
	for _, c := range []struct {
		name   string
		answer jsonv.Value
		code   string
	}{
		{"a string", "open", mpp.CodeCredentialMalformed},
		{"a list", []jsonv.Value{good}, mpp.CodeCredentialMalformed},
		{"another action", with("action", "voucher"), mpp.CodeSessionAction},
		{"no transaction", with("transaction", nil), solana.CodeTxMalformed},
		{"a transaction not base64", with("transaction", "!!!!"), solana.CodeTxMalformed},
		{"a transaction past the packet", with("transaction", strings.Repeat("A", 2000)), solana.CodeTxTooLarge},
		{"a truncated transaction", with("transaction", base64.StdEncoding.EncodeToString(wire[:len(wire)-7])), solana.CodeTxMalformed},
		{"a signature count past the end", with("transaction", base64.StdEncoding.EncodeToString([]byte{0xff, 0xff, 0x03})), solana.CodeTxMalformed},
		{"a larger deposit", with("transaction", patched(openAt+9+3, 1)), mpp.CodeCredentialMalformed},
		{"another blockhash", with("transaction", patched(4+1+14*32, 1)), mpp.CodeCredentialMalformed},
		{"another salt", with("transaction", patched(openAt+1, 1)), mpp.CodeCredentialMalformed},
		{"a System transfer instead", with("transaction", withSystem), mpp.CodeCredentialMalformed},
		{"a signature that does not verify", with("transaction", base64.StdEncoding.EncodeToString(unsigned)), mpp.CodeCredentialMalformed},
		{"another channel id", with("channelId", payTo), solana.CodeChannelMismatch},
		{"a channel id not a key", with("channelId", 7), solana.CodeChannelMismatch},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := solana.Session{}.Complete(u, c.answer, rails.Chosen{})
			if refusal(err) != c.code {
				t.Fatalf("refusal %v, want %s", err, c.code)
			}
		})
	}
	// Operator mode: the open asks for the proof next; a proof that is not
	// the payer's signature over it is refused.
	op := sessionPlaced(t, jsonv.Obj("voucherSigner", "operator", "operator", feePayer))
	u, req = sessionBuild(t, op, s, nil)
	open, _ := s.Sign(context.Background(), req)
	next, err := solana.Session{}.Complete(u, open, rails.Chosen{})
	if err != nil || next.Next == nil || mpp.String(next.Next, "kind") != solana.KindEd25519Raw {
		t.Fatalf("next %v, %v", next, err)
	}
	proof, _ := s.Sign(context.Background(), next.Next)
	for _, bad := range []jsonv.Value{
		[]jsonv.Value{open},
		[]jsonv.Value{open, proof, proof},
		[]jsonv.Value{open, solana.Base58(make([]byte, 64))},
		[]jsonv.Value{open, "0x" + strings.Repeat("00", 64)},
		[]jsonv.Value{open, 5},
	} {
		if _, err := (solana.Session{}).Complete(u, bad, rails.Chosen{}); refusal(err) != mpp.CodeCredentialMalformed {
			t.Fatalf("operator answer %s: %v", jsonv.String(bad), err)
		}
	}
	if done, err := (solana.Session{}).Complete(u, []jsonv.Value{open, proof}, rails.Chosen{}); err != nil || done.Signed == nil {
		t.Fatalf("operator opening: %v", err)
	}
}

// A presented opening a seller (or anyone) sends is read strictly: each
// malformed one is refused with its code, never a panic.
func TestSessionHostileOpenings(t *testing.T) {
	s := devSigner(t)
	seed, _ := hex.DecodeString(signer.SolanaDevSeed)
	key := ed25519.NewKeyFromSeed(seed)
	placed := sessionPlaced(t, &jsonv.Object{})
	u, req := sessionBuild(t, placed, s, nil)
	answer, _ := s.Sign(context.Background(), req)
	done, err := solana.Session{}.Complete(u, answer, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := hex.DecodeString(strings.TrimPrefix(mpp.String(req, "message"), "0x"))
	program := solana.MustKey("CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX")
	rebuild := func(f func(ixs []solana.Ix) []solana.Ix) string { return resign(t, key, rebuildMsg(t, msg, f)) }
	channel := mustGet(done.Signed, "payload", "channelId")
	presented := func(wire string) jsonv.Value {
		return jsonv.Obj("challenge", placed.Clone(), "payload", jsonv.Obj("action", "open", "channelId", channel, "transaction", wire))
	}
	bigIndex := func() string { // the open's channel account indexes past the keys
		m := append([]byte(nil), msg...)
		h := atr.Sum(atrBytes)
		at := bytes.Index(m, append([]byte{1}, h[:8]...)) // the open's data; its 14 account indexes and data length precede it
		m[at-1-14+5] = 200
		return resign(t, key, m)
	}()
	for _, c := range []struct {
		name, wire, code string
	}{
		{"empty", "", solana.CodeTxMalformed},
		{"one byte", "AQ==", solana.CodeTxMalformed},
		{"a compact-u16 with a trailing zero group", base64.StdEncoding.EncodeToString([]byte{0x80, 0x00}), solana.CodeTxMalformed},
		{"no open", rebuild(func(ixs []solana.Ix) []solana.Ix { ixs[2].Data[0] = 3; return ixs }), solana.CodeOpenNotFound},
		{"two opens", rebuild(func(ixs []solana.Ix) []solana.Ix { return append(ixs, ixs[2]) }), solana.CodeOpenNotFound},
		{"an open too short", rebuild(func(ixs []solana.Ix) []solana.Ix { ixs[2].Data = ixs[2].Data[:32]; return ixs }), solana.CodeOpenNotFound},
		{"an open with 5 accounts", rebuild(func(ixs []solana.Ix) []solana.Ix { ixs[2].Accounts = ixs[2].Accounts[:5]; return ixs }), solana.CodeOpenNotFound},
		{"the open of another program", rebuild(func(ixs []solana.Ix) []solana.Ix { ixs[2].Program = solana.MustKey(payTo); return ixs }), solana.CodeOpenNotFound},
		{"another salt", rebuild(func(ixs []solana.Ix) []solana.Ix { ixs[2].Data[1] ^= 1; return ixs }), solana.CodeCarrierNotChallenge},
		{"another channel", rebuild(func(ixs []solana.Ix) []solana.Ix { ixs[2].Accounts[5].Key = program; return ixs }), solana.CodeChannelMismatch},
		{"a channel account past the keys", bigIndex, solana.CodeOpenNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := presented(c.wire)
			_, err := solana.Session{}.Bound(p)
			if got := refusal(err); got != c.code {
				t.Fatalf("bound: %v, want %s", err, c.code)
			}
			if _, err := (solana.Session{}).ChannelRef(p); err == nil {
				t.Fatal("a channel read from a malformed opening")
			}
			if _, err := (solana.Session{}).Inspect(p); err == nil {
				t.Fatal("a malformed opening inspected")
			}
		})
	}
	// An authentication naming another challenge id.
	p := jsonv.Clone(done.Signed).(*jsonv.Object)
	payload, _ := p.GetObject("payload")
	payload.Set("authentication", jsonv.Obj("type", "proof", "challengeId", "other", "payer", s.Key().String(), "signature", "1"))
	if _, err := (solana.Session{}).Bound(p); refusal(err) != solana.CodeProofNotChallenge {
		t.Fatalf("authentication: %v", err)
	}
	// A voucher's bytes that are not a voucher summarize to nothing.
	for _, m := range []string{"0x", "0x5601", "0x" + strings.Repeat("00", 50), "0x5602" + strings.Repeat("00", 48), "0x5601" + strings.Repeat("00", 49)} {
		batch := jsonv.Obj("kind", "batch", "requests", []jsonv.Value{jsonv.Obj("kind", solana.KindEd25519Raw, "message", m, "signer", s.Key().String())})
		if _, err := (solana.Session{}).Summarize(batch); err == nil {
			t.Fatalf("summarized %s", m)
		}
	}
}

// The opening's request summarizes to its whole deposit and what it pays,
// read from the message; a request whose message holds anything that could
// move more is unreadable.
func TestSessionSummary(t *testing.T) {
	s := devSigner(t)
	_, req := sessionBuild(t, sessionPlaced(t, &jsonv.Object{}), s, jsonv.Obj("deposit", "2500000"))
	g, err := solana.Session{}.Summarize(req)
	if err != nil || g.Amount.String() != "2500000" || g.Asset != mint || g.Payee != payTo || g.Payer != s.Key().String() || g.Network != devnet {
		t.Fatalf("grant %+v, %v", g, err)
	}
	msg := mpp.String(req, "message")
	for name, f := range map[string]func(r *jsonv.Object){
		"another kind":          func(r *jsonv.Object) { r.Set("kind", "solana-message") },
		"no network":            func(r *jsonv.Object) { r.Delete("network") },
		"another program":       func(r *jsonv.Object) { r.Set("channelProgram", payTo) },
		"a message not hex":     func(r *jsonv.Object) { r.Set("message", "0xzz") },
		"a truncated message":   func(r *jsonv.Object) { r.Set("message", msg[:len(msg)-2]) },
		"a message of one byte": func(r *jsonv.Object) { r.Set("message", "0x80") },
	} {
		r := req.Clone()
		f(r)
		if _, err := (solana.Session{}).Summarize(r); err == nil {
			t.Errorf("%s: summarized", name)
		}
	}
}

// FuzzSessionOpening: any bytes as an opening's transaction are read back
// and, as a request's message, summarized without a panic, in time linear
// in their length; what Bound accepts also names its channel and inspects.
func FuzzSessionOpening(f *testing.F) {
	s := devSigner(f)
	placed := sessionPlaced(f, &jsonv.Object{})
	u, req := sessionBuild(f, placed, s, nil)
	answer, _ := s.Sign(context.Background(), req)
	done, err := solana.Session{}.Complete(u, answer, rails.Chosen{})
	if err != nil {
		f.Fatal(err)
	}
	wire, _ := base64.StdEncoding.DecodeString(mpp.String(answer.(*jsonv.Object), "transaction"))
	f.Add(wire)
	f.Add([]byte{1, 0x80})
	channel := mustGet(done.Signed, "payload", "channelId")
	p := solana.Session{}
	f.Fuzz(func(t *testing.T, w []byte) {
		cost.Bound(t, len(w), func() {
			presented := jsonv.Obj("challenge", placed, "payload", jsonv.Obj("action", "open", "channelId", channel,
				"transaction", base64.StdEncoding.EncodeToString(w)))
			_, berr := p.Bound(presented)
			if berr == nil {
				// What reads back also names its channel and inspects.
				if ref, err := p.ChannelRef(presented); err != nil || ref.Channel != channel {
					t.Fatalf("bound but no channel: %v", err)
				}
				if _, err := p.Inspect(presented); err != nil {
					t.Fatalf("bound but not inspected: %v", err)
				}
			}
			if len(w) > 0 {
				r := req.Clone()
				r.Set("message", "0x"+hex.EncodeToString(w[1:]))
				_, _ = p.Summarize(r)
			}
		})
	})
}

// FuzzSessionVoucher: any bytes as a voucher request's message, and any
// answer to a built voucher, are read without a panic; an answer is taken
// only when it verifies.
func FuzzSessionVoucher(f *testing.F) {
	s := devSigner(f)
	placed := sessionPlaced(f, &jsonv.Object{})
	u, req := sessionBuild(f, placed, s, nil)
	answer, _ := s.Sign(context.Background(), req)
	done, err := solana.Session{}.Complete(u, answer, rails.Chosen{})
	if err != nil {
		f.Fatal(err)
	}
	opening := done.Signed.(*jsonv.Object)
	within := placed.Clone()
	built, err := solana.Session{}.BuildWithin(rails.Within{Challenge: within, Opening: opening, Cumulative: big.NewInt(100), Action: rails.WithinVoucher}, atr.Sum(atrBytes))
	if err != nil {
		f.Fatal(err)
	}
	good, _ := s.Sign(context.Background(), built.Requests()[0])
	voucher, _ := hex.DecodeString(strings.TrimPrefix(mpp.String(built.Requests()[0], "message"), "0x"))
	f.Add(solana.VoucherMessage(solana.ChannelProgram, 100, 0), good.(string))
	f.Add([]byte{0x56, 0x01}, "1")
	f.Fuzz(func(t *testing.T, msg []byte, sig string) {
		cost.Bound(t, len(msg)+len(sig), func() {
			batch := jsonv.Obj("kind", "batch", "requests", []jsonv.Value{jsonv.Obj("kind", solana.KindEd25519Raw,
				"message", "0x"+hex.EncodeToString(msg), "signer", s.Key().String())})
			_, _ = solana.Session{}.Summarize(batch)
			_, _ = solana.Session{}.SummarizeWithin(batch, opening)
			_, _, _, _ = solana.ParseVoucher(msg)
			if _, err := built.Complete([]string{sig}); err == nil {
				raw, _ := solana.DecodeBase58(sig)
				k := s.Key()
				if !ed25519.Verify(k[:], voucher, raw) {
					t.Fatal("an answer taken without a verifying signature")
				}
			}
		})
	})
}

// BenchmarkSolanaSessionOpen is an mpp/session/solana opening with the ATR
// in hand (nothing fetched): the challenge read, chosen, the open composed
// (the channel, two token accounts and the event authority derived, the v0
// message compiled), signed by the local key as the channel client,
// checked against the build, read back.
func BenchmarkSolanaSessionOpen(b *testing.B) {
	s := devSigner(b)
	placed := sessionPlaced(b, &jsonv.Object{})
	doc := []jsonv.Value{placed}
	h := atr.Sum(atrBytes)
	ctx := context.Background()
	p := solana.Session{}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		read, err := p.Read(doc)
		if err != nil {
			b.Fatal(err)
		}
		c, err := p.Choose(read, s.Account(), nil, 0, "")
		if err != nil {
			b.Fatal(err)
		}
		u, err := p.Build(c, atrBytes, h)
		if err != nil {
			b.Fatal(err)
		}
		req, _ := p.Request(u)
		answer, err := s.Sign(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Complete(u, answer, rails.Chosen{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// sessionHeld is an opening of sessionPlaced(extra) signed by s, held by
// a gate, and a within document whose one challenge names its channel.
func sessionHeld(t testing.TB, s *signer.Solana, extra *jsonv.Object) (*gate.Gate, *gate.Hold, []jsonv.Value) {
	t.Helper()
	placed := sessionPlaced(t, extra)
	u, req := sessionBuild(t, placed, s, nil)
	answer, _ := s.Sign(context.Background(), req)
	done, err := solana.Session{}.Complete(u, answer, rails.Chosen{})
	if err != nil {
		t.Fatal(err)
	}
	g := &gate.Gate{}
	hold, err := g.OpenChannel(atrBytes, solana.SessionID, done.Signed, nil)
	if err != nil {
		t.Fatal(err)
	}
	within := placed.Clone()
	r, _ := mpp.DecodeObject(mpp.String(within, "request"))
	d, _ := r.GetObject("methodDetails")
	d.Set("channelId", hold.Channel)
	within.Set("request", mpp.EncodeObject(r))
	return g, hold, []jsonv.Value{within}
}

// TestSessionReadMemo: the remembered opening and challenge answer only
// a value equal to the one read. A credential changed in place after it
// was read is read again (and refused), two openings and two challenges
// read in turn from several goroutines each get their own channel, and a
// voucher through Within on either hold names its own channel.
func TestSessionReadMemo(t *testing.T) {
	s := devSigner(t)
	p := solana.Session{}
	gA, holdA, docA := sessionHeld(t, s, &jsonv.Object{})
	gB, holdB, docB := sessionHeld(t, s, jsonv.Obj("recentSlot", "7"))
	if holdA.Channel == holdB.Channel {
		t.Fatal("the two openings name one channel")
	}
	changed := jsonv.Clone(holdA.Opening).(*jsonv.Object)
	if _, err := p.Bound(changed); err != nil {
		t.Fatal(err)
	}
	payload, _ := changed.GetObject("payload")
	payload.Set("transaction", "AQ==")
	if _, err := p.Bound(changed); refusal(err) != solana.CodeTxMalformed {
		t.Fatalf("an opening changed after it was read: %v, want %s", err, solana.CodeTxMalformed)
	}
	named := jsonv.Clone(docA[0])
	if ref, ok, err := p.NamedChannel(named); err != nil || !ok || ref.Channel != holdA.Channel {
		t.Fatalf("named %v %v %v", ref, ok, err)
	}
	c := named.(*jsonv.Object)
	r, _ := mpp.DecodeObject(mpp.String(c, "request"))
	d, _ := r.GetObject("methodDetails")
	d.Set("channelId", holdB.Channel)
	c.Set("request", mpp.EncodeObject(r))
	if ref, ok, err := p.NamedChannel(named); err != nil || !ok || ref.Channel != holdB.Channel {
		t.Fatalf("a challenge changed after it was read names %v %v %v, want %s", ref, ok, err, holdB.Channel)
	}
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			for j := range 20 {
				g, hold, doc := gA, holdA, docA
				if (i+j)%2 == 1 {
					g, hold, doc = gB, holdB, docB
				}
				ref, err := p.ChannelRef(hold.Opening)
				if err != nil || ref.Channel != hold.Channel {
					errs <- fmt.Errorf("opening of %s read as %v, %v", hold.Channel, ref, err)
					return
				}
				if named, _, err := p.NamedChannel(doc[0]); err != nil || named.Channel != hold.Channel {
					errs <- fmt.Errorf("challenge naming %s read as %v, %v", hold.Channel, named, err)
					return
				}
				res, err := g.Within(context.Background(), doc, hold, solana.SessionID, s, nil, nil)
				if err != nil {
					errs <- err
					return
				}
				if got, _ := p.ChannelRef(res.Signed); got.Channel != hold.Channel || mustGet(res.Signed, "payload", "channelId") != hold.Channel {
					errs <- fmt.Errorf("a voucher on %s names %v", hold.Channel, got)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkSolanaSessionVoucherTwoChannels is BenchmarkSolanaSessionVoucher
// alternating between two held channels, so that the remembered opening and
// challenge are the other channel's at each voucher's start: each is read
// once per voucher.
func BenchmarkSolanaSessionVoucherTwoChannels(b *testing.B) {
	s := devSigner(b)
	gA, holdA, docA := sessionHeld(b, s, &jsonv.Object{})
	gB, holdB, docB := sessionHeld(b, s, jsonv.Obj("recentSlot", "7"))
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		g, hold, doc := gA, holdA, docA
		if i++; i%2 == 0 {
			g, hold, doc = gB, holdB, docB
		}
		if _, err := g.Within(ctx, doc, hold, solana.SessionID, s, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkSolanaSessionVoucher is one voucher through gate.Within on a
// held session, ATR in hand: the hold re-checked (the opening read back),
// the challenge naming the channel taken, the voucher built, signed by the
// local key, verified and read back.
func BenchmarkSolanaSessionVoucher(b *testing.B) {
	s := devSigner(b)
	placed := sessionPlaced(b, &jsonv.Object{})
	u, req := sessionBuild(b, placed, s, nil)
	answer, _ := s.Sign(context.Background(), req)
	done, err := solana.Session{}.Complete(u, answer, rails.Chosen{})
	if err != nil {
		b.Fatal(err)
	}
	g := &gate.Gate{}
	hold, err := g.OpenChannel(atrBytes, solana.SessionID, done.Signed, nil)
	if err != nil {
		b.Fatal(err)
	}
	within := placed.Clone()
	r, _ := mpp.DecodeObject(mpp.String(within, "request"))
	d, _ := r.GetObject("methodDetails")
	d.Set("channelId", hold.Channel)
	within.Set("request", mpp.EncodeObject(r))
	doc := []jsonv.Value{within}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := g.Within(ctx, doc, hold, solana.SessionID, s, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
