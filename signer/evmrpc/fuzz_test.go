package evmrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/eip3009token"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// chainAnswers are the simulated chain's answers to each reader: chain id,
// nonce, fees, an estimate, a send and its receipt with a log.
func chainAnswers(f *testing.F) [][]byte {
	chain, err := simchain.New("USDC", "2", big.NewInt(0))
	if err != nil {
		f.Fatal(err)
	}
	defer chain.Close()
	rec := &rpcanswer.Recorder{Handler: chain.Handler()}
	c, err := rpc.DialOptions(context.Background(), "http://chain.invalid/", rpc.WithHTTPClient(&http.Client{Transport: rec}))
	if err != nil {
		f.Fatal(err)
	}
	node := evmrpc.New(c)
	defer node.Close()
	ctx := context.Background()
	deployer := crypto.PubkeyToAddress(chain.Deployer.PublicKey)
	_, err1 := node.ChainID(ctx)
	_, err2 := node.PendingNonce(ctx, deployer)
	_, _, err3 := node.Fees(ctx)
	_, l, err4 := simchain.Transact(ctx, node, chain.Deployer, &chain.Token, eip3009token.Mint(deployer, big.NewInt(5)), 0)
	if err := errors.Join(err1, err2, err3, err4); err != nil || l == nil || len(l.Logs) == 0 {
		f.Fatalf("the simulated chain's answers: %v", err)
	}
	return rec.Answers
}

const fuzzHash = "0xcace66b6a82a5dc496a5b21a4032eb58baf223ea6f142a01593a5d105d5ee150"

// FuzzNodeAnswers: whatever a node answers (any bytes as the JSON-RPC
// response body) ends in a value or an error of every reader — chain id,
// fees, gas, nonce, eth_call, receipt, send — never a panic, within the
// fuzz bound; an accepted chain id is the quantity the answer said, and an
// accepted receipt is the asked transaction's, of status 0 or 1.
func FuzzNodeAnswers(f *testing.F) {
	for _, a := range chainAnswers(f) {
		f.Add(a)
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":"0x539"}`,
		`{"jsonrpc":"2.0","id":1,"result":{"baseFeePerGas":"0x3b9aca00","number":"0x10"}}`,
		`{"jsonrpc":"2.0","id":1,"result":"0x00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000001"}`,
		`{"jsonrpc":"2.0","id":1,"result":{"transactionHash":"` + fuzzHash + `","status":"0x1","blockNumber":"0x2","logs":[{"address":"0x0000000000000000000000000000000000000001","topics":[],"data":"0x"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"transactionHash":"` + fuzzHash + `","status":"0x0","blockNumber":"0x2","logs":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":"` + fuzzHash + `"}`,
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"already known"}}`,
		`{"jsonrpc":"2.0","id":1,"result":"0x10000000000000000"}`,
		`{"jsonrpc":"2.0","id":1,"result":"0x"}`,
		`{"jsonrpc":"2.0","id":1,"result":{"transactionHash":"` + fuzzHash + `","status":"0x2","blockNumber":"0x2","logs":{}}}`,
		`[{"jsonrpc":"2.0","id":1,"result":"0x1"}]`, `{"jsonrpc":"2.0","id":1,"result":`, ``, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := rpc.DialOptions(context.Background(), "http://node.invalid/", rpc.WithHTTPClient(&http.Client{Transport: rpcanswer.Fixed(body)}))
		if err != nil {
			t.Fatal(err)
		}
		node := evmrpc.New(c)
		defer node.Close()
		node.Wait, node.Poll = time.Millisecond, time.Millisecond
		ctx := context.Background()
		cost.Bound(t, len(body), func() {
			if id, err := node.ChainID(ctx); err == nil {
				var msg struct{ Result hexutil.Uint64 }
				// go-ethereum's client reads the first JSON value of the body.
				if json.NewDecoder(bytes.NewReader(body)).Decode(&msg) != nil || uint64(msg.Result) != id {
					t.Fatalf("chain id %d accepted from %q", id, body)
				}
			}
			if tip, maxFee, err := node.Fees(ctx); err == nil && (tip.Sign() < 0 || maxFee.Cmp(tip) < 0) {
				t.Fatalf("fees %v, %v accepted from %q", tip, maxFee, body)
			}
			_, _ = node.EstimateGas(ctx, map[string]any{"to": common.Address{}})
			_, _ = node.PendingNonce(ctx, common.Address{})
			_, _ = node.CallContract(ctx, common.Address{}, []byte{1})
			if l, err := node.Receipt(ctx, fuzzHash); err == nil && l != nil && (l.Hash != fuzzHash || l.Status > 1) {
				t.Fatalf("receipt %+v accepted for %s from %q", l, fuzzHash, body)
			}
			hash, l, err := node.Send(ctx, []byte{0x02, 0xc0})
			switch {
			case hash == "":
				t.Fatalf("a send lost its hash: %v", err)
			case err == nil && (l == nil || !strings.EqualFold(l.Hash, hash) || l.Status != 1):
				t.Fatalf("send accepted %+v for %s", l, hash)
			case err != nil && errors.Is(err, evmrpc.ErrReverted) && l == nil:
				t.Fatalf("a revert without its receipt")
			}
		})
	})
}
