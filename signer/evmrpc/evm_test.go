package evmrpc_test

import (
	"context"
	"errors"
	"math/big"
	"net/http/httptest"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/internal/eip3009token"
	"github.com/termsgate/termsgate/internal/simchain"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// TestEVMOverHTTP: EVM (type 2) transactions through go-ethereum's
// simulated chain served over loopback HTTP JSON-RPC: nonces from
// eth_getTransactionCount, fees from the node, gas estimated, receipts
// polled, reverts reported as such.
func TestEVMOverHTTP(t *testing.T) {
	ctx := context.Background()
	key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80") // Anvil's first
	chain, err := simchain.New("USDC", "2", big.NewInt(0), crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	defer chain.Close()
	hs := httptest.NewServer(chain.Handler())
	defer hs.Close()
	node, err := evmrpc.Dial(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	if id, err := node.ChainID(ctx); err != nil || id != simchain.ChainID {
		t.Fatalf("chain id %d, %v", id, err)
	}
	deployer := crypto.PubkeyToAddress(chain.Deployer.PublicKey)
	nonce, err := node.PendingNonce(ctx, deployer)
	if err != nil || nonce != 1 { // the deployment
		t.Fatalf("nonce %d, %v", nonce, err)
	}
	to := common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C")
	for i := range 2 {
		hash, l, err := simchain.Transact(ctx, node, chain.Deployer, &chain.Token, eip3009token.Mint(to, big.NewInt(5)), 0)
		if err != nil || l.Status != 1 || l.Hash != hash {
			t.Fatalf("mint %d: %v %+v", i, err, l)
		}
	}
	if n, _ := node.PendingNonce(ctx, deployer); n != 3 {
		t.Fatalf("nonce after two sends %d", n)
	}
	if b, err := chain.BalanceOf(ctx, to); err != nil || b.Int64() != 10 {
		t.Fatalf("balance %v, %v", b, err)
	}
	// Broadcast hands over a transaction signed elsewhere and answers the
	// landed receipt in the form the pairings read.
	tip, maxFee, err := node.Fees(ctx)
	if err != nil || tip.Sign() < 0 || maxFee.Cmp(tip) <= 0 {
		t.Fatalf("fees %v %v %v", tip, maxFee, err)
	}
	cid := big.NewInt(simchain.ChainID)
	tx, _ := types.SignNewTx(chain.Deployer, types.LatestSignerForChainID(cid), &types.DynamicFeeTx{
		ChainID: cid, Nonce: 3, GasTipCap: tip, GasFeeCap: maxFee, Gas: 100_000, To: &chain.Token, Data: eip3009token.Mint(to, big.NewInt(1)),
	})
	raw, _ := tx.MarshalBinary()
	hash, landed, err := node.Broadcast(ctx, raw)
	if err != nil || hash != tx.Hash().Hex() || landed == nil {
		t.Fatalf("broadcast %s %v %v", hash, landed, err)
	}
	// A call the token refuses (only the minter mints), sent with its own
	// gas so that it lands: status 0 is ErrReverted, with the receipt.
	if _, _, err := simchain.Transact(ctx, node, key, &chain.Token, eip3009token.Mint(to, big.NewInt(1)), 0); err == nil {
		t.Fatal("the estimate of a refused mint passed")
	}
	_, l, err := simchain.Transact(ctx, node, key, &chain.Token, eip3009token.Mint(to, big.NewInt(1)), 100_000)
	if !errors.Is(err, evmrpc.ErrReverted) || l == nil || l.Status != 0 {
		t.Fatalf("want ErrReverted with the receipt, got %v %+v", err, l)
	}
}
