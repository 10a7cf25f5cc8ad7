package simchain_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
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

// BenchmarkSettlePermit2 is one exact Permit2 payment's life on chain: sign
// a PermitWitnessTransferFrom whose nonce is H (spender x402's exact
// proxy), settle it through the proxy (gas estimate, nonce and fees from
// the node, send, a sealed block, receipt), and read H back from the landed
// call and Permit2's nonce record (SettledPermit2).
func BenchmarkSettlePermit2(b *testing.B) {
	ctx := context.Background()
	c := newChain(b)
	wallet := payer(b)
	key, err := crypto.HexToECDSA(signer.AnvilKey[2:])
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := c.ApprovePermit2(ctx, key); err != nil {
		b.Fatal(err)
	}
	deadline := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	accepted := jsonv.Obj("scheme", "exact", "network", simchain.Network)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h := atr.Sum([]byte("terms " + strconv.Itoa(i)))
		witness := jsonv.Obj("to", payee.Hex(), "validAfter", "0")
		permit := evm.Permit2Permit{ChainID: simchain.ChainID, Permitted: []evm.Permit2Token{{Token: c.Token.Hex(), Amount: "1"}},
			Spender: evm.ExactPermit2Proxy, Nonce: evm.NonceDecimal(h), Deadline: deadline,
			Witness: &evm.Permit2Witness{Type: "Witness", Fields: []string{"to", "address", "validAfter", "uint256"}, Value: witness}}
		td, err := permit.TypedData()
		if err != nil {
			b.Fatal(err)
		}
		sig, err := wallet.Sign(ctx, jsonv.Obj("kind", "eip712", "typedData", td))
		if err != nil {
			b.Fatal(err)
		}
		payment := jsonv.Obj("accepted", accepted, "payload", jsonv.Obj("signature", sig,
			"permit2Authorization", jsonv.Obj("permitted", jsonv.Obj("token", c.Token.Hex(), "amount", "1"),
				"from", wallet.Address().Hex(), "spender", evm.ExactPermit2Proxy, "nonce", evm.NonceDecimal(h),
				"deadline", deadline, "witness", witness)))
		hash, _, err := c.SettlePermit2(ctx, c.Deployer, payment, nil, 0)
		if err != nil {
			b.Fatal(err)
		}
		s, err := c.SettledPermit2(ctx, hash)
		if err != nil || simchain.NonceHash(s) != h {
			b.Fatalf("read back %v, %v", s, err)
		}
	}
}
