package stellarseller

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/sorobansim"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
	"github.com/termsgate/termsgate/signer"
)

func TestDemoCharge(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), stellar.ChargeID, "")
	if err != nil || paid != "10000000 atomic units of the token "+Asset+" on stellar:testnet" {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"muxed with id 10024469772855295850", "signer calls: 1", "answered 200", "declined hash-mismatch; signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// What the Stellar charge seller refuses, each with its reason: a
// credential for terms it no longer serves, one echoing a challenge it did
// not issue, one whose authorization expired at the current ledger; the
// genuine one is then accepted.
func TestChargeSellerRefuses(t *testing.T) {
	var ledger atomic.Uint32 // the seller reads it on its own goroutine
	ledger.Store(988)
	node := &sorobansim.Server{Ledger: 988, Nonce: time.Now().UnixNano(), ResourceFee: 45_000}
	rpcSrv, err := loopback.Start(node)
	if err != nil {
		t.Fatal(err)
	}
	defer rpcSrv.Close()
	seller := NewCharge(demo.ATR, []byte("paid"), ledger.Load)
	srv, err := loopback.Start(seller)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	const url = "https://api.seller.example/v1/report"
	resp, _, err := demo.Get(ctx, client, url, "", "")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := mpp.ChallengesFromHeader(resp.Header)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := signer.StellarFromSecret(signer.StellarDevSeed, stellar.Testnet)
	rpc := &sorobanrpc.Client{URL: rpcSrv.URL("localhost", "/"), HTTP: rpcSrv.Client()}
	inputs, err := rpc.Inputs(ctx, stellar.ChargeID, doc, key.Account())
	if err != nil {
		t.Fatal(err)
	}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	res, err := g.Transact(ctx, doc, stellar.ChargeID, key, &gate.TransactOptions{Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	present := func(cred *jsonv.Object) (int, string) {
		_, value := mpp.Header(cred)
		resp, body, err := demo.Get(ctx, client, url, "Authorization", value)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(body)
	}
	genuine, _ := jsonv.AsObject(res.Signed)
	seller.SetATR(demo.Changed(demo.ATR))
	if code, body := present(genuine); code != http.StatusPaymentRequired || !strings.Contains(body, "not the hash of the terms served") {
		t.Errorf("other terms: %d %s", code, body)
	}
	seller.SetATR(demo.ATR)
	other := jsonv.Clone(genuine).(*jsonv.Object)
	c, _ := other.GetObject("challenge")
	c.Set("expires", "2099-01-01T00:00:00Z")
	if code, body := present(other); code != http.StatusPaymentRequired || !strings.Contains(body, "not the one this seller issued") {
		t.Errorf("a challenge not issued: %d %s", code, body)
	}
	ledger.Store(1_000_000)
	if code, body := present(genuine); code != http.StatusPaymentRequired || !strings.Contains(body, "expired at ledger") {
		t.Errorf("an expired authorization: %d %s", code, body)
	}
	ledger.Store(988)
	if code, body := present(genuine); code != http.StatusOK {
		t.Errorf("genuine: %d %s", code, body)
	}
}
