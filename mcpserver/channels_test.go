package mcpserver_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
	"github.com/termsgate/termsgate/signer"
)

// The channel tools over mpp/session/tempo: the seller serves "abc" (the
// Tempo vectors' ATR), the opening is paid with atr_transact (or confirmed,
// signed and finished), held with atr_channel_open, and paid inside with
// atr_channel_within and atr_channel_record_charge.

const (
	sessionPairing = tempo.SessionID
	sessionRequest = `{"amount":"100","currency":"0x20c0000000000000000000000000000000000000","methodDetails":{"chainId":42431,"escrowContract":"0x4D50500000000000000000000000000000000000","sessionProtocol":"v2"},"recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"}`
	sessionExpires = "2026-09-21T14:14:20Z"
)

const (
	holdUnverified    = "The hold is not one this server process returned, unchanged. Pass back the latest hold exactly as returned."
	openingUnverified = "The opening is not one this server process returned, unchanged. Pass the signed opening and its mac exactly as returned."
)

var sessionATR = []byte("abc")

// batchSigner is the development key on Tempo, signing a batch request by
// request, counting calls (a batch is one call).
type batchSigner struct {
	inner *signer.Local
	calls atomic.Int64
}

func newBatchSigner(t testing.TB) *batchSigner {
	t.Helper()
	l, err := signer.FromHex(signer.AnvilKey, "eip155:42431")
	if err != nil {
		t.Fatal(err)
	}
	return &batchSigner{inner: l}
}

func (b *batchSigner) Account() string { return b.inner.Account() }

func (b *batchSigner) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	b.calls.Add(1)
	if mpp.String(req, "kind") != rails.KindBatch {
		return b.inner.Sign(ctx, req)
	}
	v, _ := req.Get("requests")
	list, _ := jsonv.AsArray(v)
	var out []jsonv.Value
	for _, r := range list {
		o, ok := jsonv.AsObject(r)
		if !ok {
			return nil, fmt.Errorf("not a request")
		}
		a, err := b.inner.Sign(ctx, o)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// sessionDocument is the opening challenge, placed with H("abc") and the
// seller's link.
func sessionDocument(t testing.TB) []jsonv.Value {
	t.Helper()
	c := jsonv.Obj("realm", "api.seller.example", "method", "tempo", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(sessionRequest)), "expires", sessionExpires)
	h := atr.Sum(sessionATR)
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// inChannel is the seller's challenge inside channel, asking for amount.
func inChannel(channel, amount string) []jsonv.Value {
	req := strings.Replace(sessionRequest, `"amount":"100"`, `"amount":"`+amount+`"`, 1)
	req = strings.Replace(req, `"methodDetails":{`, `"methodDetails":{"channelId":"`+channel+`",`, 1)
	return []jsonv.Value{jsonv.Obj("id", "in-channel", "realm", "api.seller.example", "method", "tempo", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(req)), "expires", sessionExpires)}
}

type channelSession struct {
	cs     *gosdk.ClientSession
	sg     *batchSigner
	seller *seller
	atrB64 string
}

func newChannelSession(t *testing.T, key []byte) *channelSession {
	t.Helper()
	f := loadFixture(t)
	s := newSeller(t, sessionATR)
	sg := newBatchSigner(t)
	cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg, SealKey: key}), nil)
	listTools(t, cs)
	return &channelSession{cs: cs, sg: sg, seller: s, atrB64: b64(sessionATR)}
}

// opened pays the opening with atr_transact and holds it.
func (c *channelSession) opened(t *testing.T) (transacted, hold *jsonv.Object) {
	t.Helper()
	transacted = wantOK(t, call(t, c.cs, "atr_transact", jsonv.Obj("pairing", sessionPairing, "document", sessionDocument(t),
		"inputs", jsonv.Obj("deposit", "10000000"))))
	r := wantOK(t, call(t, c.cs, "atr_channel_open", jsonv.Obj("pairing", sessionPairing, "atr", c.atrB64,
		"signed", valueAt(t, transacted, "signed"), "mac", strAt(t, transacted, "mac"))))
	if strAt(t, r, "atrHash") != hashOf(sessionATR) {
		t.Fatalf("open %s", jsonv.Marshal(r))
	}
	return transacted, objAt(t, r, "hold")
}

func TestChannelToolsVoucherChargeClose(t *testing.T) {
	c := newChannelSession(t, nil)
	transacted, hold := c.opened(t)
	if c.sg.calls.Load() != 2 {
		t.Fatalf("the opening took %d signer calls", c.sg.calls.Load())
	}
	keys := hold.Keys()
	slices.Sort(keys)
	if strings.Join(keys, ",") != "atr,channel,charged,h,mac,network,opening,pairing,signedMax" {
		t.Fatalf("hold members %v", keys)
	}
	channel := strAt(t, hold, "channel")
	if channel != strAt(t, transacted, "signed", "payload", "channelId") || strAt(t, hold, "signedMax") != "0" {
		t.Fatalf("hold %s", jsonv.Marshal(hold))
	}

	// Nothing signed yet above the zero voucher: no charge can be recorded.
	wantDecline(t, call(t, c.cs, "atr_channel_record_charge", jsonv.Obj("hold", hold, "charged", "1")),
		string(gate.OfferUnreadable), gate.DetailChargedAbove)

	within := func(hold *jsonv.Object, doc []jsonv.Value, refund *jsonv.Object) *jsonv.Object {
		t.Helper()
		args := jsonv.Obj("pairing", sessionPairing, "hold", hold, "document", doc)
		if refund != nil {
			args.Set("refund", refund)
		}
		return wantOK(t, call(t, c.cs, "atr_channel_within", args))
	}
	r := within(hold, inChannel(channel, "100"), nil)
	if strAt(t, r, "signed", "payload", "cumulativeAmount") != "100" || strAt(t, r, "hold", "signedMax") != "100" || c.sg.calls.Load() != 3 {
		t.Fatalf("voucher %s (%d calls)", jsonv.Marshal(r), c.sg.calls.Load())
	}
	charged := wantOK(t, call(t, c.cs, "atr_channel_record_charge", jsonv.Obj("hold", objAt(t, r, "hold"), "charged", "100")))
	// The next voucher is the charge recorded plus the option's amount.
	r = within(objAt(t, charged, "hold"), inChannel(channel, "100"), nil)
	if strAt(t, r, "signed", "payload", "cumulativeAmount") != "200" || strAt(t, r, "hold", "charged") != "100" {
		t.Fatalf("second voucher %s", jsonv.Marshal(r))
	}
	// The close, at the charge recorded.
	closed := within(objAt(t, r, "hold"), inChannel(channel, "100"), jsonv.Obj())
	if strAt(t, closed, "signed", "payload", "action") != "close" || strAt(t, closed, "signed", "payload", "cumulativeAmount") != "100" {
		t.Fatalf("close %s", jsonv.Marshal(closed))
	}
	// A partial refund is not built for a session; a refund member this
	// tool does not know is refused by name.
	wantDecline(t, call(t, c.cs, "atr_channel_within", jsonv.Obj("pairing", sessionPairing, "hold", objAt(t, r, "hold"),
		"document", inChannel(channel, "100"), "refund", jsonv.Obj("amount", "5"))), string(gate.PairingNotSupported), "mpp/within-action-not-built")
	ref := callUnchecked(t, c.cs, "atr_channel_within", jsonv.Obj("pairing", sessionPairing, "hold", objAt(t, r, "hold"),
		"document", inChannel(channel, "100"), "refund", jsonv.Obj("amount", "5", "maxAmount", "1")))
	if !isRefusal(ref, "atr_channel_within") || !strings.Contains(ref.text, `unknown argument "refund.maxAmount"`) {
		t.Fatalf("refund.maxAmount: %s", ref.text)
	}
	ref = callUnchecked(t, c.cs, "atr_channel_within", jsonv.Obj("pairing", sessionPairing, "hold", objAt(t, r, "hold"),
		"document", inChannel(channel, "100"), "refund", jsonv.Obj("amount", jsonv.Number(5))))
	if !isRefusal(ref, "atr_channel_within") || !strings.Contains(ref.text, `"refund.amount" must be a string`) {
		t.Fatalf("refund.amount a number: %s", ref.text)
	}
	// Another channel named: declined, nothing signed.
	before := c.sg.calls.Load()
	wantDecline(t, call(t, c.cs, "atr_channel_within", jsonv.Obj("pairing", sessionPairing, "hold", objAt(t, r, "hold"),
		"document", inChannel("0x"+strings.Repeat("11", 32), "100"))), string(gate.NoPayableOption), gate.DetailOtherChannel)
	if c.sg.calls.Load() != before || c.seller.fetches.Load() != 1 {
		t.Fatalf("%d signer calls, %d fetches", c.sg.calls.Load()-before, c.seller.fetches.Load())
	}
}

// TestChannelOpeningSeal: atr_finish puts the opening's mac beside signed
// for a channel pairing (and only then); atr_channel_open refuses an
// opening that is not exactly one this server process (or its key)
// returned, and one checked against other bytes.
func TestChannelOpeningSeal(t *testing.T) {
	key := bytes.Repeat([]byte{0x3c}, mcpserver.SealKeySize)
	c := newChannelSession(t, key)
	conf := wantOK(t, call(t, c.cs, "atr_confirm", jsonv.Obj("pairing", sessionPairing, "document", sessionDocument(t),
		"account", c.sg.Account(), "inputs", jsonv.Obj("deposit", "10000000"))))
	ctx := context.Background()
	tx, err := c.sg.inner.Sign(ctx, objAt(t, conf, "request"))
	if err != nil {
		t.Fatal(err)
	}
	finish := func(sig jsonv.Value) *jsonv.Object {
		return wantOK(t, call(t, c.cs, "atr_finish", jsonv.Obj("pairing", sessionPairing, "atr", c.atrB64, "chosen", valueAt(t, conf, "chosen"), "signature", sig)))
	}
	next := finish(tx)
	if next.Has("mac") || !next.Has("next") {
		t.Fatalf("step 1 %s", jsonv.Marshal(next))
	}
	voucher, err := c.sg.inner.Sign(ctx, objAt(t, next, "next"))
	if err != nil {
		t.Fatal(err)
	}
	fin := finish([]jsonv.Value{tx, voucher})
	signed, mac := valueAt(t, fin, "signed"), strAt(t, fin, "mac")
	openArgs := func(pairing, atrB64 string, signed jsonv.Value, mac string) *jsonv.Object {
		return jsonv.Obj("pairing", pairing, "atr", atrB64, "signed", signed, "mac", mac)
	}
	hold := objAt(t, wantOK(t, call(t, c.cs, "atr_channel_open", openArgs(sessionPairing, c.atrB64, signed, mac))), "hold")

	// A server with the same key accepts the opening and the hold; one
	// with another key (a restart without a key) refuses both.
	f := loadFixture(t)
	same := connectHTTP(t, newServer(t, f, c.seller, mcpserver.Config{SealKey: key}), nil)
	listTools(t, same)
	wantOK(t, call(t, same, "atr_channel_open", openArgs(sessionPairing, c.atrB64, signed, mac)))
	wantOK(t, call(t, same, "atr_channel_record_charge", jsonv.Obj("hold", hold, "charged", "0")))
	other := connectHTTP(t, newServer(t, f, c.seller, mcpserver.Config{}), nil)
	listTools(t, other)
	wantDecline(t, call(t, other, "atr_channel_open", openArgs(sessionPairing, c.atrB64, signed, mac)), string(gate.OpeningUnverified), openingUnverified)
	wantDecline(t, call(t, other, "atr_channel_record_charge", jsonv.Obj("hold", hold, "charged", "0")), string(gate.HoldUnverified), holdUnverified)

	changed := signed.(*jsonv.Object).Clone()
	changed.Set("source", "did:pkh:eip155:42431:0x0000000000000000000000000000000000000000")
	for name, a := range map[string]*jsonv.Object{
		"a zeroed mac":      openArgs(sessionPairing, c.atrB64, signed, "0x"+strings.Repeat("0", 64)),
		"an uppercase mac":  openArgs(sessionPairing, c.atrB64, signed, strings.ToUpper(mac)),
		"no mac":            openArgs(sessionPairing, c.atrB64, signed, ""),
		"a changed opening": openArgs(sessionPairing, c.atrB64, changed, mac),
		"another pairing":   openArgs(tempo.MemoID, c.atrB64, signed, mac),
	} {
		t.Run(name, func(t *testing.T) {
			wantDecline(t, call(t, c.cs, "atr_channel_open", a), string(gate.OpeningUnverified), openingUnverified)
		})
	}
	// A good mac over other bytes: the opening does not carry their hash.
	wantDecline(t, call(t, c.cs, "atr_channel_open", openArgs(sessionPairing, b64([]byte("abd")), signed, mac)),
		string(gate.SignedNotBound), gate.DetailOpeningNotBound)
	// Member order does not matter.
	wantOK(t, call(t, c.cs, "atr_channel_open", openArgs(sessionPairing, c.atrB64, reordered(signed), mac)))
}

// TestChannelHoldSeal: a hold that is not exactly one this server returned
// is refused hold-unverified, before anything is signed.
func TestChannelHoldSeal(t *testing.T) {
	c := newChannelSession(t, nil)
	_, hold := c.opened(t)
	channel := strAt(t, hold, "channel")
	edit := func(f func(o *jsonv.Object)) *jsonv.Object {
		o := hold.Clone()
		f(o)
		return o
	}
	before := c.sg.calls.Load()
	for name, h := range map[string]*jsonv.Object{
		"a raised signedMax": edit(func(o *jsonv.Object) { o.Set("signedMax", "1000000") }),
		"a lowered charge":   edit(func(o *jsonv.Object) { o.Set("charged", "00") }),
		"an extra member":    edit(func(o *jsonv.Object) { o.Set("extra", "1") }),
		"no charged":         edit(func(o *jsonv.Object) { o.Delete("charged") }),
		"no mac":             edit(func(o *jsonv.Object) { o.Delete("mac") }),
		"a zeroed mac":       edit(func(o *jsonv.Object) { o.Set("mac", "0x"+strings.Repeat("0", 64)) }),
		"another channel":    edit(func(o *jsonv.Object) { o.Set("channel", "0x"+strings.Repeat("11", 32)) }),
		"an empty object":    jsonv.Obj(),
	} {
		t.Run(name, func(t *testing.T) {
			wantDecline(t, call(t, c.cs, "atr_channel_within", jsonv.Obj("pairing", sessionPairing, "hold", h, "document", inChannel(channel, "100"))),
				string(gate.HoldUnverified), holdUnverified)
			wantDecline(t, call(t, c.cs, "atr_channel_record_charge", jsonv.Obj("hold", h, "charged", "0")), string(gate.HoldUnverified), holdUnverified)
		})
	}
	if c.sg.calls.Load() != before {
		t.Fatalf("%d signer calls on edited holds", c.sg.calls.Load()-before)
	}
	// Member order does not matter.
	wantOK(t, call(t, c.cs, "atr_channel_record_charge", jsonv.Obj("hold", reordered(hold), "charged", "0")))
}
