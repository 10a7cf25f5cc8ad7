// Package simchain is go-ethereum's simulated chain (ethclient/simulated,
// chain id 1337) as a JSON-RPC node that seals a block for every transaction
// sent to it, with the EIP-3009 token (internal/eip3009token) deployed,
// Permit2, x402's exact and upto Permit2 proxies and the commerce-payments
// escrow v1.0 with its Permit2 collector (internal/permit2contracts) at
// their canonical addresses, and the Anvil payer funded. The settlement tests and `termsgate demo --settle`
// settle on it what the gate signed; signer/evmrpc talks to it as to any
// node, in process or over loopback HTTP (Handler).
//
// It is for tests and the demo only: the gate, pay and the MCP server never
// import it.
package simchain

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/termsgate/termsgate/internal/eip3009token"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// ChainID is the simulated chain's id; Network its CAIP-2 name.
const (
	ChainID = 1337
	Network = "eip155:1337"
)

// DeployerKey is the second published Anvil development key: it deploys and
// mints the token and, in tests, settles as the facilitator. Public: never
// hold value with it.
const DeployerKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

// Chain is one simulated chain with the token deployed.
type Chain struct {
	Backend  *simulated.Backend
	Token    common.Address
	Deployer *ecdsa.PrivateKey
	// Node is a client of Server in process.
	Node *evmrpc.Node

	server *rpc.Server
	rpc    *rpc.Client // in process, for the calls Node does not make
	mu     sync.Mutex  // one seal at a time
}

// New starts a chain whose genesis gives each of funded (and the deployer)
// 1000 ether for gas, deploys the token with EIP-712 domain name and
// version, and mints mint to each of funded.
func New(name, version string, mint *big.Int, funded ...common.Address) (*Chain, error) {
	deployer, err := crypto.HexToECDSA(DeployerKey[2:])
	if err != nil {
		return nil, err
	}
	alloc := types.GenesisAlloc{}
	ether := new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil)
	for _, a := range append([]common.Address{crypto.PubkeyToAddress(deployer.PublicKey)}, funded...) {
		alloc[a] = types.Account{Balance: ether}
	}
	contracts, err := permit2Genesis(crypto.PubkeyToAddress(deployer.PublicKey))
	if err != nil {
		return nil, err
	}
	for a, acct := range contracts {
		alloc[a] = acct
	}
	quiet := func(nc *node.Config, _ *ethconfig.Config) { nc.Logger = nil }
	c := &Chain{Backend: simulated.NewBackend(alloc, quiet), Deployer: deployer}
	raw, err := rawClient(c.Backend)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.server = rpc.NewServer()
	if err := c.server.RegisterName("eth", &eth{c: c, raw: raw}); err != nil {
		c.Close()
		return nil, err
	}
	c.Node = evmrpc.New(rpc.DialInProc(c.server))
	c.rpc = rpc.DialInProc(c.server)
	c.Node.Poll = 5 * time.Millisecond
	ctx := context.Background()
	code, err := eip3009token.DeployData(name, version)
	if err != nil {
		c.Close()
		return nil, err
	}
	_, landed, err := c.Transact(ctx, deployer, nil, code, 0)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("simchain: deploying the token: %w", err)
	}
	addr, _ := landed.Raw.GetString("contractAddress")
	c.Token = common.HexToAddress(addr)
	for _, a := range funded {
		if mint.Sign() > 0 {
			if _, _, err := c.Transact(ctx, deployer, &c.Token, eip3009token.Mint(a, mint), 0); err != nil {
				c.Close()
				return nil, fmt.Errorf("simchain: minting: %w", err)
			}
		}
	}
	return c, nil
}

// rawClient is the backend's in-process JSON-RPC client. The backend's
// Client wraps an *ethclient.Client in an embedded field whose name hides
// its Client method, so the field is read by name.
func rawClient(b *simulated.Backend) (*rpc.Client, error) {
	v := reflect.ValueOf(b.Client())
	if v.Kind() != reflect.Struct {
		return nil, errors.New("simchain: the simulated backend's client is not the struct it was")
	}
	ec, ok := v.FieldByName("Client").Interface().(*ethclient.Client)
	if !ok {
		return nil, errors.New("simchain: the simulated backend's client holds no *ethclient.Client")
	}
	return ec.Client(), nil
}

// Handler serves the node's JSON-RPC over HTTP (httptest.NewServer).
func (c *Chain) Handler() http.Handler { return c.server }

// Close stops the chain.
func (c *Chain) Close() {
	if c.Node != nil {
		c.Node.Close()
	}
	if c.rpc != nil {
		c.rpc.Close()
	}
	if c.server != nil {
		c.server.Stop()
	}
	_ = c.Backend.Close()
}

// AdjustTime seals an empty block d later than the last one: later blocks
// keep the lead.
func (c *Chain) AdjustTime(d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Backend.AdjustTime(d)
}

// BalanceOf is the token balance of who.
func (c *Chain) BalanceOf(ctx context.Context, who common.Address) (*big.Int, error) {
	out, err := c.Node.CallContract(ctx, c.Token, eip3009token.BalanceOf(who))
	if err != nil {
		return nil, err
	}
	return eip3009token.Uint256(out)
}

// AuthorizationUsed is the token's authorizationState(authorizer, nonce).
func (c *Chain) AuthorizationUsed(ctx context.Context, authorizer common.Address, nonce [32]byte) (bool, error) {
	out, err := c.Node.CallContract(ctx, c.Token, eip3009token.AuthorizationState(authorizer, nonce))
	if err != nil {
		return false, err
	}
	return eip3009token.Bool(out)
}

// eth is the node's eth_ namespace: the calls signer/evmrpc and the tests
// make, passed to the simulated backend, with eth_sendRawTransaction sealing
// a block so that the transaction lands at once.
type eth struct {
	c   *Chain
	raw *rpc.Client
}

func (e *eth) fwd(ctx context.Context, method string, args ...any) (json.RawMessage, error) {
	var out json.RawMessage
	err := e.raw.CallContext(ctx, &out, method, args...)
	return out, err
}

func (e *eth) ChainId(ctx context.Context) (json.RawMessage, error) { return e.fwd(ctx, "eth_chainId") }

func (e *eth) BlockNumber(ctx context.Context) (json.RawMessage, error) {
	return e.fwd(ctx, "eth_blockNumber")
}

func (e *eth) GetBlockByNumber(ctx context.Context, tag json.RawMessage, full bool) (json.RawMessage, error) {
	return e.fwd(ctx, "eth_getBlockByNumber", tag, full)
}

func (e *eth) GetTransactionCount(ctx context.Context, addr common.Address, tag json.RawMessage) (json.RawMessage, error) {
	return e.fwd(ctx, "eth_getTransactionCount", addr, tag)
}

func (e *eth) MaxPriorityFeePerGas(ctx context.Context) (json.RawMessage, error) {
	return e.fwd(ctx, "eth_maxPriorityFeePerGas")
}

func (e *eth) EstimateGas(ctx context.Context, call json.RawMessage, tag *json.RawMessage) (json.RawMessage, error) {
	if tag != nil {
		return e.fwd(ctx, "eth_estimateGas", call, tag)
	}
	return e.fwd(ctx, "eth_estimateGas", call)
}

func (e *eth) Call(ctx context.Context, call json.RawMessage, tag json.RawMessage) (json.RawMessage, error) {
	return e.fwd(ctx, "eth_call", call, tag)
}

func (e *eth) GetTransactionReceipt(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	return e.fwd(ctx, "eth_getTransactionReceipt", hash)
}

func (e *eth) GetTransactionByHash(ctx context.Context, hash common.Hash) (json.RawMessage, error) {
	return e.fwd(ctx, "eth_getTransactionByHash", hash)
}

func (e *eth) GetLogs(ctx context.Context, filter json.RawMessage) (json.RawMessage, error) {
	return e.fwd(ctx, "eth_getLogs", filter)
}

// SendRawTransaction hands raw to the pool and seals a block with it.
func (e *eth) SendRawTransaction(ctx context.Context, raw hexutil.Bytes) (json.RawMessage, error) {
	e.c.mu.Lock()
	defer e.c.mu.Unlock()
	out, err := e.fwd(ctx, "eth_sendRawTransaction", raw)
	if err != nil {
		return nil, err
	}
	if e.c.Backend == nil {
		return nil, errors.New("simchain: closed")
	}
	e.c.Backend.Commit()
	return out, nil
}
