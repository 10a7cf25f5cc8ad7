package simchain_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
)

// BenchmarkSettleEIP3009 is one payment's life on chain: sign an EIP-3009
// authorization whose nonce is H, settle it with transferWithAuthorization
// (gas estimate, nonce and fees from the node, send, a sealed block,
// receipt), and read H back from the landed AuthorizationUsed log with
// rails/evm's Recover.
func BenchmarkSettleEIP3009(b *testing.B) {
	ctx := context.Background()
	c := newChain(b)
	wallet := payer(b)
	reader, err := c.Node.Reader(ctx)
	if err != nil {
		b.Fatal(err)
	}
	validBefore := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h := atr.Sum([]byte("terms " + strconv.Itoa(i)))
		auth := jsonv.Obj("from", wallet.Address().Hex(), "to", payee.Hex(), "value", "1",
			"validAfter", "0", "validBefore", validBefore, "nonce", h.String())
		td := evm.TransferWithAuthorization("USDC", "2", simchain.ChainID, c.Token.Hex(), auth)
		sig, err := wallet.Sign(ctx, jsonv.Obj("kind", "eip712", "typedData", td))
		if err != nil {
			b.Fatal(err)
		}
		hash, _, err := c.Settle(ctx, auth, sig.(string), 0)
		if err != nil {
			b.Fatal(err)
		}
		got, err := (evm.ExactEIP3009{}).Recover(jsonv.Obj("network", simchain.Network, "asset", c.Token.Hex(), "transaction", hash), reader)
		if err != nil || got != h.String() {
			b.Fatalf("read back %s, %v", got, err)
		}
	}
}
