package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/temponode"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/tempo"
)

// TestPushNeedsRPC: a push payment (the signer broadcasts) is declined
// before anything is signed without --rpc, naming the flag; with --rpc it is
// broadcast through the node, which lands it, and H is read back.
func TestPushNeedsRPC(t *testing.T) {
	terms := []byte(`{"atrVersion":"1","id":"push-cli"}`)
	h := atr.Sum(terms)
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(terms) }))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	old := stepsClient
	stepsClient = func(bool) atr.Doer { return srv.Client() }
	t.Cleanup(func() { stepsClient = old })
	request := jsonv.Obj("amount", "1000000", "currency", strings.ToLower(tempo.PathUSD.Hex()),
		"methodDetails", jsonv.Obj("chainId", 42431), "recipient", "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00")
	c := jsonv.Obj("realm", "api.seller.example", "method", "tempo", "intent", "charge",
		"request", mpp.EncodeObject(request), "expires", time.Now().Add(5*time.Minute).UTC().Format("2006-01-02T15:04:05Z"))
	doc, err := mpp.Place([]jsonv.Value{c}, h, "https://atr.seller.example/"+h.String(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"transact", "--dev-key", "--network", "eip155:42431", "--max-amount", "1000000", "--pairing", tempo.PushID}

	code, out, errs := runCLI(t, jsonv.String(doc), args...)
	if code != exitDeclined || !strings.Contains(out, `"signer-failed"`) || strings.Contains(out, "moved") || !strings.Contains(errs, "--rpc URL") {
		t.Fatalf("without --rpc: exit %d\n%s\n%s", code, out, errs)
	}

	node, url, stop := temponode.Start(42431, "")
	defer stop()
	code, out, errs = runCLI(t, jsonv.String(doc), append(args, "--rpc", url)...)
	if code != exitOK || len(node.Sent()) != 1 || !strings.Contains(out, `"landed"`) || !strings.Contains(out, h.String()) {
		t.Fatalf("with --rpc: exit %d, %d sent\n%s\n%s", code, len(node.Sent()), out, errs)
	}

	code, _, errs = runCLI(t, jsonv.String(doc), "transact", "--dev-key", "--network", "xrpl:1", "--max-amount", "1", "--rpc", url)
	if code != exitUsage || !strings.Contains(errs, "--rpc serves eip155") {
		t.Fatalf("--rpc on another chain: exit %d: %s", code, errs)
	}
}
