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
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/vectors"
)

// TestSolanaSessionCommands: the opening paid with transact (the published
// seed), inspected, held, a voucher signed inside the channel, the charge
// recorded, the channel closed.
func TestSolanaSessionCommands(t *testing.T) {
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("abc")) }))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	old := stepsClient
	stepsClient = func(bool) atr.Doer { return srv.Client() }
	stepsNow = func() time.Time { return time.Unix(1780000000, 0) }
	defer func() { stepsClient, stepsNow = old, time.Now }()
	f, err := vectors.Load("mpp-session-hedera-solana-xrpl.json")
	if err != nil {
		t.Fatal(err)
	}
	placed := member(t, f, "SS1", "solana", "placed").(*jsonv.Object)
	const network = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
	// The deposit counts in full against the policy's maximum.
	code, out, _ := runCLI(t, jsonv.String([]jsonv.Value{placed}), "transact", "--dev-key", "--network", network, "--pairing", solana.SessionID, "--inputs", `{"validUntil":1780000090}`, "--max-amount", "9999999")
	if code != exitDeclined || !strings.Contains(out, "policy/amount-above-maximum") {
		t.Fatalf("a deposit above the maximum: exit %d %s", code, out)
	}
	code, out, errs := runCLI(t, jsonv.String([]jsonv.Value{placed}), "transact", "--dev-key", "--network", network, "--pairing", solana.SessionID, "--inputs", `{"validUntil":1780000090}`, "--max-amount", "10000000")
	if code != exitOK {
		t.Fatalf("transact exit %d: %s %s", code, out, errs)
	}
	if got := member(t, parsed(t, out), "signed", "payload", "transaction"); got != member(t, f, "SV2", "wireBase64") {
		t.Fatalf("opening %v", got)
	}
	// inspect reads transact's output as printed (no jq .signed).
	code, ins, errs := runCLI(t, out, "inspect")
	if code != exitOK || member(t, parsed(t, ins), "pairing") != solana.SessionID || member(t, parsed(t, ins), "amount") != "10000000" ||
		member(t, parsed(t, ins), "h") != member(t, f, "SV2", "expectBound") {
		t.Fatalf("inspect exit %d: %s %s", code, ins, errs)
	}
	code, out, errs = runCLI(t, out, "channel-open", "--pairing", solana.SessionID)
	if code != exitOK {
		t.Fatalf("channel-open exit %d: %s %s", code, out, errs)
	}
	held := parsed(t, out)
	channel, _ := member(t, held, "hold", "channel").(string)
	if channel != member(t, f, "SV2", "channel") || member(t, held, "hold", "signedMax") != "0" {
		t.Fatalf("held %s", out)
	}
	within := placed.Clone()
	req, _ := mpp.DecodeObject(mpp.String(within, "request"))
	d, _ := req.GetObject("methodDetails")
	d.Set("channelId", channel)
	within.Set("request", mpp.EncodeObject(req))
	in := held.Clone()
	in.Set("document", []jsonv.Value{within})
	code, out, errs = runCLI(t, jsonv.String(in), "channel-within", "--dev-key", "--network", network, "--pairing", solana.SessionID, "--max-amount", "100")
	if code != exitOK {
		t.Fatalf("channel-within exit %d: %s %s", code, out, errs)
	}
	voucher := parsed(t, out)
	if member(t, voucher, "signed", "payload", "voucher", "voucher", "cumulativeAmount") != "25" || member(t, voucher, "hold", "signedMax") != "25" {
		t.Fatalf("voucher %s", out)
	}
	code, ins, _ = runCLI(t, jsonv.String(voucher), "inspect")
	if code != exitOK || member(t, parsed(t, ins), "amount") != "25" || member(t, parsed(t, ins), "kind") != "channel-within" {
		t.Fatalf("inspect voucher exit %d: %s", code, ins)
	}
	charged := voucher.Clone()
	charged.Set("charged", "25")
	code, out, errs = runCLI(t, jsonv.String(charged), "channel-charge", "--pairing", solana.SessionID)
	if code != exitOK {
		t.Fatalf("channel-charge exit %d: %s %s", code, out, errs)
	}
	// A second voucher is judged by what it adds: 25 more, under a
	// maximum of 30, for a cumulative 50.
	next := parsed(t, out)
	next.Set("document", []jsonv.Value{within})
	code, out, errs = runCLI(t, jsonv.String(next), "channel-within", "--dev-key", "--network", network, "--pairing", solana.SessionID, "--max-amount", "30")
	if code != exitOK || member(t, parsed(t, out), "signed", "payload", "voucher", "voucher", "cumulativeAmount") != "50" {
		t.Fatalf("second voucher exit %d: %s %s", code, out, errs)
	}
	charged = parsed(t, out)
	charged.Set("charged", "50")
	code, out, errs = runCLI(t, jsonv.String(charged), "channel-charge", "--pairing", solana.SessionID)
	if code != exitOK {
		t.Fatalf("channel-charge exit %d: %s %s", code, out, errs)
	}
	closing := parsed(t, out)
	closing.Set("document", []jsonv.Value{within})
	closing.Set("refund", jsonv.Obj())
	code, out, errs = runCLI(t, jsonv.String(closing), "channel-within", "--dev-key", "--network", network, "--pairing", solana.SessionID, "--max-amount", "100")
	if code != exitOK || member(t, parsed(t, out), "signed", "payload", "action") != "close" ||
		member(t, parsed(t, out), "signed", "payload", "voucher", "voucher", "cumulativeAmount") != "50" {
		t.Fatalf("close exit %d: %s %s", code, out, errs)
	}
}
