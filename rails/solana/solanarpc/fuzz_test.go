package solanarpc_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
)

// FuzzNodeAnswers: whatever a node answers (any bytes as the JSON-RPC
// response body) ends every reader — getLatestBlockhash, getSlot,
// getAccountInfo (a mint, an account), getTransaction,
// getSignaturesForAddress, getFirstAvailableBlock — in a value or an
// error, never a panic, within the fuzz bound. An accepted blockhash is a
// 32-byte key, an accepted slot is the integer the answer said, an
// accepted mint is owned by a token program, and no more signatures are
// accepted than asked for.
func FuzzNodeAnswers(f *testing.F) {
	const (
		mint = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
		sig  = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
	)
	node := &solanarpc.Node{Slot: 341000000, Blockhash: "EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k", LastValid: 320000150,
		Mints:          map[string]solanarpc.NodeMint{mint: {Owner: solana.Token2022Program.String(), Decimals: 6}},
		Txs:            map[string]solanarpc.NodeTx{sig: {Slot: 341000001, Wire: []byte{1, 2, 3}, Finalized: true}},
		Lists:          map[string][]solanarpc.NodeListed{mint: {{Signature: sig, Slot: 341000001, Memo: "x"}, {Signature: sig, Slot: 5}}},
		FirstAvailable: 1000}
	rec := &rpcanswer.Recorder{Handler: node}
	c := &solanarpc.Client{URL: "http://node.invalid/", HTTP: &http.Client{Transport: rec}}
	ctx := context.Background()
	_, _, err1 := c.LatestBlockhash(ctx)
	_, err2 := c.Slot(ctx)
	_, err3 := c.FirstAvailableBlock(ctx)
	_, _, err4 := c.Mint(ctx, mint)
	_, err5 := c.Account(ctx, mint)
	tx, err6 := c.Transaction(ctx, sig, "finalized")
	list, err7 := c.Signatures(ctx, mint, "", 2)
	if err := errors.Join(err1, err2, err3, err4, err5, err6, err7); err != nil || tx == nil || len(list) != 2 {
		f.Fatalf("the loopback node's answers do not read: %v", err)
	}
	for _, a := range rec.Answers {
		f.Add(a)
	}
	mintData := make([]byte, 82)
	mintData[44], mintData[45] = 6, 1
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"context":{"apiVersion":"2.2.0","slot":341000000},"value":{"blockhash":"EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k","lastValidBlockHeight":300000150}}}`,
		`{"jsonrpc":"2.0","id":1,"result":341000000}`,
		`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":341000000},"value":{"owner":"` + solana.TokenProgram.String() + `","data":["` + base64.StdEncoding.EncodeToString(mintData) + `","base64"],"lamports":1461600,"executable":false}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":341000000},"value":null}}`,
		`{"jsonrpc":"2.0","id":1,"result":[{"signature":"` + sig + `","slot":341000001,"err":null,"memo":"[3] 0x00","blockTime":null,"confirmationStatus":"finalized"},{"signature":"` + sig + `","slot":5,"memo":null}]}`,
		`{"jsonrpc":"2.0","id":1,"result":{"slot":341000001,"blockTime":null,"version":0,"transaction":["AQID","base64"],"meta":{"err":null,"fee":5000,"innerInstructions":[],"status":{"Ok":null}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32009,"message":"Slot 1 was skipped"}}`,
		`{"jsonrpc":"2.0","id":1,"result":-1}`, `{"jsonrpc":"2.0","id":1,"result":9007199254740993}`,
		`{"jsonrpc":"2.0","id":1,"result":1e3}`, `{"result":{"value":{"blockhash":"1111","lastValidBlockHeight":1}}}`,
		`[]`, ``, `{"result":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c := &solanarpc.Client{URL: "http://node.invalid/", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
		ctx := context.Background()
		// said is the answer's result as a safe integer, if it is one.
		said := func() (int64, bool) {
			v, err := jsonv.Parse(body)
			o, _ := jsonv.AsObject(v)
			r, _ := o.Get("result")
			n, ok := jsonv.AsSafeInt(r)
			return n, err == nil && ok
		}
		cost.Bound(t, len(body), func() {
			if bh, _, err := c.LatestBlockhash(ctx); err == nil {
				if b, ok := solana.DecodeBase58(bh); !ok || len(b) != 32 {
					t.Fatalf("blockhash %q accepted", bh)
				}
			}
			if slot, err := c.Slot(ctx); err == nil {
				if n, ok := said(); !ok || n < 0 || uint64(n) != slot {
					t.Fatalf("slot %d accepted from %q", slot, body)
				}
			}
			if first, err := c.FirstAvailableBlock(ctx); err == nil {
				if n, ok := said(); !ok || n < 0 || uint64(n) != first {
					t.Fatalf("first block %d accepted from %q", first, body)
				}
			}
			if d, program, err := c.Mint(ctx, mint); err == nil {
				if d < 0 || d > 255 || program != solana.TokenProgram.String() && program != solana.Token2022Program.String() {
					t.Fatalf("mint of %d decimals, program %q accepted", d, program)
				}
			}
			_, _ = c.Account(ctx, mint)
			_, _ = c.Transaction(ctx, sig, "confirmed")
			if list, err := c.Signatures(ctx, mint, "", 2); err == nil && len(list) > 2 {
				t.Fatalf("%d signatures accepted of 2 asked", len(list))
			}
			_, _ = c.BatchInputs(ctx, mint, mint)
		})
	})
}
