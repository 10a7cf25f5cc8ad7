package sorobanrpc_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/internal/sorobansim"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
)

// FuzzNodeAnswers: whatever a Soroban RPC endpoint answers (any bytes as
// the JSON-RPC response body) ends getLatestLedger, simulateTransaction and
// the inputs assembled from them in a value or an error, never a panic,
// within the fuzz bound; accepted inputs carry a simulatedXdr that reads
// strictly as a transaction envelope.
func FuzzNodeAnswers(f *testing.F) {
	doc := buyerDoc(f)
	rec := &rpcanswer.Recorder{Handler: &sorobansim.Server{Ledger: 988, Nonce: 1, ResourceFee: 5000}}
	c := &sorobanrpc.Client{URL: "http://rpc.invalid/", HTTP: &http.Client{Transport: rec}}
	if _, err := c.Inputs(context.Background(), stellar.ExactID, doc, payer); err != nil || len(rec.Answers) != 2 {
		f.Fatalf("the simulated endpoint's inputs: %v (%d answers)", err, len(rec.Answers))
	}
	for _, a := range rec.Answers {
		f.Add(a)
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"sequence":988}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"error":"HostError: Error(Contract, #10)","latestLedger":988}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"transactionData":"AAAA","minResourceFee":"5000","results":[{"auth":["AAAA"]}],"latestLedger":988}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"transactionData":"AAAA","minResourceFee":"99999999999","results":[{"auth":[]}]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid parameters"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"sequence":-1}}`, `{"jsonrpc":"2.0","id":1,"result":null}`,
		`[]`, ``, `{"result":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c := &sorobanrpc.Client{URL: "http://rpc.invalid/", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
		ctx := context.Background()
		cost.Bound(t, len(body), func() {
			_, _ = c.LatestLedger(ctx)
			_, _ = c.Simulate(ctx, "AAAA")
			for _, p := range []string{stellar.ExactID, stellar.ChargeID} {
				in, err := c.InputsFor(ctx, p, doc, payer)
				if err != nil || in == nil {
					continue
				}
				text, _ := in.GetString(stellar.InputSimulatedXdr)
				var env xdr.TransactionEnvelope
				if err := xdr.SafeUnmarshalBase64(text, &env); err != nil {
					t.Fatalf("%s inputs %v accepted from %q: %v", p, in, body, err)
				}
			}
		})
	})
}
