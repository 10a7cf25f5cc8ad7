package polkadotrpc

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/rails/polkadot"
)

// FuzzNodeAnswers: any answer body to every read gives the client a value
// or an error, never a panic, and the status read over it is one of its
// states. Seeds are the loopback Node's own answers.
func FuzzNodeAnswers(f *testing.F) {
	const network = "polkadot:68d56f15f85d3136970ec16946040bc1"
	n := NewNode(network, 100)
	rec := &rpcanswer.Recorder{Handler: n}
	ctx := context.Background()
	c := &Client{URL: "http://sidecar.invalid", Net: network, HTTP: &http.Client{Transport: rec}}
	_, _ = c.Inputs(ctx, [32]byte{1})
	rpc := &Client{URL: "http://sidecar.invalid", RPC: "http://node.invalid", Net: network, HTTP: &http.Client{Transport: rec}}
	_, _ = rpc.NextIndex(ctx, [32]byte{1})
	_, _ = c.FinalizedHeight(ctx)
	_, _ = c.RawExtrinsics(ctx, "100")
	for _, a := range rec.Answers {
		f.Add(a)
	}
	f.Add([]byte(`{"at":{"height":"100","hash":"0x` + strings.Repeat("aa", 32) + `"},"extrinsics":{"hash":"0x` + strings.Repeat("bb", 32) + `","success":true,"events":[{"method":{"pallet":"system","method":"Remarked"},"data":["x","0x00"]}]}}`))
	tp := "0x" + strings.Repeat("aa", 32) + "-1"
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &Client{URL: "http://sidecar.invalid", Net: network, HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
			_, _ = c.Inputs(ctx, [32]byte{1})
			c.RPC = "http://node.invalid"
			_, _ = c.Inputs(ctx, [32]byte{1})
			c.RPC = ""
			_, _ = c.FinalizedHeight(ctx)
			_, _ = c.RawExtrinsics(ctx, "100")
			_, _ = c.Extrinsic(ctx, "100", 1)
			_, _ = c.Submit(ctx, []byte{0})
			_, _ = polkadot.Recover(ctx, network, tp, c)
			ref := polkadot.Reference{Network: network, ExtrinsicHash: "0x" + strings.Repeat("bb", 32), AssetID: 1337}
			s := polkadot.PaymentStatus(ctx, ref, atr.Sum([]byte("abc")), tp, c)
			if s.State != "settled" && s.State != "pending" && s.State != "failed" {
				t.Fatalf("state %q", s.State)
			}
		})
	})
}
