package pay_test

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/sorobansim"
	"github.com/termsgate/termsgate/internal/stellarseller"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
	"github.com/termsgate/termsgate/signer"
)

// A Stellar seller paid through the transport: its inputs come from a
// Soroban RPC through InputsFor, per offer, and the seller verifies the
// signed authorization. Without an RPC the payment is declined input-missing
// with no signature.
func TestTransportPaysStellarWithRPCInputs(t *testing.T) {
	node := &sorobansim.Server{Ledger: 988, Nonce: 3}
	rpcSrv, err := loopback.Start(node)
	if err != nil {
		t.Fatal(err)
	}
	defer rpcSrv.Close()
	seller := stellarseller.New([]byte("the terms"), []byte("paid"), func() uint32 { return 988 })
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	key, _ := signer.StellarFromSecret(signer.StellarDevSeed, stellar.Testnet)
	rpc := &sorobanrpc.Client{URL: rpcSrv.URL("localhost", "/"), HTTP: rpcSrv.Client()}
	transport := &pay.Transport{
		Base:      srv.Transport(),
		Gate:      &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer:    key,
		Policy:    pay.NoLimits(), // the explicit opt-out pays as a Policy would allow
		InputsFor: rpc.InputsFor,
	}
	resp, err := pay.NewClient(transport).Get(seller.ResourceURL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "paid" {
		t.Fatalf("%d %s (%v)", resp.StatusCode, body, seller.LastRejection())
	}
	if res := pay.ResultOf(resp); res == nil || res.Pairing != stellar.ExactID || res.H != atr.Sum([]byte("the terms")) {
		t.Fatalf("result %+v", res)
	}
	if node.Calls.Load() != 2 {
		t.Fatalf("%d RPC calls, want 2 (one simulation, one ledger)", node.Calls.Load())
	}

	transport.InputsFor = nil
	_, err = pay.NewClient(transport).Get(seller.ResourceURL())
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.NoPayableOption || d.Detail != "x402/input-missing" {
		t.Fatalf("without inputs: %v", err)
	}
	if seller.Paid.Load() != 1 {
		t.Fatalf("paid %d times", seller.Paid.Load())
	}
}
