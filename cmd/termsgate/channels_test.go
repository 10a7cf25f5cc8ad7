package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
)

const channelRequest = `{"amount":"100","currency":"0x20c0000000000000000000000000000000000000","methodDetails":{"chainId":42431,"escrowContract":"0x4D50500000000000000000000000000000000000","sessionProtocol":"v2"},"recipient":"0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"}`

// sessionFixture serves "abc" on loopback and returns the session
// challenge advertising its hash.
func sessionFixture(t *testing.T) []jsonv.Value {
	t.Helper()
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("abc")) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	old := stepsClient
	stepsClient = func(bool) atr.Doer { return srv.Client() }
	stepsNow = func() time.Time { return time.Unix(1790000000, 0) }
	t.Cleanup(func() { stepsClient, stepsNow = old, time.Now })
	c := jsonv.Obj("realm", "api.seller.example", "method", "tempo", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(channelRequest)), "expires", "2026-09-21T14:14:20Z")
	h := atr.Sum([]byte("abc"))
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func parsed(t *testing.T, out string) *jsonv.Object {
	t.Helper()
	v, err := jsonv.Parse([]byte(out))
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return v.(*jsonv.Object)
}

func member(t *testing.T, o *jsonv.Object, path ...string) jsonv.Value {
	t.Helper()
	var v jsonv.Value = o
	for _, k := range path {
		x, ok := jsonv.AsObject(v)
		if !ok {
			t.Fatalf("%v: not an object at %q", path, k)
		}
		v, _ = x.Get(k)
	}
	return v
}

func inChannelDoc(channel, amount string) []jsonv.Value {
	req := strings.Replace(channelRequest, `"amount":"100"`, `"amount":"`+amount+`"`, 1)
	req = strings.Replace(req, `"methodDetails":{`, `"methodDetails":{"channelId":"`+channel+`",`, 1)
	return []jsonv.Value{jsonv.Obj("id", "in-channel", "realm", "api.seller.example", "method", "tempo", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(req)), "expires", "2026-09-21T14:14:20Z")}
}

// TestChannelCommands: pay the opening with transact, hold it, sign a
// voucher, record the charge, close.
func TestChannelCommands(t *testing.T) {
	doc := sessionFixture(t)
	code, out, errs := runCLI(t, jsonv.String(doc), "transact", "--dev-key", "--max-amount", "10000000", "--network", "eip155:42431",
		"--pairing", "mpp/session/tempo", "--inputs", `{"deposit":"10000000"}`)
	if code != exitOK {
		t.Fatalf("transact exit %d: %s", code, errs)
	}
	code, out, errs = runCLI(t, out, "channel-open")
	if code != exitOK {
		t.Fatalf("channel-open exit %d: %s %s", code, out, errs)
	}
	held := parsed(t, out)
	channel := member(t, held, "hold", "channel").(string)
	if member(t, held, "atrHash") != atr.Sum([]byte("abc")).String() || member(t, held, "hold", "signedMax") != "0" {
		t.Fatalf("held %s", out)
	}

	in := held.Clone()
	in.Set("document", inChannelDoc(channel, "100"))
	code, out, errs = runCLI(t, jsonv.String(in), "channel-within", "--dev-key", "--max-amount", "10000000")
	if code != exitOK {
		t.Fatalf("channel-within exit %d: %s %s", code, out, errs)
	}
	voucher := parsed(t, out)
	if member(t, voucher, "signed", "payload", "cumulativeAmount") != "100" || member(t, voucher, "hold", "signedMax") != "100" {
		t.Fatalf("voucher %s", out)
	}

	charge := voucher.Clone()
	charge.Set("charged", "100")
	code, out, errs = runCLI(t, jsonv.String(charge), "channel-charge")
	if code != exitOK || member(t, parsed(t, out), "hold", "charged") != "100" {
		t.Fatalf("channel-charge exit %d: %s %s", code, out, errs)
	}
	closing := parsed(t, out)
	closing.Set("document", inChannelDoc(channel, "100"))
	closing.Set("refund", jsonv.Obj())
	code, out, errs = runCLI(t, jsonv.String(closing), "channel-within", "--dev-key", "--max-amount", "10000000")
	if code != exitOK || member(t, parsed(t, out), "signed", "payload", "action") != "close" {
		t.Fatalf("close exit %d: %s %s", code, out, errs)
	}

	// Closed contracts and the gate's declines.
	hold := jsonv.String(member(t, held, "hold"))
	cases := []struct {
		stdin string
		args  []string
		want  string
		code  int
	}{
		{`{"atr":"YWJj","signed":{},"maxAmount":"1"}`, []string{"channel-open"}, `unknown member "maxAmount"`, exitUsage},
		{`{"atr":"YWJj"}`, []string{"channel-open"}, `missing member "signed"`, exitUsage},
		{`{"atr":"YWJk","signed":` + jsonv.String(member(t, held, "hold", "opening")) + `}`, []string{"channel-open"}, "The opening does not carry the hash of these bytes.", exitDeclined},
		{`{"atr":"YWJj","signed":{}}`, []string{"channel-open", "--pairing", "x402/exact/eip155/eip3009"}, "The pairing has no channel.", exitDeclined},
		{`{"hold":` + hold + `,"document":[],"maxAmount":"1"}`, []string{"channel-within", "--dev-key", "--max-amount", "10000000"}, `unknown member "maxAmount"`, exitUsage},
		{`{"hold":` + hold + `,"document":[],"refund":{"x":"1"}}`, []string{"channel-within", "--dev-key", "--max-amount", "10000000"}, `refund: unknown member "x"`, exitUsage},
		{`{"hold":` + hold + `,"document":[]}`, []string{"channel-within"}, "no signer", exitUsage},
		{`{"hold":` + hold + `}`, []string{"channel-within", "--dev-key", "--max-amount", "10000000"}, `missing member "document"`, exitUsage},
		{`{"hold":` + hold + `,"document":[]}`, []string{"channel-within", "--dev-key", "--max-amount", "10000000"}, `"mpp/no-payable-option"`, exitDeclined},
		{`{"hold":{"pairing":"mpp/session/tempo"},"document":[]}`, []string{"channel-within", "--dev-key", "--max-amount", "10000000"}, "The channel hold is malformed.", exitDeclined},
		{`{"hold":` + hold + `,"charged":100}`, []string{"channel-charge"}, `"charged" is not a string`, exitUsage},
		{`{"hold":` + hold + `,"charged":"1"}`, []string{"channel-charge"}, "The charged amount is above the largest amount signed in the channel.", exitDeclined},
		{`{"charged":"1"}`, []string{"channel-charge"}, `missing member "hold"`, exitUsage},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, c.stdin, c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v %s: exit %d, want %d with %q; got out %q err %q", c.args, c.stdin[:min(len(c.stdin), 40)], code, c.code, c.want, out, errs)
		}
	}
}
