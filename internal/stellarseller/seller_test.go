package stellarseller_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/sorobansim"
	"github.com/termsgate/termsgate/internal/stellarseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// The seller accepts the gate's payment and refuses it once any part of the
// signed authorization is changed: the signature, the expiration it covers,
// or the key named beside it.
func TestSellerChecksTheAuthorization(t *testing.T) {
	node := &sorobansim.Server{Ledger: 988, Nonce: 7}
	rpcSrv, err := loopback.Start(node)
	if err != nil {
		t.Fatal(err)
	}
	defer rpcSrv.Close()
	seller := stellarseller.New([]byte("terms"), []byte("ok"), func() uint32 { return 988 })
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	payer, _ := signer.StellarFromSecret(signer.StellarDevSeed, stellar.Testnet)
	doc, err := seller.Required()
	if err != nil {
		t.Fatal(err)
	}
	rpc := &sorobanrpc.Client{URL: rpcSrv.URL("localhost", "/"), HTTP: rpcSrv.Client()}
	inputs, err := rpc.Inputs(context.Background(), stellar.ExactID, doc, payer.Account())
	if err != nil {
		t.Fatal(err)
	}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}}
	res, err := g.Transact(context.Background(), doc, stellar.ExactID, payer, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	send := func(p jsonv.Value) int {
		req, _ := http.NewRequest(http.MethodGet, seller.ResourceURL(), nil)
		req.Header.Set("PAYMENT-SIGNATURE", x402.EncodeHeader(p))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := send(res.Signed); code != http.StatusOK {
		t.Fatalf("the gate's payment: %d (%v)", code, seller.LastRejection())
	}
	tamper := func(name string, change func(e *xdr.SorobanAddressCredentials)) {
		p := res.Signed.(*jsonv.Object).Clone()
		payload, _ := p.GetObject("payload")
		text, _ := payload.GetString("transaction")
		var env xdr.TransactionEnvelope
		if err := xdr.SafeUnmarshalBase64(text, &env); err != nil {
			t.Fatal(err)
		}
		change(env.V1.Tx.Operations[0].Body.InvokeHostFunctionOp.Auth[0].Credentials.Address)
		changed, _ := xdr.MarshalBase64(&env)
		p.Set("payload", jsonv.Obj("transaction", changed))
		if code := send(p); code != http.StatusPaymentRequired {
			t.Errorf("%s: accepted (%d)", name, code)
		}
	}
	tamper("a flipped signature bit", func(c *xdr.SorobanAddressCredentials) {
		vec := **c.Signature.Vec
		m := **vec[0].Map
		b := *m[1].Val.Bytes
		b[0] ^= 1
	})
	tamper("a later expiration", func(c *xdr.SorobanAddressCredentials) { c.SignatureExpirationLedger++ })
	tamper("an expired authorization", func(c *xdr.SorobanAddressCredentials) { c.SignatureExpirationLedger = 900 })
	if seller.Paid.Load() != 1 || seller.Rejected.Load() != 3 {
		t.Fatalf("paid %d, rejected %d", seller.Paid.Load(), seller.Rejected.Load())
	}
}
