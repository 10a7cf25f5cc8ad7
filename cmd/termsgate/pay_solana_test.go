package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/solanaseller"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
)

// termsgate pay of an x402/exact/solana offer under the default spend
// policy (no --max-payable): the request states how long the signed
// transaction stays payable (its blockhash's lifetime), so the policy
// allows it within --max-amount and the demo seller, which verifies the
// payment with solana-go, serves the resource; a --max-payable shorter than
// that lifetime still refuses it, unsigned.
func TestPaySolanaExactDefaultPolicy(t *testing.T) {
	seller := solanaseller.NewExact(demo.ATR, []byte(`{"report":"paid"}`))
	node := &solanarpc.Node{Slot: 341000000, Blockhash: solanaseller.Blockhash, LastValid: 320000150,
		Mints: map[string]solanarpc.NodeMint{solanaseller.Mint: {Owner: solana.TokenProgram.String(), Decimals: 6}}}
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "localhost") {
			node.ServeHTTP(w, r)
			return
		}
		seller.ServeHTTP(w, r)
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	old := payClient
	payClient = func(bool) *http.Client { return srv.Client() }
	defer func() { payClient = old }()
	args := []string{"pay", "--dev-key", "--network", solanaseller.Devnet, "--solana-rpc", "https://localhost/", "--max-amount", "1000"}
	code, out, errs := runCLI(t, "", append(args, "--max-payable", "5m", "https://api.seller.example/v1/report")...)
	if code != exitDeclined || !strings.Contains(out+errs, "policy/payable-too-long") || seller.Landed() != "" {
		t.Fatalf("a payment payable past --max-payable: exit %d %s %s", code, out, errs)
	}
	code, out, errs = runCLI(t, "", append(args, "https://api.seller.example/v1/report")...)
	if code != exitOK || out != `{"report":"paid"}` || seller.Landed() == "" {
		t.Fatalf("pay exit %d: %s\n%s", code, out, errs)
	}
}
