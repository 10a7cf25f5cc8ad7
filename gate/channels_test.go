package gate_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

// The channel calls over mpp/session/tempo, with the vectors' development
// key and H = SHA-256("abc"). Nothing is fetched: the opening is finished
// from a choice made here, as Confirm would make it.

const (
	sessionID    = tempo.SessionID
	sessionRealm = "api.seller.example"
	sessionExp   = "2026-09-21T14:14:20Z"
	escrow       = "0x4D50500000000000000000000000000000000000"
	sessionReq   = `{"amount":"100","currency":"0x20c0000000000000000000000000000000000000","methodDetails":{"chainId":42431,"escrowContract":"` + escrow + `","sessionProtocol":"v2"},"recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"}`
)

var abc = []byte("abc")

func tempoKey(t testing.TB) *signer.Local {
	t.Helper()
	l, err := signer.FromHex(signer.AnvilKey, "eip155:42431")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// batchKey signs a batch request with the development key, request by
// request, and anything else as the key signs it.
func batchKey(t testing.TB) func(context.Context, rails.Request) (jsonv.Value, error) {
	l := tempoKey(t)
	return func(ctx context.Context, req rails.Request) (jsonv.Value, error) {
		if mpp.String(req, "kind") != rails.KindBatch {
			return l.Sign(ctx, req)
		}
		list, _ := req.Get("requests")
		var out []jsonv.Value
		for _, r := range list.([]jsonv.Value) {
			a, err := l.Sign(ctx, r.(*jsonv.Object))
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
		return out, nil
	}
}

// placedSession is the opening challenge, placed with H and its link.
func placedSession(t testing.TB, request string) *jsonv.Object {
	t.Helper()
	c := jsonv.Obj("realm", sessionRealm, "method", "tempo", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(request)), "expires", sessionExp)
	h := atr.Sum(abc)
	d, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	return d[0].(*jsonv.Object)
}

// opening finishes the two-step opening through the gate.
func opening(t testing.TB, g *gate.Gate) *jsonv.Object {
	t.Helper()
	p := tempo.Session{}
	read, err := p.Read([]jsonv.Value{placedSession(t, sessionReq)})
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, tempoKey(t).Account(), jsonv.Obj("deposit", "10000000"), 1790000000, "ref")
	if err != nil {
		t.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: sessionID, Choice: choice, Ref: "ref"}
	u, _ := p.Build(choice, abc, atr.Sum(abc))
	funding, _ := p.Request(u)
	ctx := context.Background()
	tx, err := tempoKey(t).Sign(ctx, funding)
	if err != nil {
		t.Fatal(err)
	}
	next, err := g.Finish(abc, sessionID, chosen, tx)
	if err != nil || next.Next == nil {
		t.Fatalf("step 1: %v", err)
	}
	sig, err := tempoKey(t).Sign(ctx, next.Next)
	if err != nil {
		t.Fatal(err)
	}
	done, err := g.Finish(abc, sessionID, chosen, []jsonv.Value{tx, sig})
	if err != nil {
		t.Fatal(err)
	}
	return done.Signed.(*jsonv.Object)
}

// held opens a channel and returns the gate, the hold and the opening.
func held(t testing.TB) (*gate.Gate, *gate.Hold, *jsonv.Object) {
	t.Helper()
	g := &gate.Gate{Now: func() time.Time { return time.Unix(1790000000, 0) }} // before the challenge expires
	o := opening(t, g)
	hold, err := g.OpenChannel(abc, sessionID, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g, hold, o
}

// sellerChallenge is a challenge the seller issues in the channel: its own
// id, methodDetails.channelId naming channel when set, amount as given.
func sellerChallenge(channel, amount string) *jsonv.Object {
	req := strings.Replace(sessionReq, `"amount":"100"`, `"amount":`+amount, 1)
	if channel != "" {
		req = strings.Replace(req, `"methodDetails":{`, `"methodDetails":{"channelId":"`+channel+`",`, 1)
	}
	return jsonv.Obj("id", "seller-7", "realm", sessionRealm, "method", "tempo", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(req)), "expires", sessionExp)
}

func withOpaque(c *jsonv.Object, opaque string) *jsonv.Object {
	x := c.Clone()
	x.Set("opaque", opaque)
	return x
}

func opaqueOf(members ...any) string { return mpp.EncodeB64URL(jsonv.Marshal(jsonv.Obj(members...))) }

func wantDeclined(t testing.TB, err error, code gate.Code, detail string) {
	t.Helper()
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != code || d.Detail != detail {
		t.Fatalf("got %v, want %s: %s", err, code, detail)
	}
}

func TestOpenChannel(t *testing.T) {
	g, hold, o := held(t)
	payload, _ := o.GetObject("payload")
	channel, _ := payload.GetString("channelId")
	want := jsonv.Obj("pairing", sessionID, "network", "eip155:42431", "channel", channel, "h", atr.Sum(abc).String(),
		"atr", "YWJj", "opening", o, "charged", "0", "signedMax", "0")
	if got := hold.JSON(); jsonv.String(got) != jsonv.String(want) {
		t.Fatalf("hold\n got %s\nwant %s", jsonv.Marshal(got), jsonv.Marshal(want))
	}
	// The hold does not alias the opening it was given.
	payload.Set("channelId", "0x00")
	if jsonv.String(hold.Opening) == jsonv.String(o) {
		t.Fatal("the hold shares the opening")
	}
	o = opening(t, g)

	// A landed receipt is merged into the opening the hold keeps.
	withLanded, err := g.OpenChannel(abc, sessionID, o, jsonv.Obj("blockNumber", "7"))
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := withLanded.Opening.GetObject("landed"); l == nil || o.Has("landed") {
		t.Fatalf("landed: %s", jsonv.Marshal(withLanded.Opening))
	}

	voucher := o.Clone()
	p, _ := voucher.GetObject("payload")
	p.Set("action", "voucher")
	for name, c := range map[string]struct {
		bytes          []byte
		pairing        string
		opened, landed jsonv.Value
		code           gate.Code
		detail         string
	}{
		"an unknown pairing":    {abc, "x/y", o, nil, gate.PairingNotSupported, "The gate has no buyer piece for the pairing x/y."},
		"a pairing, no channel": {abc, evm.ExactEIP3009ID, o, nil, gate.PairingNotSupported, gate.DetailNoChannel},
		"a landed string":       {abc, sessionID, o, "x", gate.SignedNotBound, gate.DetailLandedNotObject},
		"an opened string":      {abc, sessionID, "x", jsonv.Obj(), gate.SignedNotBound, gate.DetailLandedNotObject},
		"no bytes":              {nil, sessionID, o, nil, gate.SignedNotBound, gate.DetailATRMissing},
		"over 1 MiB":            {make([]byte, atr.MaxBytes+1), sessionID, o, nil, gate.ATRTooLarge, gate.DetailTooLarge},
		"a voucher":             {abc, sessionID, voucher, nil, gate.SignedNotBound, gate.DetailNotAnOpening},
		"not an object":         {abc, sessionID, []jsonv.Value{o}, nil, gate.SignedNotBound, gate.DetailNotAnOpening},
		"other bytes":           {[]byte("abd"), sessionID, o, nil, gate.SignedNotBound, gate.DetailOpeningNotBound},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := g.OpenChannel(c.bytes, c.pairing, c.opened, c.landed)
			wantDeclined(t, err, c.code, c.detail)
		})
	}
}

func TestWithinVoucherChargeAndClose(t *testing.T) {
	g, hold, _ := held(t)
	s := &counting{answer: batchKey(t)}
	ctx := context.Background()
	var seen []rails.Request
	s.answer = func(ctx context.Context, req rails.Request) (jsonv.Value, error) {
		seen = append(seen, req)
		return batchKey(t)(ctx, req)
	}
	// A challenge naming the held channel (in upper case), 100 more.
	named := sellerChallenge("0x"+strings.ToUpper(hold.Channel[2:]), `"100"`)
	named.Set("id", "seller-1") // any id: the seller issues it
	r, err := g.Within(ctx, []jsonv.Value{named}, hold, sessionID, s, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.calls.Load() != 1 || mpp.String(seen[0], "kind") != rails.KindBatch {
		t.Fatalf("%d signer calls: %s", s.calls.Load(), jsonv.Marshal(seen))
	}
	if r.Hold.SignedMax != "100" || r.Hold.Charged != "0" || hold.SignedMax != "0" || r.H != atr.Sum(abc) {
		t.Fatalf("hold after %+v (before %+v)", r.Hold, hold)
	}
	payload, _ := r.Signed.(*jsonv.Object).GetObject("payload")
	if mpp.String(payload, "cumulativeAmount") != "100" || mpp.String(payload, "channelId") != hold.Channel {
		t.Fatalf("voucher %s", jsonv.Marshal(r.Signed))
	}
	if keys := r.JSON().Keys(); strings.Join(keys, ",") != "atrHash,signed,hold" {
		t.Fatalf("result keys %v", keys)
	}
	// The seller charges 60; the next voucher is 60 + 100.
	h1, err := gate.RecordCharge(r.Hold, "60")
	if err != nil {
		t.Fatal(err)
	}
	// A new session challenge naming no channel, placed with the held H.
	fresh := placedSession(t, sessionReq)
	r, err = g.Within(ctx, []jsonv.Value{fresh}, h1, sessionID, s, nil, jsonv.Obj())
	if err != nil {
		t.Fatal(err)
	}
	if r.Hold.SignedMax != "160" || r.Hold.Charged != "60" {
		t.Fatalf("second voucher hold %+v", r.Hold)
	}
	h2, err := gate.RecordCharge(r.Hold, "150")
	if err != nil {
		t.Fatal(err)
	}
	// The close, at the charge recorded; the largest amount signed stays.
	r, err = g.Within(ctx, []jsonv.Value{named}, h2, sessionID, s, &gate.Refund{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ = r.Signed.(*jsonv.Object).GetObject("payload")
	if mpp.String(payload, "action") != "close" || mpp.String(payload, "cumulativeAmount") != "150" || r.Hold.SignedMax != "160" {
		t.Fatalf("close %s, hold %+v", jsonv.Marshal(r.Signed), r.Hold)
	}
	if s.calls.Load() != 3 {
		t.Fatalf("%d signer calls", s.calls.Load())
	}
}

// twisted is mpp/session/tempo with some channel members replaced for
// payments that are not openings, to reach the checks after signing.
type twisted struct {
	tempo.Session
	kind  func(jsonv.Value) (rails.ChannelKind, error)
	bound func(jsonv.Value) (string, error)
	ref   func(jsonv.Value) (rails.ChannelRef, error)
	build func(rails.Within, atr.Hash) (rails.InChannel, error)
}

func isOpening(v jsonv.Value) bool {
	o, _ := jsonv.AsObject(v)
	p, _ := o.GetObject("payload")
	return mpp.String(p, "action") == "open"
}

func (t twisted) ChannelKind(v jsonv.Value) (rails.ChannelKind, error) {
	if t.kind != nil && !isOpening(v) {
		return t.kind(v)
	}
	return t.Session.ChannelKind(v)
}

func (t twisted) BoundWithin(v jsonv.Value) (string, error) {
	if t.bound != nil {
		return t.bound(v)
	}
	return t.Session.BoundWithin(v)
}

func (t twisted) ChannelRef(v jsonv.Value) (rails.ChannelRef, error) {
	if t.ref != nil && !isOpening(v) {
		return t.ref(v)
	}
	return t.Session.ChannelRef(v)
}

func (t twisted) BuildWithin(w rails.Within, h atr.Hash) (rails.InChannel, error) {
	if t.build != nil {
		return t.build(w, h)
	}
	return t.Session.BuildWithin(w, h)
}

// noBuilder has the channel readings but builds nothing inside a channel.
type noBuilder struct {
	rails.Pairing
	rails.Channel
}

// answers is an InChannel whose completion a test chooses.
type answers struct {
	reqs     []rails.Request
	complete func([]string) (jsonv.Value, error)
}

func (a answers) Requests() []rails.Request                { return a.reqs }
func (a answers) Complete(s []string) (jsonv.Value, error) { return a.complete(s) }
func panicking[T any](string) func(jsonv.Value) (T, error) {
	return func(jsonv.Value) (T, error) { panic("member") }
}
func refusing[T any](code string) func(jsonv.Value) (T, error) {
	return func(jsonv.Value) (T, error) { var z T; return z, rails.Refuse(code) }
}
func returning[T any](v T) func(jsonv.Value) (T, error) {
	return func(jsonv.Value) (T, error) { return v, nil }
}
func oneAnswer(v jsonv.Value) func(context.Context, rails.Request) (jsonv.Value, error) {
	return func(context.Context, rails.Request) (jsonv.Value, error) { return v, nil }
}

// TestWithinDeclines: every decline of paying within (docs/protocol.md, "Channels"), in order, with the
// signer calls each allows.
func TestWithinDeclines(t *testing.T) {
	_, hold, o := held(t)
	channel := hold.Channel
	good := []jsonv.Value{sellerChallenge(channel, `"100"`)}
	edit := func(f func(h *gate.Hold)) *gate.Hold {
		j := hold.JSON()
		c, err := gate.ParseHold(j)
		if err != nil {
			t.Fatal(err)
		}
		f(c)
		return c
	}
	planted := o.Clone()
	pl, _ := planted.GetObject("payload")
	d, _ := pl.GetObject("descriptor")
	d.Set("salt", atr.Sum([]byte("abd")).String())
	one := "1.5"
	five := "5"
	huge := new(big.Int).Lsh(big.NewInt(1), 96).String()
	withLC := func(lc string) []jsonv.Value {
		return []jsonv.Value{withOpaque(sellerChallenge(channel, `"100"`), opaqueOf("legalContext", lc))}
	}
	otherNetwork := sellerChallenge(channel, `"100"`)
	otherNetwork.Set("request", mpp.EncodeB64URL([]byte(strings.Replace(strings.Replace(sessionReq, "42431", "1", 1), `"methodDetails":{`, `"methodDetails":{"channelId":"`+channel+`",`, 1))))
	chargeNamed := sellerChallenge(channel, `"100"`)
	chargeNamed.Set("intent", "charge")
	many := make([]jsonv.Value, 33)
	for i := range many {
		many[i] = "not a challenge"
	}
	many[32] = good[0]
	batchOK := batchKey(t)

	cases := []struct {
		name     string
		pairings *rails.Registry
		doc      jsonv.Value
		hold     *gate.Hold
		pairing  string
		refund   *gate.Refund
		inputs   jsonv.Value
		noSigner bool
		answer   func(context.Context, rails.Request) (jsonv.Value, error)
		code     gate.Code
		detail   string
		signs    int64
	}{
		{name: "an unknown pairing", pairing: "x/y", code: gate.PairingNotSupported, detail: "The gate has no buyer piece for the pairing x/y."},
		{name: "a pairing, no channel", pairing: evm.ExactEIP3009ID, code: gate.PairingNotSupported, detail: gate.DetailNoChannel},
		{name: "a channel, no builder", pairings: rails.NewRegistry(noBuilder{tempo.Session{}, tempo.Session{}}), code: gate.PairingNotSupported, detail: "The pairing mpp/session/tempo has no in-channel payment."},
		{name: "no hold", hold: (*gate.Hold)(nil), code: gate.SignedNotBound, detail: gate.DetailHoldMalformed},
		{name: "a charge not decimal", hold: edit(func(h *gate.Hold) { h.Charged = "1e3" }), code: gate.SignedNotBound, detail: gate.DetailHoldMalformed},
		{name: "an empty signedMax", hold: edit(func(h *gate.Hold) { h.SignedMax = "" }), code: gate.SignedNotBound, detail: gate.DetailHoldMalformed},
		{name: "no opening", hold: edit(func(h *gate.Hold) { h.Opening = nil }), code: gate.SignedNotBound, detail: gate.DetailHoldMalformed},
		{name: "another pairing's hold", hold: edit(func(h *gate.Hold) { h.Pairing = "mpp/session/evm" }), code: gate.PairingNotSupported, detail: "The hold is not for the pairing mpp/session/tempo."},
		{name: "a refund of 1.5", refund: &gate.Refund{Amount: &one}, code: gate.NoPayableOption, detail: "mpp/input-missing"},
		{name: "inputs a string", inputs: "x", code: gate.NoPayableOption, detail: "mpp/input-malformed"},
		{name: "no signer", noSigner: true, code: gate.NoPayableOption, detail: "mpp/input-malformed"},
		{name: "atr not base64", hold: edit(func(h *gate.Hold) { h.ATR = "YWJj!" }), code: gate.SignedNotBound, detail: gate.DetailHeldATRUnreadable},
		{name: "atr unpadded", hold: edit(func(h *gate.Hold) { h.ATR = "YWI" }), code: gate.SignedNotBound, detail: gate.DetailHeldATRUnreadable},
		{name: "atr over 1 MiB", hold: edit(func(h *gate.Hold) { h.ATR = strings.Repeat("AAAA", atr.MaxBytes/3+2) }), code: gate.SignedNotBound, detail: gate.DetailHeldATRUnreadable},
		{name: "atr other bytes", hold: edit(func(h *gate.Hold) { h.ATR = "YWJk" }), code: gate.HashMismatch, detail: gate.DetailHeldATRMismatch},
		{name: "h malformed", hold: edit(func(h *gate.Hold) { h.H = "abc" }), code: gate.HashMismatch, detail: gate.DetailHeldATRMismatch},
		{name: "the opening planted", hold: edit(func(h *gate.Hold) { h.Opening = planted }), code: gate.SignedNotBound, detail: gate.DetailHeldOpeningUnbound},
		{name: "another channel held", hold: edit(func(h *gate.Hold) { h.Channel = "0x" + strings.Repeat("00", 32) }), code: gate.SignedNotBound, detail: gate.DetailHeldOpeningOther},
		{name: "another network held", hold: edit(func(h *gate.Hold) { h.Network = "eip155:1" }), code: gate.SignedNotBound, detail: gate.DetailHeldOpeningOther},
		{name: "a partial refund", refund: &gate.Refund{Amount: &five}, code: gate.PairingNotSupported, detail: "mpp/within-action-not-built"},
		{name: "a document not a list", doc: jsonv.Obj(), code: gate.NoPayableOption, detail: "mpp/no-payable-option"},
		{name: "an empty document", doc: []jsonv.Value{}, code: gate.NoPayableOption, detail: "mpp/no-payable-option"},
		{name: "another network", doc: []jsonv.Value{otherNetwork}, code: gate.NoPayableOption, detail: "mpp/no-payable-option"},
		{name: "another pairing's named channel", doc: []jsonv.Value{chargeNamed}, code: gate.NoPayableOption, detail: "mpp/no-payable-option"},
		{name: "a channel id no bytes32", doc: []jsonv.Value{sellerChallenge("0x12", `"100"`)}, code: gate.NoPayableOption, detail: "mpp/no-payable-option"},
		{name: "the 33rd challenge", doc: many, code: gate.NoPayableOption, detail: "mpp/no-payable-option"},
		{name: "another channel named", doc: []jsonv.Value{sellerChallenge("0x"+strings.Repeat("11", 32), `"100"`), good[0]}, code: gate.NoPayableOption, detail: gate.DetailOtherChannel},
		{name: "an opaque not flat", doc: []jsonv.Value{withOpaque(good[0].(*jsonv.Object), opaqueOf("k", jsonv.Obj("nested", "v")))}, code: gate.OfferUnreadable, detail: "mpp/opaque-malformed"},
		{name: "an opaque not base64url", doc: []jsonv.Value{withOpaque(good[0].(*jsonv.Object), "e30=")}, code: gate.OfferUnreadable, detail: "mpp/opaque-malformed"},
		{name: "a legal context not LCP", doc: withLC("sha256:" + atr.Sum(abc).String()), code: gate.OfferUnreadable, detail: "mpp/legal-context-malformed"},
		{name: "another legal context", doc: withLC("lcp:sha256:" + atr.Sum([]byte("abd")).String()), code: gate.HashMismatch, detail: gate.DetailOtherHash},
		{name: "an amount with a point", doc: []jsonv.Value{sellerChallenge(channel, `"1.5"`)}, code: gate.OfferUnreadable, detail: "mpp/request-malformed"},
		{name: "an amount a number", doc: []jsonv.Value{sellerChallenge(channel, `100`)}, code: gate.OfferUnreadable, detail: "mpp/request-malformed"},
		{name: "a cumulative amount past uint96", hold: edit(func(h *gate.Hold) { h.Charged, h.SignedMax = huge, huge }), code: gate.OfferUnreadable, detail: "mpp/input-malformed"},
		{name: "a top-up built", pairings: rails.NewRegistry(twisted{build: func(rails.Within, atr.Hash) (rails.InChannel, error) {
			return nil, rails.Refuse("mpp/within-action-not-built")
		}}), code: gate.PairingNotSupported, detail: "mpp/within-action-not-built"},
		{name: "a build that panics", pairings: rails.NewRegistry(twisted{build: func(rails.Within, atr.Hash) (rails.InChannel, error) { panic("build") }}),
			code: gate.OfferUnreadable, detail: "member-failed"},
		{name: "a signer that fails", answer: func(context.Context, rails.Request) (jsonv.Value, error) { return nil, errors.New("no") }, code: gate.SignerFailed, detail: gate.DetailSignerFailed, signs: 1},
		{name: "a signer that panics", answer: func(context.Context, rails.Request) (jsonv.Value, error) { panic("signer") }, code: gate.SignerFailed, detail: gate.DetailSignerFailed, signs: 1},
		{name: "an answer not a list", answer: oneAnswer("0x00"), code: gate.SignedNotBound, detail: gate.DetailNotCompleted, signs: 1},
		{name: "two answers", answer: oneAnswer([]jsonv.Value{"0x00", "0x00"}), code: gate.SignedNotBound, detail: gate.DetailNotCompleted, signs: 1},
		{name: "a number answer", answer: oneAnswer([]jsonv.Value{jsonv.Number(1)}), code: gate.SignedNotBound, detail: gate.DetailNotCompleted, signs: 1},
		{name: "a short signature", answer: oneAnswer([]jsonv.Value{"0x00"}), code: gate.SignedNotBound, detail: "mpp/credential-malformed", signs: 1},
		{name: "a completion that panics", pairings: rails.NewRegistry(twisted{build: func(rails.Within, atr.Hash) (rails.InChannel, error) {
			return answers{reqs: []rails.Request{jsonv.Obj("kind", "eip712")}, complete: func([]string) (jsonv.Value, error) { panic("complete") }}, nil
		}}), answer: oneAnswer([]jsonv.Value{"0x00"}), code: gate.SignedNotBound, detail: "member-failed", signs: 1},
		{name: "no requests built", pairings: rails.NewRegistry(twisted{build: func(rails.Within, atr.Hash) (rails.InChannel, error) {
			return answers{}, nil
		}}), code: gate.OfferUnreadable, detail: "member-failed"},
		{name: "another kind signed", pairings: rails.NewRegistry(twisted{kind: returning(rails.ChannelClose)}), answer: batchOK,
			code: gate.SignedNotBound, detail: "The signed payment is not a within payment.", signs: 1},
		{name: "a kind that panics", pairings: rails.NewRegistry(twisted{kind: panicking[rails.ChannelKind]("")}), answer: batchOK,
			code: gate.SignedNotBound, detail: "The signed payment is not a within payment.", signs: 1},
		{name: "another hash within", pairings: rails.NewRegistry(twisted{bound: returning(atr.Sum([]byte("abd")).String())}), answer: batchOK,
			code: gate.SignedNotBound, detail: gate.DetailVoucherNotBound, signs: 1},
		{name: "a refusal within", pairings: rails.NewRegistry(twisted{bound: refusing[string]("tempo/descriptor-mismatch")}), answer: batchOK,
			code: gate.SignedNotBound, detail: gate.DetailVoucherNotBound, signs: 1},
		{name: "a bound within that panics", pairings: rails.NewRegistry(twisted{bound: panicking[string]("")}), answer: batchOK,
			code: gate.SignedNotBound, detail: gate.DetailVoucherNotBound, signs: 1},
		{name: "another channel signed", pairings: rails.NewRegistry(twisted{ref: returning(rails.ChannelRef{Network: "eip155:42431", Channel: "0x00"})}), answer: batchOK,
			code: gate.SignedNotBound, detail: gate.DetailVoucherOtherChan, signs: 1},
		{name: "a ref that refuses", pairings: rails.NewRegistry(twisted{ref: refusing[rails.ChannelRef]("mpp/credential-malformed")}), answer: batchOK,
			code: gate.SignedNotBound, detail: gate.DetailVoucherOtherChan, signs: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &gate.Gate{Pairings: c.pairings}
			doc := c.doc
			if doc == nil {
				doc = good
			}
			h := hold
			if c.hold != nil || c.name == "no hold" {
				h = c.hold
			}
			pairing := c.pairing
			if pairing == "" {
				pairing = sessionID
			}
			answer := c.answer
			if answer == nil {
				answer = func(context.Context, rails.Request) (jsonv.Value, error) { return nil, errors.New("not to be called") }
			}
			s := &counting{answer: answer}
			var sg gate.Signer = s
			if c.noSigner {
				sg = nil
			}
			_, err := g.Within(context.Background(), doc, h, pairing, sg, c.refund, c.inputs)
			wantDeclined(t, err, c.code, c.detail)
			if s.calls.Load() != c.signs {
				t.Fatalf("%d signer calls, want %d", s.calls.Load(), c.signs)
			}
		})
	}
	// A payment that carries no H of its own passes on its channel.
	g := &gate.Gate{Pairings: rails.NewRegistry(twisted{bound: refusing[string]("mpp/not-bound-within")})}
	if _, err := g.Within(context.Background(), good, hold, sessionID, &counting{answer: batchOK}, nil, nil); err != nil {
		t.Fatalf("not bound within: %v", err)
	}
	// A policy is asked before the signer, and its refusal is the decline.
	p := &refuseAll{}
	s := &counting{answer: batchOK}
	_, err := (&gate.Gate{Policy: p}).Within(context.Background(), good, hold, sessionID, s, nil, nil)
	wantDeclined(t, err, gate.NoPayableOption, "policy/amount-above-maximum")
	if p.asked.Load() != 1 || s.calls.Load() != 0 {
		t.Fatalf("asked %d, signed %d", p.asked.Load(), s.calls.Load())
	}
}

func TestRecordCharge(t *testing.T) {
	_, hold, _ := held(t)
	hold.SignedMax = "250"
	hold.Charged = "100"
	for name, c := range map[string]struct {
		charged string
		detail  string
	}{
		"empty":          {"", gate.DetailChargedNotDecimal},
		"a point":        {"1.5", gate.DetailChargedNotDecimal},
		"a sign":         {"+200", gate.DetailChargedNotDecimal},
		"an exponent":    {"2e2", gate.DetailChargedNotDecimal},
		"79 digits":      {strings.Repeat("1", 79), gate.DetailChargedNotDecimal},
		"below":          {"99", gate.DetailChargedBelow},
		"above":          {"251", gate.DetailChargedAbove},
		"far above":      {strings.Repeat("9", 78), gate.DetailChargedAbove},
		"zero, below it": {"0", gate.DetailChargedBelow},
	} {
		if _, err := gate.RecordCharge(hold, c.charged); err == nil {
			t.Errorf("%s: recorded", name)
		} else {
			var d *gate.Decline
			if !errors.As(err, &d) || d.Code != gate.OfferUnreadable || d.Detail != c.detail {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	next, err := gate.RecordCharge(hold, "000250")
	if err != nil || next.Charged != "250" || hold.Charged != "100" {
		t.Fatalf("recorded %+v (%v); before %s", next, err, hold.Charged)
	}
	if same, err := gate.RecordCharge(hold, "100"); err != nil || same.Charged != "100" {
		t.Fatalf("the same charge again: %v", err)
	}
	_, err = gate.RecordCharge(nil, "1")
	wantDeclined(t, err, gate.SignedNotBound, gate.DetailHoldMalformed)
	bad := *hold
	bad.Charged = "x"
	_, err = gate.RecordCharge(&bad, "1")
	wantDeclined(t, err, gate.SignedNotBound, gate.DetailHoldMalformed)
}

func TestParseHold(t *testing.T) {
	_, hold, _ := held(t)
	j := hold.JSON()
	j.Set("note", "kept by the agent")
	j.Set("mac", "0x00")
	got, err := gate.ParseHold(j)
	if err != nil {
		t.Fatal(err)
	}
	if jsonv.String(got.JSON()) != jsonv.String(j) {
		t.Fatalf("round trip\n got %s\nwant %s", jsonv.Marshal(got.JSON()), jsonv.Marshal(j))
	}
	// Extra members travel through a recorded charge and a voucher.
	got.SignedMax = "5"
	next, err := gate.RecordCharge(got, "5")
	if err != nil || !next.JSON().Has("note") {
		t.Fatalf("extras dropped: %v", err)
	}
	// An extra cannot shadow one of the eight.
	got.Extra.Set("charged", "999")
	if c, _ := got.JSON().GetString("charged"); c != "0" {
		t.Fatalf("charged shadowed: %s", c)
	}
	for name, v := range map[string]jsonv.Value{
		"null":              nil,
		"a list":            []jsonv.Value{j},
		"a string":          "hold",
		"no opening":        without(j, "opening"),
		"an opening string": with(j, "opening", "x"),
		"a number charged":  with(j, "charged", jsonv.Number(0)),
		"no channel":        without(j, "channel"),
		"a number h":        with(j, "h", jsonv.Number(1)),
		"signedMax -1":      with(j, "signedMax", "-1"),
		"a null atr":        with(j, "atr", nil),
	} {
		_, err := gate.ParseHold(v)
		var d *gate.Decline
		if !errors.As(err, &d) || d.Code != gate.SignedNotBound || d.Detail != gate.DetailHoldMalformed {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func with(o *jsonv.Object, k string, v jsonv.Value) *jsonv.Object {
	x := o.Clone()
	x.Set(k, v)
	return x
}

func without(o *jsonv.Object, k string) *jsonv.Object {
	x := o.Clone()
	x.Delete(k)
	return x
}

// TestChannelCallsTakeAnyJSON: documents, openings, landed receipts and
// holds of every JSON shape end in a result or a decline, never a panic,
// and nothing is signed for a document that is not a challenge list.
func TestChannelCallsTakeAnyJSON(t *testing.T) {
	g, hold, o := held(t)
	shapes := []jsonv.Value{nil, true, jsonv.Number(-1), "x", []jsonv.Value{nil}, jsonv.Obj(), (*jsonv.Object)(nil),
		jsonv.Obj("payload", nil), jsonv.Obj("challenge", jsonv.Obj("request", "e30"), "payload", jsonv.Obj("action", "open")),
		jsonv.Obj("intent", "session", "method", "tempo", "request", jsonv.Number(1), "opaque", jsonv.Obj()),
		jsonv.Obj("intent", "session", "method", "tempo", "request", "e30", "expires", sessionExp, "realm", "r", "id", "i")}
	s := &counting{answer: batchKey(t)}
	for _, v := range shapes {
		_, _ = g.OpenChannel(abc, sessionID, v, nil)
		_, _ = g.OpenChannel(abc, sessionID, o, v)
		_, _ = gate.ParseHold(v)
		j := hold.JSON()
		j.Set("opening", v)
		if h, err := gate.ParseHold(j); err == nil {
			_, _ = g.Within(context.Background(), []jsonv.Value{sellerChallenge(hold.Channel, `"1"`)}, h, sessionID, s, nil, nil)
		}
		_, _ = g.Within(context.Background(), v, hold, sessionID, s, nil, v)
		_, _ = g.Within(context.Background(), []jsonv.Value{v, v}, hold, sessionID, s, nil, nil)
	}
	if s.calls.Load() != 0 {
		t.Fatalf("%d signer calls", s.calls.Load())
	}
}
