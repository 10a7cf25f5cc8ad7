package algod

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/algorand"
)

// testnetHash is TestNet's genesis hash.
func testnetHash(t testing.TB) [32]byte {
	b, err := base64.StdEncoding.DecodeString("SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI=")
	if err != nil {
		t.Fatal(err)
	}
	return [32]byte(b)
}

func start(t *testing.T, h http.Handler) *Client {
	t.Helper()
	srv, err := loopback.Start(h, "algod.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &Client{URL: "https://algod.example/", HTTP: srv.Client()}
}

// The params as the x402 vectors name them come from the node's answer.
func TestInputsFromTheNode(t *testing.T) {
	node := &Node{LastRound: 67634736, MinFee: 1000, GenesisID: "testnet-v1.0", GenesisHash: testnetHash(t), Token: "secret"}
	c := start(t, node)
	c.Token = "secret"
	in, err := c.Inputs(context.Background(), algorand.ExactID)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"params":{"firstValid":"67634736","genesisHash":"SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI=","genesisId":"testnet-v1.0","minFee":"1000","feePerByte":"0"}}`
	if got := string(jsonv.Marshal(in)); got != want || node.Calls.Load() != 1 {
		t.Fatalf("inputs %s (%d calls)", got, node.Calls.Load())
	}
	if o, err := c.Inputs(context.Background(), "x402/exact/xrpl"); o != nil || err != nil || node.Calls.Load() != 1 {
		t.Fatalf("another pairing: %v, %v", o, err)
	}
	node.Advance(5)
	p, err := c.Params(context.Background())
	if err != nil || p.FirstValid != 67634741 || algorand.NetworkOf(p.GenesisHash) != algorand.TestNet {
		t.Fatalf("params %+v, %v", p, err)
	}
}

// Every failure of the node is an error naming the path; the adapter keeps
// it and gives no inputs.
func TestNodeFailuresAreErrors(t *testing.T) {
	node := &Node{LastRound: 1, MinFee: 1000, GenesisID: "testnet-v1.0", GenesisHash: testnetHash(t), Token: "secret"}
	c := start(t, node)
	var e *Error
	if _, err := c.Params(context.Background()); !errors.As(err, &e) || !strings.Contains(err.Error(), "status 401") {
		t.Fatalf("no token: %v", err)
	}
	c.Token = "secret"
	node.MinFee = 1_000_000
	if _, err := c.Params(context.Background()); err == nil || !strings.Contains(err.Error(), "above the") {
		t.Fatalf("a fee above the cap: %v", err)
	}
	for name, body := range map[string]string{
		"not JSON":        `{`,
		"no genesis hash": `{"fee":0,"genesis-id":"testnet-v1.0","last-round":1,"min-fee":1000}`,
		"short hash":      `{"fee":0,"genesis-hash":"AAAA","genesis-id":"testnet-v1.0","last-round":1,"min-fee":1000}`,
		"negative round":  `{"fee":0,"genesis-hash":"SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI=","genesis-id":"testnet-v1.0","last-round":-1,"min-fee":1000}`,
		"round as text":   `{"fee":0,"genesis-hash":"SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI=","genesis-id":"testnet-v1.0","last-round":"1","min-fee":1000}`,
		"too long":        `{"pad":"` + strings.Repeat("x", maxAnswer) + `"}`,
	} {
		c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
		if _, err := c.Params(context.Background()); !errors.As(err, &e) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	broken := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) }))
	in := &Inputs{Client: broken}
	if o := in.For(algorand.ExactID); o != nil || in.Err() == nil {
		t.Fatalf("inputs %v, err %v", o, in.Err())
	}
}

// The call keeps its bounds on restjson: an answer over maxAnswer is this
// package's Error, and the token goes with the request.
func TestNodeCallBounds(t *testing.T) {
	var token string
	c := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token = r.Header.Get("X-Algo-API-Token")
		_, _ = w.Write([]byte(`"` + strings.Repeat("a", maxAnswer) + `"`))
	}))
	c.Token = "t1"
	var e *Error
	if _, err := c.Params(context.Background()); !errors.As(err, &e) || !strings.Contains(e.Detail, "longer than") || token != "t1" {
		t.Fatalf("long answer: %v (token %q)", err, token)
	}
}
