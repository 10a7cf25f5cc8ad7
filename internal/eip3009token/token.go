// Package eip3009token is a small EIP-3009 ERC-20 (Token.sol) compiled once
// and committed, so that tests and the settling demo deploy a real token on
// an in-process chain with nothing but the Go module proxy. README.md records
// the compiler, the one rebuild command and the bytecode's SHA-256.
//
// The package packs calls and reads results; it does not talk to a chain.
package eip3009token

import (
	_ "embed"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
)

//go:embed Token.bin
var bytecodeHex string

//go:embed Token.abi.json
var abiJSON string

// BytecodeSHA256 is the SHA-256 of the committed creation bytecode, as
// README.md records it; a test checks that Token.bin still hashes to it.
const BytecodeSHA256 = "bb4a72be1aa0ebc6b7300fb4ae0826a7fac06993b4690734379ec590e71be707"

// ABI is the token's interface, read from the committed Token.abi.json.
var ABI = mustABI()

func mustABI() abi.ABI {
	a, err := abi.JSON(strings.NewReader(abiJSON))
	if err != nil {
		panic("eip3009token: the committed Token.abi.json does not read: " + err.Error())
	}
	return a
}

// Bytecode is the committed creation bytecode, without constructor
// arguments.
func Bytecode() []byte {
	return common.FromHex(strings.TrimSpace(bytecodeHex))
}

// DeployData is the creation bytecode with its constructor arguments: the
// EIP-712 domain's name and version (USDC's are "USD Coin" and "2"; on Base
// Sepolia, "USDC" and "2").
func DeployData(name, version string) ([]byte, error) {
	args, err := ABI.Pack("", name, version)
	if err != nil {
		return nil, err
	}
	return append(Bytecode(), args...), nil
}

// TopicAuthorizationUsed is topic 0 of AuthorizationUsed(authorizer, nonce).
var TopicAuthorizationUsed = ABI.Events["AuthorizationUsed"].ID

// Authorization is a signed EIP-3009 transfer, as a payment carries it.
type Authorization struct {
	From, To                       common.Address
	Value, ValidAfter, ValidBefore *big.Int
	Nonce                          [32]byte
	Signature                      []byte // r ‖ s ‖ v, v 27 or 28
}

// AuthorizationOf reads the JSON form both EIP-3009 pairings sign, {from,
// to, value, validAfter, validBefore, nonce} (decimal strings for the
// numbers, "0x" hex for the rest), with the signature beside it.
func AuthorizationOf(auth *jsonv.Object, signature string) (Authorization, error) {
	var a Authorization
	text := func(k string) string { s, _ := auth.GetString(k); return s }
	for _, k := range []string{"from", "to"} {
		if !evm.IsAddress(text(k)) {
			return a, fmt.Errorf("eip3009token: %s is not an address", k)
		}
	}
	a.From, a.To = common.HexToAddress(text("from")), common.HexToAddress(text("to"))
	for _, f := range []struct {
		k   string
		dst **big.Int
	}{{"value", &a.Value}, {"validAfter", &a.ValidAfter}, {"validBefore", &a.ValidBefore}} {
		n, ok := new(big.Int).SetString(text(f.k), 10)
		if !ok || !evm.IsUint256Decimal(text(f.k)) {
			return a, fmt.Errorf("eip3009token: %s is not a uint256 decimal", f.k)
		}
		*f.dst = n
	}
	nonce, ok := evm.HexBytes(text("nonce"))
	if !ok || len(nonce) != 32 {
		return a, errors.New("eip3009token: nonce is not 32 bytes of hex")
	}
	copy(a.Nonce[:], nonce)
	sig, ok := evm.HexBytes(signature)
	if !ok || len(sig) != 65 {
		return a, errors.New("eip3009token: the signature is not 65 bytes of hex")
	}
	a.Signature = sig
	return a, nil
}

// TransferWithAuthorization is the calldata a facilitator sends to settle a.
func TransferWithAuthorization(a Authorization) ([]byte, error) {
	return packAuthorization("transferWithAuthorization", a)
}

// ReceiveWithAuthorization is the calldata the payee itself sends to settle a.
func ReceiveWithAuthorization(a Authorization) ([]byte, error) {
	return packAuthorization("receiveWithAuthorization", a)
}

func packAuthorization(method string, a Authorization) ([]byte, error) {
	if len(a.Signature) != 65 {
		return nil, errors.New("eip3009token: the signature is not 65 bytes")
	}
	var r, s [32]byte
	copy(r[:], a.Signature[:32])
	copy(s[:], a.Signature[32:64])
	return ABI.Pack(method, a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, a.Signature[64], r, s)
}

// Mint is the calldata that mints value to to (the deployer only).
func Mint(to common.Address, value *big.Int) []byte {
	return mustPack("mint", to, value)
}

// BalanceOf is the calldata of balanceOf(who).
func BalanceOf(who common.Address) []byte { return mustPack("balanceOf", who) }

// AuthorizationState is the calldata of authorizationState(authorizer, nonce).
func AuthorizationState(authorizer common.Address, nonce [32]byte) []byte {
	return mustPack("authorizationState", authorizer, nonce)
}

// DomainSeparator is the calldata of DOMAIN_SEPARATOR().
func DomainSeparator() []byte { return mustPack("DOMAIN_SEPARATOR") }

// mustPack packs arguments whose Go types match the ABI by construction.
func mustPack(method string, args ...any) []byte {
	b, err := ABI.Pack(method, args...)
	if err != nil {
		panic("eip3009token: " + method + ": " + err.Error())
	}
	return b
}

// Uint256 reads a uint256 call result.
func Uint256(result []byte) (*big.Int, error) {
	if len(result) != 32 {
		return nil, fmt.Errorf("eip3009token: a uint256 result is 32 bytes, not %d", len(result))
	}
	return new(big.Int).SetBytes(result), nil
}

// Bool reads a bool call result.
func Bool(result []byte) (bool, error) {
	n, err := Uint256(result)
	if err != nil || n.BitLen() > 1 {
		return false, errors.New("eip3009token: the result is not a bool")
	}
	return n.Sign() == 1, nil
}

// ContractAddress is the address a creation transaction from deployer with
// nonce creates.
func ContractAddress(deployer common.Address, nonce uint64) common.Address {
	return crypto.CreateAddress(deployer, nonce)
}
