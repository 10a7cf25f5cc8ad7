package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/x402"
)

// termsgate agree: the first run prints the payment to approve and signs
// nothing; the second, given that file, pays it and prints the receipt.
func TestAgreeApproveThenPay(t *testing.T) {
	terms := []byte(`{"terms":"agreement first"}`)
	h := atr.Sum(terms)
	url := "https://api.seller.example/agreement/" + h.String()
	doc := jsonv.Obj("x402Version", 2, "accepts", []jsonv.Value{jsonv.Obj("scheme", "exact", "network", "eip155:84532",
		"amount", "1", "asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("name", "USDC", "version", "2"))})
	doc, _ = x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
	var unpaid, paid atomic.Int64
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("PAYMENT-SIGNATURE") == "" {
			unpaid.Add(1)
			w.Header().Set("PAYMENT-REQUIRED", x402.EncodeHeader(doc))
			w.WriteHeader(402)
			return
		}
		paid.Add(1)
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("atrHash", h.String(), "agreed", true, "network", "eip155:84532", "transaction", "0xab")))
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	old := stepsClient
	stepsClient = func(bool) atr.Doer { return srv.Client() }
	defer func() { stepsClient = old }()

	dir := t.TempDir()
	atrFile := filepath.Join(dir, "atr.json")
	_ = os.WriteFile(atrFile, terms, 0o600)
	code, out, errs := runCLI(t, "", "agree", "--url", url, "--dev-key", "--max-amount", "1000000", atrFile)
	if code != exitOK || !strings.Contains(out, `"approve":{"url":"`+url) || paid.Load() != 0 {
		t.Fatalf("first run: exit %d, out %s, err %s, %d paid", code, out, errs, paid.Load())
	}
	approved := filepath.Join(dir, "approved.json")
	_ = os.WriteFile(approved, []byte(out), 0o600)
	code, out, errs = runCLI(t, "", "agree", "--url", url, "--dev-key", "--max-amount", "1000000", "--approved", approved, atrFile)
	if code != exitOK || !strings.Contains(out, `"receipt":{"atrHash":"`+h.String()) {
		t.Fatalf("second run: exit %d, out %s, err %s", code, out, errs)
	}
	if unpaid.Load() != 1 || paid.Load() != 1 {
		t.Fatalf("%d unpaid, %d paid requests", unpaid.Load(), paid.Load())
	}
}
