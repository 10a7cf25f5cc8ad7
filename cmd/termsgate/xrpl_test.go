package main

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/rails/xrpl/xrplrpc"
	"github.com/termsgate/termsgate/signer"
)

// The CLI's XRPL keys: the published payer for --dev-key, a seed file
// (owner-only) for --key-file, on an xrpl network only.
func TestXRPLChainKeys(t *testing.T) {
	var stderr bytes.Buffer
	k := &keyFlags{network: "xrpl:1", devKey: true}
	s, err := k.signer(&stderr)
	if err != nil || s.Account() != "xrpl:1:r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC" {
		t.Fatalf("dev key: %v, %v", s, err)
	}
	if !strings.Contains(stderr.String(), "PUBLISHED xrpl") {
		t.Fatalf("no warning: %q", stderr.String())
	}
	dir := t.TempDir()
	seedFile := filepath.Join(dir, "seed")
	seed := xrpl.EncodeSeed(signer.XRPLDevEntropy, xrpl.Ed25519)
	if err := os.WriteFile(seedFile, []byte(seed+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k = &keyFlags{network: "xrpl:1", keyFile: seedFile}
	if _, err := k.signer(&stderr); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("a world-readable seed file: %v", err)
	}
	if err := os.Chmod(seedFile, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = k.signer(&stderr)
	if err != nil || s.Account() != "xrpl:1:r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC" {
		t.Fatalf("seed file: %v, %v", s, err)
	}
	// It signs what the XRPL pairings ask, and nothing for another account.
	tx := jsonv.Obj("TransactionType", "Payment", "Flags", 0, "Account", "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN",
		"Destination", "r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC", "Amount", "1", "Fee", "12", "Sequence", 1)
	if _, err := s.Sign(context.Background(), jsonv.Obj("kind", xrpl.KindTx, "txJson", tx)); err == nil {
		t.Fatal("signed a transaction of another account")
	}
	k = &keyFlags{network: "xrpl:one", devKey: true}
	if _, err := k.signer(&stderr); err == nil {
		t.Fatal("a malformed xrpl network was accepted")
	}
}

// --xrpl-rpc gives the transport the XRPL inputs for the signer's account.
func TestXRPLRPCFlag(t *testing.T) {
	ledger := &xrplrpc.Ledger{Current: 500, BaseFee: 10, OpenFee: 10, Accounts: map[string]uint32{"r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC": 3}}
	srv := httptest.NewServer(ledger)
	defer srv.Close()
	fs := flag.NewFlagSet("pay", flag.ContinueOnError)
	x := addXRPLFlags(fs)
	if err := fs.Parse([]string{"--xrpl-rpc", srv.URL}); err != nil {
		t.Fatal(err)
	}
	s, _ := signer.XRPLDev("xrpl:1")
	in := x.inputs(s, srv.Client())
	got := in(xrpl.ChargeID)
	if got == nil {
		t.Fatal("no inputs")
	}
	uv, _ := got.Get("validUntil")
	until, _ := jsonv.AsSafeInt(uv)
	got.Delete("validUntil")
	if jsonv.String(got) != `{"fee":"10","sequence":3,"lastLedgerSequence":520}` || until < time.Now().Unix()+200 || until > time.Now().Unix()+220 {
		t.Fatalf("inputs %s, validUntil %d", jsonv.String(got), until)
	}
	evm, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if x.inputs(evm, srv.Client()) != nil {
		t.Fatal("XRPL inputs for an EVM signer")
	}
}

// TestXRPLChannelCommands: the session opening paid with transact (the
// published XRPL key, XS2's inputs), held, a claim signed inside the
// channel, the charge recorded, the channel closed.
func TestXRPLChannelCommands(t *testing.T) {
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("abc")) }))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	old := stepsClient
	stepsClient = func(bool) atr.Doer { return srv.Client() }
	stepsNow = func() time.Time { return time.Unix(1780000000, 0) }
	defer func() { stepsClient, stepsNow = old, time.Now }()
	request := func(channel, amount string) string {
		return `{"amount":"` + amount + `","channelId":"` + channel + `","methodDetails":{"network":"testnet"},"recipient":"rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN"}`
	}
	c := jsonv.Obj("realm", "api.seller.example", "method", "xrpl", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(request("", "100"))), "expires", "2026-09-21T14:14:20Z")
	h := atr.Sum([]byte("abc"))
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	inputs := `{"deposit":"1000000","validUntil":1780000200,"xrpl":{"publicKey":"0xED06895BEC3FDE4090F06D840770D888D49E3089B3757C4285E3851BC33964E0F9","settleDelay":3600,"fee":"12","sequence":7,"lastLedgerSequence":1000}}`
	code, out, errs := runCLI(t, jsonv.String(doc), "transact", "--dev-key", "--network", "xrpl:1", "--pairing", xrpl.SessionID, "--inputs", inputs, "--max-amount", "1000000")
	if code != exitOK {
		t.Fatalf("transact exit %d: %s %s", code, out, errs)
	}
	code, out, errs = runCLI(t, out, "channel-open", "--pairing", xrpl.SessionID)
	if code != exitOK {
		t.Fatalf("channel-open exit %d: %s %s", code, out, errs)
	}
	held := parsed(t, out)
	channel, _ := member(t, held, "hold", "channel").(string)
	if channel != "7FEED84DE7A40383F2CE4FCFC272CDB1816F255374F9110A75C6133CF776F167" || member(t, held, "hold", "signedMax") != "100" {
		t.Fatalf("held %s", out)
	}
	charged := held.Clone()
	charged.Set("charged", "100")
	code, out, errs = runCLI(t, jsonv.String(charged), "channel-charge", "--pairing", xrpl.SessionID)
	if code != exitOK {
		t.Fatalf("channel-charge exit %d: %s %s", code, out, errs)
	}
	in := parsed(t, out)
	within := jsonv.Obj("id", "in-channel", "realm", "api.seller.example", "method", "xrpl", "intent", "session",
		"request", mpp.EncodeB64URL([]byte(request(channel, "50"))), "expires", "2026-09-21T14:14:20Z")
	in.Set("document", []jsonv.Value{within})
	code, out, errs = runCLI(t, jsonv.String(in), "channel-within", "--dev-key", "--network", "xrpl:1", "--pairing", xrpl.SessionID, "--max-amount", "1000")
	if code != exitOK {
		t.Fatalf("channel-within exit %d: %s %s", code, out, errs)
	}
	claim := parsed(t, out)
	if member(t, claim, "signed", "payload", "amount") != "150" || member(t, claim, "hold", "signedMax") != "150" {
		t.Fatalf("claim %s", out)
	}
	closing := claim.Clone()
	closing.Set("document", []jsonv.Value{within})
	closing.Set("refund", jsonv.Obj())
	code, out, errs = runCLI(t, jsonv.String(closing), "channel-within", "--dev-key", "--network", "xrpl:1", "--pairing", xrpl.SessionID, "--max-amount", "1000")
	if code != exitOK || member(t, parsed(t, out), "signed", "payload", "action") != "close" || member(t, parsed(t, out), "signed", "payload", "amount") != "100" {
		t.Fatalf("close exit %d: %s %s", code, out, errs)
	}
}
