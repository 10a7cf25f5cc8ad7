package mcpserver_test

import (
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/sorobansim"
	"github.com/termsgate/termsgate/internal/stellarseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// atr_transact on a Stellar offer with no inputs in the call: the server's
// Soroban RPC gives them, and the payment is one the seller accepts; with a
// failing RPC the call declines input-missing with nothing signed.
func TestTransactStellarWithRPCInputs(t *testing.T) {
	node := &sorobansim.Server{Ledger: 988, Nonce: 5}
	down := false
	seller := stellarseller.New([]byte("stellar terms"), []byte("ok"), func() uint32 { return 988 })
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "rpc.stellar.example") {
			if down {
				http.Error(w, "down", http.StatusServiceUnavailable)
				return
			}
			node.ServeHTTP(w, r)
			return
		}
		seller.ServeHTTP(w, r)
	}), append([]string{"rpc.stellar.example"}, loopback.DefaultNames...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	key, _ := signer.StellarFromSecret(signer.StellarDevSeed, stellar.Testnet)
	wallet := &countingSigner{inner: key}
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: stellar.Testnet, MaxAmount: big.NewInt(10_000_000)}}})
	if err != nil {
		t.Fatal(err)
	}
	rpc := &sorobanrpc.Client{URL: "https://rpc.stellar.example/", HTTP: srv.Client()}
	s, err := mcpserver.New(mcpserver.Config{Client: srv.Client(), Signer: wallet, Policy: policy, InputsFor: rpc.InputsFor, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectHTTP(t, s, nil)
	listTools(t, cs) // the schemas every call is checked against
	doc, err := seller.Required()
	if err != nil {
		t.Fatal(err)
	}
	r := call(t, cs, "atr_transact", jsonv.Obj("pairing", stellar.ExactID, "document", doc))
	if r.isError || r.value == nil {
		t.Fatalf("transact: %s", r.text)
	}
	if node.Calls.Load() != 2 || wallet.calls.Load() != 1 {
		t.Fatalf("%d RPC calls, %d signatures", node.Calls.Load(), wallet.calls.Load())
	}
	signed, _ := r.value.Get("signed")
	req, _ := http.NewRequest(http.MethodGet, seller.ResourceURL(), nil)
	req.Header.Set("PAYMENT-SIGNATURE", x402.EncodeHeader(signed))
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the seller refused: %d %v", resp.StatusCode, seller.LastRejection())
	}

	down = true
	r = call(t, cs, "atr_transact", jsonv.Obj("pairing", stellar.ExactID, "document", doc))
	if !r.isError || !strings.Contains(r.text, "x402/input-missing") || wallet.calls.Load() != 1 {
		t.Fatalf("with the RPC down: %s (%d signatures)", r.text, wallet.calls.Load())
	}
}
