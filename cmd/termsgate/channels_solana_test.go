package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/solanaseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/x402"
)

// TestSolanaChannelCommands: an x402/batch-settlement/solana channel
// through the CLI with the published Solana seed: transact opens it,
// channel-open holds it, channel-within signs a voucher and then the close
// with the key of the hold's chain (no --network), channel-charge records.
func TestSolanaChannelCommands(t *testing.T) {
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("abc")) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	old := stepsClient
	stepsClient = func(bool) atr.Doer { return srv.Client() }
	stepsNow = func() time.Time { return time.Unix(1790000000, 0) }
	t.Cleanup(func() { stepsClient, stepsNow = old, time.Now })
	h := atr.Sum([]byte("abc"))
	option, _ := solana.PlaceCarrier(jsonv.Obj("scheme", "batch-settlement", "network", solanaseller.Devnet, "amount", "1000",
		"asset", solanaseller.Mint, "payTo", solanaseller.PayTo, "maxTimeoutSeconds", 300, "extra", jsonv.Obj(
			"feePayer", "9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu", "withdrawDelay", 3600, "tokenProgram", solana.TokenProgram.String())), h)
	doc, err := x402.Advertise(jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{option}), h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	inputs := `{"payerAuthorizer":"AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9","openSlot":"341000000","tokenProgram":"` + solana.TokenProgram.String() +
		`","recentBlockhash":"` + solanaseller.Blockhash + `","deposit":"100000","salt":"42"}`
	code, out, errs := runCLI(t, jsonv.String(doc), "transact", "--dev-key", "--max-amount", "100000", "--network", solanaseller.Devnet,
		"--pairing", solana.BatchID, "--inputs", inputs)
	if code != exitOK {
		t.Fatalf("transact exit %d: %s %s", code, out, errs)
	}
	transacted := out
	// termsgate inspect reads the opening: its channel and H in the memo.
	code, insp, errs := runCLI(t, jsonv.String(member(t, parsed(t, transacted), "signed")), "inspect")
	if code != exitOK || !strings.Contains(insp, `"channel":"8msh7T45JEaicCMYm5TZeUNeh3WjU1Xb9pAnQet4oek8"`) || !strings.Contains(insp, h.String()) {
		t.Fatalf("inspect exit %d: %s %s", code, insp, errs)
	}
	code, out, errs = runCLI(t, transacted, "channel-open", "--pairing", solana.BatchID)
	if code != exitOK {
		t.Fatalf("channel-open exit %d: %s %s", code, out, errs)
	}
	held := parsed(t, out)
	if member(t, held, "hold", "channel") != "8msh7T45JEaicCMYm5TZeUNeh3WjU1Xb9pAnQet4oek8" || member(t, held, "hold", "signedMax") != "1000" {
		t.Fatalf("held %s", out)
	}
	charge := held.Clone()
	charge.Set("charged", "1000")
	code, out, errs = runCLI(t, jsonv.String(charge), "channel-charge")
	if code != exitOK {
		t.Fatalf("channel-charge exit %d: %s %s", code, out, errs)
	}
	in := parsed(t, out)
	in.Set("document", doc)
	code, out, errs = runCLI(t, jsonv.String(in), "channel-within", "--dev-key", "--max-amount", "1000")
	if code != exitOK {
		t.Fatalf("channel-within exit %d: %s %s", code, out, errs)
	}
	voucher := parsed(t, out)
	if member(t, voucher, "signed", "payload", "voucher", "maxClaimableAmount") != "2000" || member(t, voucher, "hold", "signedMax") != "2000" {
		t.Fatalf("voucher %s", out)
	}
	closing := voucher.Clone()
	closing.Set("document", doc)
	closing.Set("refund", jsonv.Obj())
	closing.Set("inputs", jsonv.Obj("recentBlockhash", solanaseller.Blockhash))
	code, out, errs = runCLI(t, jsonv.String(closing), "channel-within", "--dev-key", "--max-amount", "1000")
	if code != exitOK || member(t, parsed(t, out), "signed", "payload", "type") != "refund" {
		t.Fatalf("close exit %d: %s %s", code, out, errs)
	}
	// A malformed refund input: declined before anything is signed.
	closing.Set("inputs", jsonv.Obj("recentBlockhash", "x"))
	code, out, _ = runCLI(t, jsonv.String(closing), "channel-within", "--dev-key", "--max-amount", "1000")
	if code != exitDeclined || member(t, parsed(t, out), "decline", "detail") != "x402/input-malformed" {
		t.Fatalf("malformed blockhash: exit %d %s", code, out)
	}
}
