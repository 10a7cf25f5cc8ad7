package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/sorobansim"
	"github.com/termsgate/termsgate/internal/stellarseller"
)

// termsgate pay on Stellar: the inputs from --stellar-rpc, the published
// seed with --dev-key, the seller verifying the signed authorization.
func TestPayStellarWithRPC(t *testing.T) {
	node := &sorobansim.Server{Ledger: 988, Nonce: 11}
	seller := stellarseller.New([]byte("terms of the stellar seller"), []byte(`{"report":"paid"}`), func() uint32 { return 988 })
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "rpc.stellar.example") {
			node.ServeHTTP(w, r)
			return
		}
		seller.ServeHTTP(w, r)
	}), append([]string{"rpc.stellar.example"}, loopback.DefaultNames...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	old := payClient
	payClient = func(bool) *http.Client { return srv.Client() }
	t.Cleanup(func() { payClient = old })

	code, out, errs := runCLI(t, "", "pay", "--dev-key", "--network", "stellar:testnet", "--max-amount", "10000000",
		"--stellar-rpc", "https://rpc.stellar.example/", seller.ResourceURL())
	if code != exitOK || out != `{"report":"paid"}` {
		t.Fatalf("exit %d stdout %q: %s (%v)", code, out, errs, seller.LastRejection())
	}
	if node.Calls.Load() != 2 || seller.Paid.Load() != 1 {
		t.Fatalf("%d RPC calls, %d paid", node.Calls.Load(), seller.Paid.Load())
	}
	code, _, errs = runCLI(t, "", "pay", "--dev-key", "--network", "stellar:testnet", "--max-amount", "9999999",
		"--stellar-rpc", "https://rpc.stellar.example/", seller.ResourceURL())
	if code == exitOK || !strings.Contains(errs, "policy/amount-above-maximum") {
		t.Fatalf("over the maximum: exit %d: %s", code, errs)
	}
	if seller.Paid.Load() != 1 {
		t.Fatal("paid over the maximum")
	}
}
