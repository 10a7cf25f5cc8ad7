package algod_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/rails/algorand"
	"github.com/termsgate/termsgate/rails/algorand/algod"
)

// FuzzNodeAnswers: whatever algod answers (any bytes as the body of GET
// /v2/transactions/params) ends the params and the pairing's inputs in a
// value or an error, never a panic, within the fuzz bound; accepted params
// have a genesis id and fees within the cap.
func FuzzNodeAnswers(f *testing.F) {
	rec := &rpcanswer.Recorder{Handler: &algod.Node{LastRound: 67634736, MinFee: 1000, GenesisID: "testnet-v1.0"}}
	c := &algod.Client{URL: "http://algod.invalid", HTTP: &http.Client{Transport: rec}}
	if _, err := c.Inputs(context.Background(), algorand.ExactID); err != nil || len(rec.Answers) != 1 {
		f.Fatalf("the stand-in node's inputs: %v (%d answers)", err, len(rec.Answers))
	}
	for _, a := range rec.Answers {
		f.Add(a)
	}
	for _, s := range []string{
		`{"consensus-version":"v40","fee":0,"genesis-hash":"SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI=","genesis-id":"testnet-v1.0","last-round":67634736,"min-fee":1000}`,
		`{"fee":1e3,"genesis-hash":"SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI=","genesis-id":"","last-round":1,"min-fee":-1}`,
		`{"message":"Invalid API Token"}`, `[]`, ``, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &algod.Client{URL: "http://algod.invalid", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
			p, err := c.Params(context.Background())
			if err == nil && (p.GenesisID == "" || p.MinFee > algod.DefaultMaxFee || p.FeePerByte > algod.DefaultMaxFee) {
				t.Fatalf("accepted %+v", p)
			}
			if in, err := c.Inputs(context.Background(), algorand.ExactID); (err == nil) != (in != nil) {
				t.Fatalf("inputs %v, %v", in, err)
			}
		})
	})
}
