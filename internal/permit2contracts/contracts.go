// Package permit2contracts is Uniswap's Permit2 and x402's exact and upto
// Permit2 proxies, compiled once from their published sources (src/, under
// their own licenses) and committed, so that tests and `termsgate demo
// --settle` run the contracts the x402 Permit2 pairings name, on an
// in-process chain, with nothing but the Go module proxy. README.md records
// the sources' repositories, commits and licenses, the compilers, the one
// rebuild command and each creation code's SHA-256.
//
// The package packs calls and reads them back; it does not talk to a chain.
package permit2contracts

import (
	_ "embed"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
)

var (
	//go:embed Permit2.bin
	permit2Bin string
	//go:embed Permit2.abi.json
	permit2ABI string
	//go:embed x402ExactPermit2Proxy.bin
	exactBin string
	//go:embed x402ExactPermit2Proxy.abi.json
	exactABI string
	//go:embed x402UptoPermit2Proxy.bin
	uptoBin string
	//go:embed x402UptoPermit2Proxy.abi.json
	uptoABI string
	//go:embed AuthCaptureEscrow.bin
	escrowBin string
	//go:embed AuthCaptureEscrow.abi.json
	escrowABI string
	//go:embed Permit2PaymentCollector.bin
	collectorBin string
	//go:embed Permit2PaymentCollector.abi.json
	collectorABI string
)

// Contract is one compiled contract and the address the pairings name it by.
type Contract struct {
	Name    string
	ABI     abi.ABI
	Address common.Address
	// SHA256 is the SHA-256 of the committed creation code, as README.md
	// records it; a test checks the committed .bin still hashes to it.
	SHA256   string
	creation string
	args     []byte
}

// Creation is the committed creation code, without constructor arguments.
func (c Contract) Creation() []byte { return common.FromHex(strings.TrimSpace(c.creation)) }

// InitCode is the creation code with its constructor arguments: the proxies
// take the canonical Permit2 address, as x402 deploys them on every chain.
func (c Contract) InitCode() []byte { return append(c.Creation(), c.args...) }

var (
	// Permit2 is Uniswap's Permit2 at its canonical address.
	Permit2 = contract("Permit2", permit2ABI, permit2Bin, evm.Permit2Address,
		"bf1d718d7e36bb56a3c2a6b5a8e97ce87752e555f15601f0a3e78285d095ac32", nil)
	// ExactProxy is x402ExactPermit2Proxy at the address x402 deploys it to.
	ExactProxy = contract("x402ExactPermit2Proxy", exactABI, exactBin, evm.ExactPermit2Proxy,
		"d47dae4b03890033490cb9ee9217cdbdcaf3bc185125cd8746d127b041aa6ce5", common.LeftPadBytes(common.HexToAddress(evm.Permit2Address).Bytes(), 32))
	// UptoProxy is x402UptoPermit2Proxy at the address x402 deploys it to.
	UptoProxy = contract("x402UptoPermit2Proxy", uptoABI, uptoBin, evm.UptoPermit2Proxy,
		"14a11f19947e6e0d27a99a73099da52d0aed7c5b0799697d1625ace80c0a5f4c", common.LeftPadBytes(common.HexToAddress(evm.Permit2Address).Bytes(), 32))
)

// Multicall3 is the address the commerce-payments collectors are built
// with, for ERC-6492 signatures of undeployed wallets only; no simulated
// chain deploys it, and the payments here are plain EOA signatures.
var Multicall3 = common.HexToAddress("0xcA11bde05977b3631167028862bE2a173976CA11")

var (
	// Escrow is base/commerce-payments' AuthCaptureEscrow at v1.0's address.
	Escrow = contract("AuthCaptureEscrow", escrowABI, escrowBin, evm.EscrowV10.Escrow,
		"5a50e0570efed26019a3eab65659fcc3a1d03110a11cec7315d3fd4b559fa0f7", nil)
	// Permit2Collector is its Permit2PaymentCollector at v1.0's address.
	Permit2Collector = contract("Permit2PaymentCollector", collectorABI, collectorBin, evm.EscrowV10.Permit2Collector,
		"ad1ab6c0d8d9266c4e24be86e007e35b5719ea6b454422fb4f126052a047fb5c",
		append(append(word(evm.EscrowV10.Escrow), word(evm.Permit2Address)...), word(Multicall3.Hex())...))
)

func word(addr string) []byte { return common.LeftPadBytes(common.HexToAddress(addr).Bytes(), 32) }

// All is the five, Permit2 first.
func All() []Contract { return []Contract{Permit2, ExactProxy, UptoProxy, Escrow, Permit2Collector} }

func contract(name, abiJSON, bin, addr, sum string, args []byte) Contract {
	a, err := abi.JSON(strings.NewReader(abiJSON))
	if err != nil {
		panic("permit2contracts: the committed " + name + ".abi.json does not read: " + err.Error())
	}
	return Contract{Name: name, ABI: a, Address: common.HexToAddress(addr), SHA256: sum, creation: bin, args: args}
}

// The CREATE2 deployment x402 publishes for the upto proxy: Arachnid's
// deterministic deployer and the mined salt. The upto proxy is built without
// CBOR metadata, so its creation code from these sources is byte for byte
// the deployed one, and CREATE2 over it gives the proxy's address (a test
// checks it).
var (
	DeterministicDeployer = common.HexToAddress("0x4e59b44847b379578588920cA78FbF26c0B4956C")
	UptoSalt              = common.HexToHash("0x000000000000000000000000000000000000000000000000b000000001db633d")
)

// The calls' Go shapes; field names are the ABI's.
type (
	TokenPermissions struct {
		Token  common.Address
		Amount *big.Int
	}
	PermitTransferFrom struct {
		Permitted TokenPermissions
		Nonce     *big.Int
		Deadline  *big.Int
	}
	exactWitness struct {
		To         common.Address
		ValidAfter *big.Int
	}
	uptoWitness struct {
		To          common.Address
		Facilitator common.Address
		ValidAfter  *big.Int
	}
)

// Payment is a signed x402 Permit2 payment (exact or upto) as a facilitator
// sends it to the proxy.
type Payment struct {
	Upto        bool // the upto proxy; else the exact one
	Permit      PermitTransferFrom
	Owner       common.Address
	To          common.Address // the witness's payee
	Facilitator common.Address // upto: who alone may settle
	ValidAfter  *big.Int
	Signature   []byte
}

// Proxy is the proxy the payment is for.
func (p Payment) Proxy() Contract {
	if p.Upto {
		return UptoProxy
	}
	return ExactProxy
}

// PaymentOf reads an x402 v2 Permit2 payment: accepted.scheme ("exact" or
// "upto") and payload {signature, permit2Authorization {permitted {token,
// amount}, from, spender, nonce (decimal or 0x hex), deadline, witness {to,
// validAfter, facilitator for upto}}}. The spender must be the scheme's
// proxy: a facilitator sends the payment only to the contract it names.
func PaymentOf(payment *jsonv.Object) (Payment, error) {
	var p Payment
	accepted, _ := payment.GetObject("accepted")
	payload, _ := payment.GetObject("payload")
	auth, _ := payload.GetObject("permit2Authorization")
	permitted, _ := auth.GetObject("permitted")
	witness, _ := auth.GetObject("witness")
	text := func(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }
	switch text(accepted, "scheme") {
	case "exact":
	case "upto":
		p.Upto = true
	default:
		return p, errors.New("permit2contracts: the payment's scheme is neither exact nor upto")
	}
	if !strings.EqualFold(text(auth, "spender"), p.Proxy().Address.Hex()) {
		return p, fmt.Errorf("permit2contracts: the spender is not %s", p.Proxy().Name)
	}
	addresses := []struct {
		o   *jsonv.Object
		k   string
		dst *common.Address
	}{{permitted, "token", &p.Permit.Permitted.Token}, {auth, "from", &p.Owner}, {witness, "to", &p.To}}
	if p.Upto {
		addresses = append(addresses, struct {
			o   *jsonv.Object
			k   string
			dst *common.Address
		}{witness, "facilitator", &p.Facilitator})
	}
	for _, a := range addresses {
		if !evm.IsAddress(text(a.o, a.k)) {
			return p, fmt.Errorf("permit2contracts: %s is not an address", a.k)
		}
		*a.dst = common.HexToAddress(text(a.o, a.k))
	}
	numbers := []struct {
		o   *jsonv.Object
		k   string
		dst **big.Int
	}{{permitted, "amount", &p.Permit.Permitted.Amount}, {auth, "deadline", &p.Permit.Deadline}, {witness, "validAfter", &p.ValidAfter}}
	for _, n := range numbers {
		v, ok := new(big.Int).SetString(text(n.o, n.k), 10)
		if !ok || !evm.IsUint256Decimal(text(n.o, n.k)) {
			return p, fmt.Errorf("permit2contracts: %s is not a uint256 decimal", n.k)
		}
		*n.dst = v
	}
	nonce, ok := evm.Permit2NonceHash(text(auth, "nonce"))
	if !ok {
		return p, errors.New("permit2contracts: the nonce is neither a uint256 decimal nor 32 bytes of hex")
	}
	p.Permit.Nonce = new(big.Int).SetBytes(nonce[:])
	sig, ok := evm.HexBytes(text(payload, "signature"))
	if !ok || len(sig) != 65 {
		return p, errors.New("permit2contracts: the signature is not 65 bytes of hex")
	}
	p.Signature = sig
	return p, nil
}

// Settle is the calldata of the proxy's settle: the exact proxy moves the
// permitted amount (amount is ignored); the upto proxy moves amount, which
// may be less.
func (p Payment) Settle(amount *big.Int) ([]byte, error) {
	if p.Upto {
		if amount == nil {
			return nil, errors.New("permit2contracts: an upto settlement names its amount")
		}
		return UptoProxy.ABI.Pack("settle", p.Permit, amount, p.Owner,
			uptoWitness{To: p.To, Facilitator: p.Facilitator, ValidAfter: p.ValidAfter}, p.Signature)
	}
	return ExactProxy.ABI.Pack("settle", p.Permit, p.Owner, exactWitness{To: p.To, ValidAfter: p.ValidAfter}, p.Signature)
}

// Settled is what a proxy's settle calldata carries, read back.
type Settled struct {
	Proxy  Contract
	Permit PermitTransferFrom
	Amount *big.Int // what the call moves: upto's amount, exact's permitted amount
	Owner  common.Address
	To     common.Address
}

// SettledOf reads settle calldata sent to proxy (the transaction's to): the
// method must be that proxy's settle, and every argument must decode.
func SettledOf(proxy common.Address, calldata []byte) (Settled, error) {
	var c Contract
	switch proxy {
	case ExactProxy.Address:
		c = ExactProxy
	case UptoProxy.Address:
		c = UptoProxy
	default:
		return Settled{}, errors.New("permit2contracts: the transaction is not to an x402 Permit2 proxy")
	}
	m := c.ABI.Methods["settle"]
	if len(calldata) < 4 || string(calldata[:4]) != string(m.ID) {
		return Settled{}, errors.New("permit2contracts: the call is not " + c.Name + ".settle")
	}
	values, err := m.Inputs.Unpack(calldata[4:])
	if err != nil {
		return Settled{}, fmt.Errorf("permit2contracts: %s.settle's arguments: %w", c.Name, err)
	}
	s := Settled{Proxy: c}
	if c.Address == UptoProxy.Address {
		var a struct {
			Permit    PermitTransferFrom
			Amount    *big.Int
			Owner     common.Address
			Witness   uptoWitness
			Signature []byte
		}
		err = copyArgs(m.Inputs, &a, values)
		s.Permit, s.Amount, s.Owner, s.To = a.Permit, a.Amount, a.Owner, a.Witness.To
	} else {
		var a struct {
			Permit    PermitTransferFrom
			Owner     common.Address
			Witness   exactWitness
			Signature []byte
		}
		err = copyArgs(m.Inputs, &a, values)
		s.Permit, s.Amount, s.Owner, s.To = a.Permit, a.Permit.Permitted.Amount, a.Owner, a.Witness.To
	}
	if err != nil {
		return Settled{}, fmt.Errorf("permit2contracts: %s.settle's arguments: %w", c.Name, err)
	}
	return s, nil
}

// copyArgs copies unpacked values into dst's fields by argument name, each
// tuple into the Go struct of that name (abi's Copy, which panics on a shape
// it cannot convert: that is an error here).
func copyArgs(inputs abi.Arguments, dst any, values []any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return inputs.Copy(dst, values)
}

// NonceBitmap is the calldata of Permit2's nonceBitmap(owner, wordPos).
func NonceBitmap(owner common.Address, wordPos *big.Int) []byte {
	return mustPack(Permit2.ABI, "nonceBitmap", owner, wordPos)
}

// DomainSeparator is the calldata of Permit2's DOMAIN_SEPARATOR().
func DomainSeparator() []byte { return mustPack(Permit2.ABI, "DOMAIN_SEPARATOR") }

// ProxyPermit2 is the calldata of a proxy's PERMIT2().
func ProxyPermit2() []byte { return mustPack(ExactProxy.ABI, "PERMIT2") }

func mustPack(a abi.ABI, method string, args ...any) []byte {
	b, err := a.Pack(method, args...)
	if err != nil {
		panic("permit2contracts: " + method + ": " + err.Error())
	}
	return b
}

// RevertName names the custom error a node's answer carries (the revert
// data of a failed eth_call or eth_estimateGas) by the three contracts'
// ABIs: "InvalidSigner", "InvalidNonce", "UnauthorizedFacilitator", ...; ""
// when err carries no revert data or data none of them declares.
func RevertName(err error) string {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return ""
	}
	data, _ := de.ErrorData().(string)
	raw := common.FromHex(data)
	if len(raw) < 4 {
		return ""
	}
	for _, c := range All() {
		for name, e := range c.ABI.Errors {
			if string(e.ID[:4]) == string(raw[:4]) {
				return name
			}
		}
	}
	return ""
}
