package simchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/runtime"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256" // the EVM call's value

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/eip3009token"
	"github.com/termsgate/termsgate/internal/permit2contracts"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// The x402 Permit2 pairings name Permit2 and the proxies by their canonical
// addresses, which no transaction on a new chain can create: CREATE2 from
// the deterministic deployer reaches them only with the exact creation code
// deployed, and Permit2's and the exact proxy's carry build metadata these
// sources do not reproduce (internal/permit2contracts/README.md). So each
// chain starts with the three in its genesis, each account holding what its
// constructor leaves when run at that address on this chain (chain id 1337):
// the runtime code with its immutables (Permit2's cached domain separator
// over the canonical address, the proxies' PERMIT2) and any storage it wrote.

var (
	permit2Once  sync.Once
	permit2Alloc types.GenesisAlloc
	permit2Err   error
)

// permit2Genesis is the contracts' genesis accounts, computed once.
func permit2Genesis(deployer common.Address) (types.GenesisAlloc, error) {
	permit2Once.Do(func() {
		alloc := types.GenesisAlloc{}
		for _, c := range permit2contracts.All() {
			accounts, err := construct(deployer, c.Address, c.InitCode())
			if err != nil {
				permit2Err = fmt.Errorf("simchain: constructing %s: %w", c.Name, err)
				return
			}
			for a, acct := range accounts {
				alloc[a] = acct
			}
		}
		permit2Alloc = alloc
	})
	return permit2Alloc, permit2Err
}

// construct runs init as the creation code of a contract at addr, created by
// deployer on this chain's rules: in a throwaway state the account holds init
// as its code and is called with no input, as a creation runs (its code is
// the creation code, ADDRESS is addr); what it returns is the runtime code.
// The accounts are addr and any contract its constructor created (the
// escrow creates its TokenStore implementation), each with the storage
// written and its nonce.
func construct(deployer, addr common.Address, init []byte) (types.GenesisAlloc, error) {
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		return nil, err
	}
	st.SetCode(addr, init, tracing.CodeChangeUnspecified)
	st.SetNonce(addr, 1, tracing.NonceChangeUnspecified)
	storage := map[common.Address]map[common.Hash]common.Hash{addr: {}}
	touch := func(a common.Address) map[common.Hash]common.Hash {
		if storage[a] == nil {
			storage[a] = map[common.Hash]common.Hash{}
		}
		return storage[a]
	}
	hooks := &tracing.Hooks{
		OnStorageChange: func(a common.Address, slot, _, v common.Hash) { touch(a)[slot] = v },
		OnCodeChange:    func(a common.Address, _ common.Hash, _ []byte, _ common.Hash, _ []byte) { touch(a) },
	}
	cfg := &runtime.Config{
		ChainConfig: params.AllDevChainProtocolChanges, // the simulated backend's rules, chain id 1337
		Origin:      deployer,
		GasLimit:    30_000_000,
		GasPrice:    new(big.Int),
		BlockNumber: new(big.Int),
		Difficulty:  new(big.Int),
		BaseFee:     new(big.Int),
		BlobBaseFee: new(big.Int),
		Random:      new(common.Hash),
		GetHashFn:   func(uint64) common.Hash { return common.Hash{} },
		State:       st,
	}
	env := runtime.NewEnv(cfg)
	env.StateDB = state.NewHookedState(st, hooks) // the storage and code each write leaves, seen through the hooks
	rules := cfg.ChainConfig.Rules(cfg.BlockNumber, true, 0)
	st.Prepare(rules, deployer, common.Address{}, &addr, vm.ActivePrecompiles(rules), nil)
	code, _, err := env.Call(deployer, addr, nil, vm.NewGasBudget(cfg.GasLimit, 0), new(uint256.Int))
	if err != nil {
		return nil, err
	}
	if len(code) == 0 {
		return nil, errors.New("the constructor returned no code")
	}
	alloc := types.GenesisAlloc{}
	for a, slots := range storage {
		acct := types.Account{Code: st.GetCode(a), Nonce: st.GetNonce(a), Balance: new(big.Int), Storage: map[common.Hash]common.Hash{}}
		if a == addr {
			acct.Code = code
		}
		for slot, v := range slots {
			if v != (common.Hash{}) {
				acct.Storage[slot] = v
			}
		}
		if len(acct.Code) == 0 {
			return nil, fmt.Errorf("%s was written but holds no code", a.Hex())
		}
		alloc[a] = acct
	}
	return alloc, nil
}

// MaxUint256 is the allowance a payer gives Permit2 once, as wallets do.
var MaxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// ApprovePermit2 is the payer's one-time setup for Permit2 payments: an
// approve(Permit2, 2^256-1) on the token, sent and paid for by key.
func (c *Chain) ApprovePermit2(ctx context.Context, key *ecdsa.PrivateKey) (string, *evmrpc.Landed, error) {
	data, err := eip3009token.ABI.Pack("approve", permit2contracts.Permit2.Address, MaxUint256)
	if err != nil {
		return "", nil, err
	}
	return c.Transact(ctx, key, &c.Token, data, 0)
}

// Allowance is the token's allowance(owner, spender).
func (c *Chain) Allowance(ctx context.Context, owner, spender common.Address) (*big.Int, error) {
	data, err := eip3009token.ABI.Pack("allowance", owner, spender)
	if err != nil {
		return nil, err
	}
	out, err := c.Node.CallContract(ctx, c.Token, data)
	if err != nil {
		return nil, err
	}
	return eip3009token.Uint256(out)
}

// SettlePermit2 settles an x402 Permit2 payment (exact or upto) as a
// facilitator does: settle on the proxy its spender names, sent by key, gas
// estimated by the node (so that a payment Permit2 or the proxy refuses fails
// the estimate with the contract's error; permit2contracts.RevertName names
// it). amount is what an upto settlement moves (nil: the authorized maximum);
// the exact proxy always moves the permitted amount. gas, when not 0, skips
// the estimate and lets the transaction land and revert.
func (c *Chain) SettlePermit2(ctx context.Context, key *ecdsa.PrivateKey, payment *jsonv.Object, amount *big.Int, gas uint64) (string, *evmrpc.Landed, error) {
	p, err := permit2contracts.PaymentOf(payment)
	if err != nil {
		return "", nil, err
	}
	if amount == nil {
		amount = p.Permit.Permitted.Amount
	}
	data, err := p.Settle(amount)
	if err != nil {
		return "", nil, err
	}
	proxy := p.Proxy().Address
	return c.Transact(ctx, key, &proxy, data, gas)
}

// Permit2Settler is an x402seller Settler that settles Permit2 payments on
// this chain, sent by the deployer's key (the upto option's facilitator):
// amount for upto (nil: the maximum). A payment that does not land with
// status 1 is refused.
func (c *Chain) Permit2Settler(amount *big.Int) func(ctx context.Context, payment *jsonv.Object) (string, error) {
	return func(ctx context.Context, payment *jsonv.Object) (string, error) {
		hash, _, err := c.SettlePermit2(ctx, c.Deployer, payment, amount, 0)
		if err != nil {
			if name := permit2contracts.RevertName(err); name != "" {
				return "", fmt.Errorf("settle: %s: %w", name, err)
			}
			return "", fmt.Errorf("settle: %w", err)
		}
		return hash, nil
	}
}

// Facilitator is the address that settles: the deployer's.
func (c *Chain) Facilitator() common.Address { return crypto.PubkeyToAddress(c.Deployer.PublicKey) }

// Permit2NonceUsed is Permit2's record of (owner, nonce): bit nonce & 0xff
// of nonceBitmap(owner, nonce >> 8).
func (c *Chain) Permit2NonceUsed(ctx context.Context, owner common.Address, nonce atr.Hash) (bool, error) {
	n := new(big.Int).SetBytes(nonce[:])
	out, err := c.Node.CallContract(ctx, permit2contracts.Permit2.Address, permit2contracts.NonceBitmap(owner, new(big.Int).Rsh(n, 8)))
	if err != nil {
		return false, err
	}
	word, err := eip3009token.Uint256(out)
	if err != nil {
		return false, err
	}
	return word.Bit(int(nonce[31])) == 1, nil
}

// Transaction is eth_getTransactionByHash of hash: its to and input.
func (c *Chain) Transaction(ctx context.Context, hash string) (to common.Address, input []byte, err error) {
	var tx *struct {
		To    *common.Address `json:"to"`
		Input string          `json:"input"`
	}
	if err := c.rpc.CallContext(ctx, &tx, "eth_getTransactionByHash", common.HexToHash(hash)); err != nil {
		return common.Address{}, nil, err
	}
	if tx == nil || tx.To == nil {
		return common.Address{}, nil, fmt.Errorf("simchain: no call transaction %s", hash)
	}
	return *tx.To, common.FromHex(tx.Input), nil
}

// SettledPermit2 reads a landed settlement back from the chain alone: the
// transaction's receipt must have status 1, its call must be an x402
// Permit2 proxy's settle, and Permit2 must hold the call's nonce used for
// its owner. It returns what the call carried; the nonce is H as a uint256.
func (c *Chain) SettledPermit2(ctx context.Context, hash string) (permit2contracts.Settled, error) {
	l, err := c.Node.Receipt(ctx, hash)
	if err != nil {
		return permit2contracts.Settled{}, err
	}
	if l == nil || l.Status != 1 {
		return permit2contracts.Settled{}, fmt.Errorf("simchain: %s did not land with status 1", hash)
	}
	to, input, err := c.Transaction(ctx, hash)
	if err != nil {
		return permit2contracts.Settled{}, err
	}
	s, err := permit2contracts.SettledOf(to, input)
	if err != nil {
		return permit2contracts.Settled{}, err
	}
	var nonce atr.Hash
	s.Permit.Nonce.FillBytes(nonce[:])
	used, err := c.Permit2NonceUsed(ctx, s.Owner, nonce)
	if err != nil {
		return permit2contracts.Settled{}, err
	}
	if !used {
		return permit2contracts.Settled{}, errors.New("simchain: Permit2 holds the settled nonce unused")
	}
	return s, nil
}

// NonceHash is a settled permit's nonce as the 32 bytes it spells.
func NonceHash(s permit2contracts.Settled) atr.Hash {
	var h atr.Hash
	s.Permit.Nonce.FillBytes(h[:])
	return h
}

// Reader is the node as an evm.Reader that can also call contracts at a
// block (evm.Caller), as rails/evm's Permit2Status asks Permit2 for the
// nonce's record at the settling block, and read a transaction's input
// (evm.TxReader): signer/evmrpc's reader.
func (c *Chain) Reader(ctx context.Context) (evm.Reader, error) { return c.Node.Reader(ctx) }
