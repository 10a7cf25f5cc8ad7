package solana_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"

	solanago "github.com/gagliardetto/solana-go"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// batchDoc offers x402/batch-settlement/solana for the terms atrBytes.
func batchDoc(t testing.TB) *jsonv.Object {
	h := atr.Sum(atrBytes)
	option := jsonv.Obj("scheme", "batch-settlement", "network", devnet, "amount", "1000", "asset", mint, "payTo", payTo,
		"maxTimeoutSeconds", 300, "extra", jsonv.Obj("feePayer", feePayer, "withdrawDelay", 3600, "tokenProgram", solana.TokenProgram.String()))
	option, err := solana.PlaceCarrier(option, h)
	if err != nil {
		t.Fatal(err)
	}
	d, err := x402.Advertise(jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option}), h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func batchInputs(s *signer.Solana) *jsonv.Object {
	return jsonv.Obj("payerAuthorizer", s.Key().String(), "openSlot", "341000000", "tokenProgram", solana.TokenProgram.String(),
		"recentBlockhash", "EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k", "deposit", "100000", "salt", "42")
}

// batchRequest reads, chooses and builds the opening: its batch request
// and what completes it.
func batchRequest(t testing.TB, s *signer.Solana) (rails.Unsigned, rails.Request) {
	p := solana.Batch{}
	read, err := p.Read(batchDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Choose(read, s.Account(), batchInputs(s), 0, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(c, atrBytes, atr.Sum(atrBytes))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	return u, req
}

// batchOpen is the opening signed by the local key, H read back.
func batchOpen(t testing.TB, s *signer.Solana) *jsonv.Object {
	p := solana.Batch{}
	u, req := batchRequest(t, s)
	answer, err := s.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, answer, rails.Chosen{Ref: rails.NewRef()})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Bound(done.Signed); err != nil || got != atr.Sum(atrBytes).String() {
		t.Fatalf("bound %s (%v)", got, err)
	}
	return done.Signed.(*jsonv.Object)
}

func devSigner(t testing.TB) *signer.Solana {
	s, err := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var r *rails.Refusal
	if !errors.As(err, &r) || r.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
}

// The opening agrees with solana-go: it decodes the wire, verifies the
// payer's signature, and derives the same channel address and event
// authority.
func TestBatchAgreesWithSolanaGo(t *testing.T) {
	s := devSigner(t)
	opening := batchOpen(t, s)
	text, _ := jsonv.AsString(mustGet(opening, "payload", "deposit", "transaction"))
	tx, err := solanago.TransactionFromBase64(text)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := tx.Message.MarshalBinary()
	if !tx.Signatures[1].Verify(solanago.PublicKey(s.Key()), msg) {
		t.Fatal("solana-go does not verify the payer's signature")
	}
	program := solanago.PublicKey(solana.ChannelProgram)
	salt, slot := binary.LittleEndian.AppendUint64(nil, 42), binary.LittleEndian.AppendUint64(nil, 341000000)
	fp, m := solanago.MustPublicKeyFromBase58(feePayer), solanago.MustPublicKeyFromBase58(mint)
	k := s.Key()
	theirs, _, err := solanago.FindProgramAddress([][]byte{[]byte("channel"), k[:], fp[:], m[:], k[:], salt, slot}, program)
	ours, _ := jsonv.AsString(mustGet(opening, "payload", "voucher", "channelId"))
	if err != nil || theirs.String() != ours {
		t.Fatalf("channel %s, solana-go %s (%v)", ours, theirs, err)
	}
	ea, _, _ := solanago.FindProgramAddress([][]byte{[]byte("event_authority")}, program)
	if ea.String() != solana.EventAuthority().String() {
		t.Fatalf("event authority %s", ea)
	}
}

func TestBatchSummarize(t *testing.T) {
	s := devSigner(t)
	p := solana.Batch{}
	_, req := batchRequest(t, s)
	g, err := p.Summarize(req)
	if err != nil {
		t.Fatal(err)
	}
	if g.Network != devnet || g.Asset != mint || g.Amount.String() != "100000" || g.Payer != s.Key().String() || g.Payee != payTo ||
		g.PayableUntil.Unix() != solana.OpeningPayableSeconds { // built at now = 0
		t.Fatalf("opening grant %+v", g)
	}
	// A voucher inside the channel: its cumulative amount, of the opening's
	// token, to its receiver.
	opening := batchOpen(t, s)
	channel, _ := jsonv.AsString(mustGet(opening, "payload", "voucher", "channelId"))
	ch := solana.MustKey(channel)
	voucher := func(ch solana.Key, amount uint64) rails.Request {
		return jsonv.Obj("kind", rails.KindBatch, "requests", []jsonv.Value{jsonv.Obj("kind", "ed25519-raw",
			"message", "0x"+hex.EncodeToString(solana.VoucherMessage(ch, amount, 0)), "signer", s.Key().String(), "network", devnet)})
	}
	g, err = p.SummarizeWithin(voucher(ch, 3000), opening)
	if err != nil || g.Amount.String() != "3000" || g.Asset != mint || g.Payee != payTo || g.Payer != s.Key().String() {
		t.Fatalf("voucher grant %+v (%v)", g, err)
	}
	if _, err := p.SummarizeWithin(voucher(solana.MustKey(feePayer), 3000), opening); err == nil {
		t.Fatal("a voucher for another channel was summarized")
	}
	// Anything beside the channel instruction, or a message that is not
	// this pairing's, is unreadable: nothing is signed on doubt.
	list, _ := jsonv.AsArray(mustGet(req, "requests"))
	msgText, _ := jsonv.AsString(mustGet(list[0], "message"))
	raw, _ := hex.DecodeString(msgText[2:])
	m, _ := solana.DecodeMessage(raw)
	for name, r := range map[string]rails.Request{
		"an extra transfer": batchOf(messageWith(t, m, solana.TokenProgram), list[1]),
		"no voucher":        jsonv.Obj("kind", rails.KindBatch, "requests", []jsonv.Value{list[0]}),
		"a voucher of another channel": batchOf(list[0], jsonv.Obj("kind", "ed25519-raw", "signer", s.Key().String(), "network", devnet,
			"message", "0x"+hex.EncodeToString(solana.VoucherMessage(solana.MustKey(feePayer), 1000, 0)))),
		"not a batch": jsonv.Obj("kind", "solana-message", "message", msgText, "network", devnet),
		"no network":  batchOf(jsonv.Obj("kind", "solana-message", "message", msgText), list[1]),
	} {
		if _, err := p.Summarize(r); err == nil {
			t.Errorf("%s: summarized", name)
		}
	}
}

func batchOf(reqs ...jsonv.Value) rails.Request {
	return jsonv.Obj("kind", rails.KindBatch, "requests", reqs)
}

// messageWith is m's message with one more instruction, of program, added
// to its keys as a read-only non-signer.
func messageWith(t *testing.T, m *solana.Tx, program solana.Key) jsonv.Value {
	t.Helper()
	var ixs []solana.Ix
	role := func(i int) solana.AccountMeta {
		signer := i < m.Required
		writable := i < m.Required-m.ReadonlySigned || i >= m.Required && i < len(m.Keys)-m.ReadonlyUnsigned
		return solana.AccountMeta{Key: m.Keys[i], Signer: signer, Writable: writable}
	}
	for _, ix := range m.Instructions {
		var accts []solana.AccountMeta
		for _, a := range ix.Accounts {
			accts = append(accts, role(int(a)))
		}
		ixs = append(ixs, solana.Ix{Program: m.Keys[ix.Program], Accounts: accts, Data: ix.Data})
	}
	ixs = append(ixs, solana.Ix{Program: program, Data: []byte{12, 1, 0, 0, 0, 0, 0, 0, 0, 6}, Accounts: []solana.AccountMeta{role(1)}})
	msg := solana.CompileV0(m.Keys[0], m.Blockhash, ixs)
	return jsonv.Obj("kind", "solana-message", "message", "0x"+hex.EncodeToString(msg), "network", devnet)
}

func TestBatchInspect(t *testing.T) {
	s := devSigner(t)
	p := solana.Batch{}
	opening := batchOpen(t, s)
	in, err := p.Inspect(opening)
	if err != nil {
		t.Fatal(err)
	}
	o := in.JSON()
	details, _ := o.GetObject("details")
	for k, want := range map[string]string{"kind": "channel-open", "h": atr.Sum(atrBytes).String(), "amount": "100000",
		"asset": mint, "payee": payTo} {
		if got, _ := o.GetString(k); got != want {
			t.Errorf("%s = %q, want %q (%s)", k, got, want, jsonv.Marshal(o))
		}
	}
	for k, want := range map[string]string{"deposit": "100000", "maxClaimableAmount": "1000", "feePayer": feePayer} {
		if got, _ := details.GetString(k); got != want {
			t.Errorf("details.%s = %q, want %q (%s)", k, got, want, jsonv.Marshal(o))
		}
	}
	// The close, built inside the held channel.
	g := &gate.Gate{}
	hold, err := g.OpenChannel(atrBytes, solana.BatchID, opening, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed, err := g.Within(context.Background(), batchDoc(t), hold, solana.BatchID, s, &gate.Refund{},
		jsonv.Obj("recentBlockhash", "EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k"))
	if err != nil {
		t.Fatal(err)
	}
	in, err = p.Inspect(closed.Signed)
	if err != nil || in.Kind != "channel-close" || mustGet(in.Details, "channel") != hold.Channel || in.H != "" || in.Grant.Amount.Sign() != 0 {
		t.Fatalf("close %s (%v)", jsonv.Marshal(in.JSON()), err)
	}
}

// Hostile payments: wires and channel instructions a seller (or anyone
// handing a payment to check or inspect) could send end in a named
// refusal, never a panic.
func TestBatchHostilePayments(t *testing.T) {
	s := devSigner(t)
	p := solana.Batch{}
	opening := batchOpen(t, s)
	text, _ := jsonv.AsString(mustGet(opening, "payload", "deposit", "transaction"))
	wire, _ := base64.StdEncoding.DecodeString(text)
	tx, _, _ := solana.DecodeTx(wire)
	with := func(w []byte) *jsonv.Object {
		c := opening.Clone()
		d, _ := mustGet(c, "payload", "deposit").(*jsonv.Object)
		d.Set("transaction", base64.StdEncoding.EncodeToString(w))
		return c
	}
	sigEnd := 1 + 64*2
	// The open instruction's bytes: program index, account count, accounts.
	openAt := len(tx.Message) - (1 + 1 + 14 + 1 + 67 + 1 + 1 + 1 + 77 + 1) + sigEnd
	if wire[openAt] != byte(len(tx.Keys)-1) || wire[openAt+1] != 14 {
		t.Fatalf("the open instruction is not at %d", openAt)
	}
	edit := func(at int, b byte) []byte { w := append([]byte(nil), wire...); w[at] = b; return w }
	cases := map[string]struct {
		wire []byte
		code string
	}{
		"short read":                   {wire[:len(wire)-1], solana.CodeTxMalformed},
		"compact-u16 past the end":     {append(append([]byte(nil), wire[:sigEnd+4]...), 0xff, 0xff, 0x03), solana.CodeTxMalformed},
		"non-shortest compact-u16":     {append([]byte{0x82, 0x00}, wire[1:]...), solana.CodeTxMalformed},
		"channel account out of range": {edit(openAt+2+5, 200), solana.CodeChannelIx},
		"channel account another key":  {edit(openAt+2+5, 1), solana.CodeChannelIDMismatch},
		"channel program out of range": {edit(openAt, 200), solana.CodeNoChannelIx},
		"unknown discriminator":        {edit(openAt+2+14+1, 9), solana.CodeChannelIx},
		"top_up discriminator":         {edit(openAt+2+14+1, 3), solana.CodeChannelIx},
		"request_close discriminator":  {edit(openAt+2+14+1, 5), solana.CodeChannelIx},
		"memo program out of range":    {edit(len(wire)-1-77-1-1-1, 200), solana.CodeMemoCount},
		"too large":                    {append(append([]byte(nil), wire...), make([]byte, 1232)...), solana.CodeTxTooLarge},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := p.Bound(with(c.wire))
			wantCode(t, err, c.code)
			_, _ = p.ChannelKind(with(c.wire))
			_, _ = p.ChannelRef(with(c.wire))
			_, _ = p.Inspect(with(c.wire))
			// The gate's check of the same payment: signed-not-bound.
			if _, err := (&gate.Gate{}).Check(atrBytes, solana.BatchID, with(c.wire)); err == nil {
				t.Fatal("checked")
			}
		})
	}
	// Two channel instructions.
	m, _ := solana.DecodeMessage(tx.Message)
	var ixs []solana.Ix
	for _, ix := range m.Instructions {
		var accts []solana.AccountMeta
		for _, a := range ix.Accounts {
			i := int(a)
			accts = append(accts, solana.AccountMeta{Key: m.Keys[i], Signer: i < m.Required,
				Writable: i < m.Required-m.ReadonlySigned || i >= m.Required && i < len(m.Keys)-m.ReadonlyUnsigned})
		}
		ixs = append(ixs, solana.Ix{Program: m.Keys[ix.Program], Accounts: accts, Data: ix.Data})
	}
	twice := solana.CompileV0(m.Keys[0], m.Blockhash, append(ixs, ixs[2]))
	w2, _ := solana.SignedWire(twice, s.Key(), make([]byte, 64))
	_, err := p.Bound(with(w2))
	wantCode(t, err, solana.CodeChannelIx)
	// A voucher payload whose voucher is not an object, or names no channel.
	for _, v := range []jsonv.Value{"x", jsonv.Number(1), jsonv.Obj("channelId", jsonv.Number(1))} {
		c := opening.Clone()
		mustGet(c, "payload").(*jsonv.Object).Set("voucher", v)
		_, err := p.ChannelRef(c)
		wantCode(t, err, solana.CodeChannelIDMismatch)
	}
}

// Hostile signer answers: the opening is not released, whatever the
// signer returns, and each is the named decline.
func TestBatchHostileSignerAnswers(t *testing.T) {
	s := devSigner(t)
	u, req := batchRequest(t, s)
	good, _ := s.Sign(context.Background(), req)
	sigs, _ := jsonv.AsArray(good)
	for name, answer := range map[string]jsonv.Value{
		"one":        []jsonv.Value{sigs[0]},
		"three":      []jsonv.Value{sigs[0], sigs[1], sigs[1]},
		"hex":        []jsonv.Value{"0x" + hex.EncodeToString(make([]byte, 64)), sigs[1]},
		"63 bytes":   []jsonv.Value{solana.Base58(make([]byte, 63)), sigs[1]},
		"not base58": []jsonv.Value{"0OIl", sigs[1]},
		"over 90":    []jsonv.Value{sigs[0], string(make([]byte, 91))},
		"a number":   []jsonv.Value{sigs[0], jsonv.Number(1)},
		"a string":   sigs[0],
		"an object":  jsonv.Obj(),
	} {
		_, err := (solana.Batch{}).Complete(u, answer, rails.Chosen{Ref: rails.NewRef()})
		if err == nil {
			t.Fatalf("%s: completed", name)
		}
		wantCode(t, err, solana.CodeInputMalformed)
	}
}

// FuzzBatchPayment: no wire inside a deposit, top-up or close payment
// panics the readings, and each is bounded in cost.
func FuzzBatchPayment(f *testing.F) {
	s := devSigner(f)
	opening := batchOpen(f, s)
	text, _ := jsonv.AsString(mustGet(opening, "payload", "deposit", "transaction"))
	wire, _ := base64.StdEncoding.DecodeString(text)
	f.Add(wire)
	f.Add([]byte{2, 0})
	f.Fuzz(func(t *testing.T, w []byte) {
		cost.Bound(t, len(w), func() {
			p := solana.Batch{}
			b64 := base64.StdEncoding.EncodeToString(w)
			// One payload form an input: a deposit for an even length, a
			// close for an odd one (each reading costs a few PDA and base58
			// steps, slow under the fuzzer's instrumentation).
			payload := jsonv.Obj("type", "deposit", "channelConfig", mustGet(opening, "payload", "channelConfig"),
				"voucher", mustGet(opening, "payload", "voucher"), "deposit", jsonv.Obj("amount", "100000", "transaction", b64))
			if len(w)%2 == 1 {
				payload = jsonv.Obj("type", "refund", "channelConfig", mustGet(opening, "payload", "channelConfig"), "transaction", b64)
			}
			pay := jsonv.Obj("x402Version", 2, "accepted", mustGet(opening, "accepted"), "payload", payload)
			_, _ = p.ChannelRef(pay)
			_, _ = p.Inspect(pay) // kind, channel and, for an opening, Bound
			_, _ = p.Summarize(batchOf(jsonv.Obj("kind", "solana-message", "message", "0x"+hex.EncodeToString(w), "network", devnet)))
			if tx, ok, _ := solana.DecodeTx(w); ok {
				_, _ = solana.ChannelInstruction(tx)
			}
		})
	})
}

// FuzzVoucherReader: what the voucher reader accepts is exactly what the
// writer writes, and a voucher request of any bytes is summarized or
// refused, never a panic.
func FuzzVoucherReader(f *testing.F) {
	s := devSigner(f)
	opening := batchOpen(f, s)
	channel, _ := jsonv.AsString(mustGet(opening, "payload", "voucher", "channelId"))
	f.Add(solana.VoucherMessage(solana.MustKey(channel), 1000, 0))
	f.Add([]byte{0x56, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			if ch, cum, exp, ok := solana.ParseVoucher(b); ok {
				if string(solana.VoucherMessage(ch, cum, exp)) != string(b) {
					t.Fatal("the voucher does not read back")
				}
			}
			req := batchOf(jsonv.Obj("kind", "ed25519-raw", "message", "0x"+hex.EncodeToString(b), "signer", s.Key().String(), "network", devnet))
			g, err := (solana.Batch{}).SummarizeWithin(req, opening)
			if err == nil && (g.Payee != payTo || g.Amount.Cmp(new(big.Int).SetUint64(1<<64-1)) > 0) {
				t.Fatalf("grant %+v", g)
			}
		})
	})
}

// BenchmarkSolanaBatchOpen is the opening with the ATR in hand: read,
// choose, build (three PDAs, the v0 message, the voucher), sign both with
// the local Ed25519 key, complete the wire, read H back.
func BenchmarkSolanaBatchOpen(b *testing.B) {
	s := devSigner(b)
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		batchOpen(b, s)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's CPU time: on a shared machine, CPU time per
// operation says what the code costs when wall time also counts waiting
// for a core.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkSolanaBatchVoucher is one voucher through gate.Within on a held
// channel, ATR in hand (nothing fetched): the hold re-checked, the
// document read, the voucher built, its channel checked before signing,
// signed by the local key, read back.
func BenchmarkSolanaBatchVoucher(b *testing.B) {
	s := devSigner(b)
	g := &gate.Gate{}
	hold, err := g.OpenChannel(atrBytes, solana.BatchID, batchOpen(b, s), nil)
	if err != nil {
		b.Fatal(err)
	}
	d := batchDoc(b)
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := g.Within(ctx, d, hold, solana.BatchID, s, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// countingSolana counts signer calls and can answer garbage.
type countingSolana struct {
	*signer.Solana
	calls  atomic.Int64
	answer jsonv.Value // when set, answered instead of signing
}

func (c *countingSolana) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	c.calls.Add(1)
	if c.answer != nil {
		return c.answer, nil
	}
	return c.Solana.Sign(ctx, req)
}

// Hostile sellers through the gate: a document whose option is not this
// pairing's, or whose memo or token program is not what the build takes,
// is declined with its code (a document with no option this pairing reads
// is offer-unreadable, x402/no-payable-option) and the signer never called; a signer answer
// that completes nothing is signed-not-bound. Fetches are counted: an
// option the filter refuses is declined before the terms are fetched.
func TestBatchHostileSellers(t *testing.T) {
	var fetches atomic.Int64
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetches.Add(1)
		_, _ = w.Write(atrBytes)
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}
	s := devSigner(t)
	edit := func(f func(extra *jsonv.Object)) *jsonv.Object {
		d := batchDoc(t)
		accepts, _ := jsonv.AsArray(mustGet(d, "accepts"))
		extra, _ := mustGet(accepts[0], "extra").(*jsonv.Object)
		f(extra)
		return d
	}
	other := atr.Sum([]byte("abd"))
	cases := []struct {
		name    string
		doc     *jsonv.Object
		inputs  *jsonv.Object
		answer  jsonv.Value
		code    gate.Code
		detail  string
		fetched int64
		calls   int64
	}{
		{"memo of other terms", edit(func(e *jsonv.Object) { e.Set("memo", solana.Carrier(other)) }), nil, nil, gate.OfferUnreadable, solana.CodeCarrierMismatch, 1, 0},
		{"no memo", edit(func(e *jsonv.Object) { e.Delete("memo") }), nil, nil, gate.OfferUnreadable, solana.CodeCarrierMismatch, 1, 0},
		{"fee payer not a key", edit(func(e *jsonv.Object) { e.Set("feePayer", "0OIl") }), nil, nil, gate.OfferUnreadable, x402.CodeNoPayableOption, 0, 0},
		{"unknown token program", edit(func(e *jsonv.Object) { e.Set("tokenProgram", feePayer) }), nil, nil, gate.OfferUnreadable, x402.CodeNoPayableOption, 0, 0},
		{"withdraw delay below the timeout", edit(func(e *jsonv.Object) { e.Set("withdrawDelay", 200) }), nil, nil, gate.OfferUnreadable, x402.CodeNoPayableOption, 0, 0},
		{"another token program input", batchDoc(t), func() *jsonv.Object {
			in := batchInputs(s)
			in.Set("tokenProgram", solana.Token2022Program.String())
			return in
		}(), nil, gate.OfferUnreadable, solana.CodeInputMalformed, 1, 0},
		{"no openSlot", batchDoc(t), func() *jsonv.Object { in := batchInputs(s); in.Delete("openSlot"); return in }(), nil,
			gate.NoPayableOption, x402.CodeInputMissing, 0, 0},
		{"a signer answering one signature", batchDoc(t), nil, []jsonv.Value{solana.Base58(make([]byte, 64))}, gate.SignedNotBound, "", 1, 1},
		{"a signer answering hex", batchDoc(t), nil, []jsonv.Value{"0x00", "0x00"}, gate.SignedNotBound, "", 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fetches.Store(0)
			sg := &countingSolana{Solana: s, answer: c.answer}
			in := c.inputs
			if in == nil {
				in = batchInputs(s)
			}
			_, err := g.Transact(context.Background(), c.doc, solana.BatchID, sg, &gate.TransactOptions{Inputs: in})
			var d *gate.Decline
			if !errors.As(err, &d) || d.Code != c.code || c.detail != "" && d.Detail != c.detail {
				t.Fatalf("got %v", err)
			}
			if sg.calls.Load() != c.calls || fetches.Load() != c.fetched {
				t.Fatalf("%d signer calls, %d fetches", sg.calls.Load(), fetches.Load())
			}
		})
	}
}
