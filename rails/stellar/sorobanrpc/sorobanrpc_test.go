package sorobanrpc_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/sorobansim"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
	"github.com/termsgate/termsgate/vectors"
)

const payer = "stellar:testnet:GBXHUHG5FGYLPD6RHL2MKWMP572O6KUXCZXDZJXS4T57ZTMAKBN7DWXN"

func start(t *testing.T, h http.Handler) *sorobanrpc.Client {
	t.Helper()
	srv, err := loopback.Start(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &sorobanrpc.Client{URL: srv.URL("localhost", "/"), HTTP: srv.Client()}
}

// buyerDoc is the document of x402-exact-stellar.json's B2 row (V1's muxed
// payee, 10000000 of the 06x32 contract on testnet).
func buyerDoc(t testing.TB) jsonv.Value {
	f, err := vectors.Load("x402-exact-stellar.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.GetObject("buyer")
	rows, _ := b.Get("rows")
	in, _ := rows.([]jsonv.Value)[0].(*jsonv.Object).GetObject("input")
	doc, _ := in.Get("doc")
	return doc
}

func v2Preimage(t *testing.T) []byte {
	f, _ := vectors.Load("x402-exact-stellar.json")
	v2, _ := f.GetObject("V2")
	sim, _ := v2.GetString("simulatedXdr")
	s, err := stellar.SigningFor(sim, stellar.Testnet, 1000, false)
	if err != nil {
		t.Fatal(err)
	}
	return s.Preimage
}

// The provider's inputs, from a node answering the vectors' nonce and
// ledger, build the very authorization of V2: the same preimage byte for
// byte, so the same signature.
func TestInputsReproduceV2(t *testing.T) {
	sim := &sorobansim.Server{Ledger: 988, Nonce: 1, ResourceFee: 5000}
	c := start(t, sim)
	doc := buyerDoc(t)
	in, err := c.Inputs(context.Background(), stellar.ExactID, doc, payer)
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := in.Get(stellar.InputCurrentLedger); l != jsonv.Number(988) {
		t.Fatalf("ledger %v", l)
	}
	if sim.Calls.Load() != 2 {
		t.Fatalf("%d RPC calls, want simulateTransaction and getLatestLedger", sim.Calls.Load())
	}
	p := stellar.Exact{}
	read, _ := p.Read(doc)
	choice, err := p.Choose(read, payer, in, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, atr.Sum([]byte("abc")))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	if got, _ := req.GetString("preimage"); got != "0x"+hexOf(v2Preimage(t)) {
		t.Fatalf("preimage is not V2's:\n%s", got)
	}
	simText, _ := in.GetString(stellar.InputSimulatedXdr)
	env, err := stellar.DecodeEnvelope(simText)
	if err != nil || env.V1.Tx.Fee != sorobanrpc.BaseFee+5000 || env.V1.Tx.Ext.V != 1 {
		t.Fatalf("assembled envelope: fee %d ext %d (%v)", env.V1.Tx.Fee, env.V1.Tx.Ext.V, err)
	}
}

func TestChargeInputs(t *testing.T) {
	f, _ := vectors.Load("mpp-charge-stellar.json")
	b, _ := f.GetObject("buyer")
	rows, _ := b.Get("rows")
	in, _ := rows.([]jsonv.Value)[0].(*jsonv.Object).GetObject("input")
	doc, _ := in.Get("doc")
	c := start(t, &sorobansim.Server{Ledger: 988, Nonce: 1})
	inputs, err := c.Inputs(context.Background(), stellar.ChargeID, doc, payer)
	if err != nil {
		t.Fatal(err)
	}
	p := stellar.Charge{}
	read, _ := p.Read(doc)
	choice, err := p.Choose(read, payer, inputs, 1790000000, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, atr.Sum([]byte("abc")))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	if got, _ := req.GetString("preimage"); got != "0x"+hexOf(v2Preimage(t)) {
		t.Fatal("the charge's preimage is not V2's")
	}
}

// A node that lies about what the payer would sign gets nothing built.
func TestLyingNodeIsRefusedByTheBuild(t *testing.T) {
	sim := &sorobansim.Server{Ledger: 988, Nonce: 1, Lie: func(e *xdr.SorobanAuthorizationEntry) {
		e.RootInvocation.Function.ContractFn.Args[2].I128.Lo++ // sign one stroop more than the operation moves
	}}
	c := start(t, sim)
	doc := buyerDoc(t)
	in, err := c.Inputs(context.Background(), stellar.ExactID, doc, payer)
	if err != nil {
		t.Fatal(err)
	}
	p := stellar.Exact{}
	read, _ := p.Read(doc)
	choice, _ := p.Choose(read, payer, in, 0, "")
	_, err = p.Build(choice, nil, atr.Sum([]byte("abc")))
	var r *rails.Refusal
	if !errors.As(err, &r) || r.Code != stellar.CodeNotOneTransfer {
		t.Fatalf("build over a lying simulation: %v", err)
	}
}

func TestHostileNodes(t *testing.T) {
	doc := buyerDoc(t)
	for name, h := range map[string]http.HandlerFunc{
		"HTTP 500": func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", 500) },
		"not JSON": func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) },
		"an RPC error": func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}`))
		},
		"a failed simulation": func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"error":"HostError: contract trapped","latestLedger":988}}`))
		},
		"transactionData with a line feed": func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"transactionData":"AAAAAAAA\nAAAA","minResourceFee":"1","results":[{"auth":[]}],"latestLedger":988}}`))
		},
		"an endless answer": func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("A", 2<<20) + `"}`))
		},
		"no result": func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1}`))
		},
	} {
		c := start(t, h)
		if in, err := c.Inputs(context.Background(), stellar.ExactID, doc, payer); err == nil {
			t.Errorf("%s: inputs %s", name, jsonv.String(in))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := start(t, &sorobansim.Server{Ledger: 988, Nonce: 1})
	if _, err := c.Inputs(ctx, stellar.ExactID, doc, payer); err == nil {
		t.Error("inputs after cancel")
	}
	if _, err := c.Inputs(context.Background(), "x402/exact/eip155/eip3009", doc, payer); err == nil {
		t.Error("inputs for an EVM pairing")
	}
}

func hexOf(b []byte) string {
	const d = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = d[c>>4], d[c&15]
	}
	return string(out)
}
