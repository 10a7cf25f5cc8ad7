package evm

// ERC-7710 pieces for MetaMask's DelegationManager v1.3.0, which both x402
// ERC-7710 pairings read: the Delegation and its EIP-712 typed data, the
// permission context (abi.encode(Delegation[]), leaf first) written and
// read strictly, and the RedeemedDelegation log that carries the leaf on
// chain (docs/erc7710.md).

import (
	"encoding/binary"
	"errors"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// DelegationManager is MetaMask's reference DelegationManager v1.3.0, at one
// CREATE2 address on every chain its deployment record lists
// (https://github.com/MetaMask/delegation-framework).
const DelegationManager = "0xdb9B1e94B5b69Df7e401DDbedE43491141047dB3"

// delegationManagerChains are the chain ids whose deployment record holds
// the DelegationManager at that address.
var delegationManagerChains = map[int64]bool{}

func init() {
	for _, id := range []int64{1, 10, 56, 97, 100, 130, 137, 143, 146, 1155, 1301, 1328, 1329, 2020, 2021, 4114, 4217,
		4663, 5000, 5003, 5042, 5115, 6342, 6343, 8453, 10143, 10200, 13579, 14601, 42161, 42170, 42220, 42431, 46630,
		50312, 57073, 59141, 59144, 80002, 80069, 80094, 84532, 421614, 560048, 737373, 747474, 763373, 5042002,
		11142220, 11155111, 11155420} {
		delegationManagerChains[id] = true
	}
}

// Delegation constants.
const (
	// RootAuthority is the authority of a delegation made by the account
	// itself rather than redelegated.
	RootAuthority = "0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
	// AnyDelegate is the DelegationManager's wildcard delegate: anyone may
	// redeem.
	AnyDelegate = "0x0000000000000000000000000000000000000a11"
	// TopicRedeemedDelegation is keccak256("RedeemedDelegation(address,address,(address,address,bytes32,(address,bytes,bytes)[],uint256,bytes))").
	TopicRedeemedDelegation = "0x40dadaa36c6c2e3d7317e24757451ffb2d603d875f0ad5e92c5dd156573b1873"
)

// Bounds of the permission context reader.
const (
	MaxContextBytes = 32768
	maxDelegations  = 8
	maxCaveats      = 16
	maxABIBytes     = 8192
)

// Caveat is one restriction of a delegation: the enforcer contract, its
// terms (signed) and its args (given at redemption, not signed).
type Caveat struct {
	Enforcer    string
	Terms, Args []byte
}

// Delegation is one delegation of a permission context.
type Delegation struct {
	Delegate, Delegator string
	Authority           [32]byte
	Caveats             []Caveat
	Salt                [32]byte // a uint256, big-endian
	Signature           []byte
}

// IsReferenceManager reports whether manager is MetaMask's DelegationManager
// on a chain where it is deployed.
func IsReferenceManager(manager, network string) bool {
	chain, ok := chainID(network)
	return ok && delegationManagerChains[chain] && strings.EqualFold(manager, DelegationManager)
}

// DelegationTypedData is the EIP-712 typed data the delegator signs for d
// under the manager's domain {name "DelegationManager", version "1"}:
// Delegation(address delegate,address delegator,bytes32 authority,Caveat[]
// caveats,uint256 salt), Caveat(address enforcer,bytes terms). The args are
// not signed.
func DelegationTypedData(chainID int64, manager string, d Delegation) *jsonv.Object {
	caveats := make([]jsonv.Value, len(d.Caveats))
	for i, c := range d.Caveats {
		caveats[i] = jsonv.Obj("enforcer", c.Enforcer, "terms", hex0x(c.Terms))
	}
	return jsonv.Obj(
		"domain", jsonv.Obj("name", "DelegationManager", "version", "1", "chainId", chainID, "verifyingContract", manager),
		"types", jsonv.Obj(
			"EIP712Domain", eip712DomainType(),
			"Caveat", []jsonv.Value{field("enforcer", "address"), field("terms", "bytes")},
			"Delegation", []jsonv.Value{field("delegate", "address"), field("delegator", "address"),
				field("authority", "bytes32"), field("caveats", "Caveat[]"), field("salt", "uint256")},
		),
		"primaryType", "Delegation",
		"message", jsonv.Obj("delegate", d.Delegate, "delegator", d.Delegator, "authority", hex0x(d.Authority[:]),
			"caveats", caveats, "salt", new(big.Int).SetBytes(d.Salt[:]).String()),
	)
}

// abiWriter builds a head/tail ABI encoding.
func padded(b []byte) []byte {
	n := (len(b) + 31) / 32 * 32
	out := make([]byte, 32+n)
	binary.BigEndian.PutUint64(out[24:32], uint64(len(b)))
	copy(out[32:], b)
	return out
}

func offsetWord(n int) []byte { return uintWord(uint64(n)) }

// encodeDynamicList is the ABI encoding of a list of dynamic items: the
// count, the offsets (from after the count), then the items.
func encodeDynamicList(items [][]byte) []byte {
	out := uintWord(uint64(len(items)))
	off := 32 * len(items)
	for _, it := range items {
		out = append(out, offsetWord(off)...)
		off += len(it)
	}
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

func encodeCaveat(c Caveat) []byte {
	terms, args := padded(c.Terms), padded(c.Args)
	out := addressWord(c.Enforcer)
	out = append(out, offsetWord(96)...)
	out = append(out, offsetWord(96+len(terms))...)
	out = append(out, terms...)
	return append(out, args...)
}

// encodeDelegation is the tuple (delegate, delegator, authority,
// caveats, salt, signature), its dynamic parts after the six head words.
func encodeDelegation(d Delegation) []byte {
	cav := make([][]byte, len(d.Caveats))
	for i, c := range d.Caveats {
		cav[i] = encodeCaveat(c)
	}
	caveats := encodeDynamicList(cav)
	out := addressWord(d.Delegate)
	out = append(out, addressWord(d.Delegator)...)
	out = append(out, d.Authority[:]...)
	out = append(out, offsetWord(192)...)
	out = append(out, d.Salt[:]...)
	out = append(out, offsetWord(192+len(caveats))...)
	out = append(out, caveats...)
	return append(out, padded(d.Signature)...)
}

// EncodePermissionContext is abi.encode(Delegation[]) of ds, leaf first.
func EncodePermissionContext(ds []Delegation) []byte {
	items := make([][]byte, len(ds))
	for i, d := range ds {
		items[i] = encodeDelegation(d)
	}
	return append(offsetWord(32), encodeDynamicList(items)...)
}

// EncodeRedeemedData is the data of a RedeemedDelegation log for d:
// abi.encode(d).
func EncodeRedeemedData(d Delegation) []byte {
	return append(offsetWord(32), encodeDelegation(d)...)
}

var errContext = errors.New("evm: malformed permission context")

// DecodePermissionContext reads abi.encode(Delegation[]) strictly: every
// offset and length inside the input and 32-byte aligned, address words
// with 12 zero bytes, at most 8 delegations of at most 16 caveats, each
// bytes value at most 8 KiB, the input at most 32 KiB and whole words. An
// empty list decodes to none.
func DecodePermissionContext(b []byte) ([]Delegation, error) {
	if len(b) == 0 || len(b)%32 != 0 || len(b) > MaxContextBytes {
		return nil, errContext
	}
	r := abiReader{b}
	arr, ok := r.offset(0, 0)
	if !ok {
		return nil, errContext
	}
	count, ok := r.num(arr)
	if !ok || count > maxDelegations {
		return nil, errContext
	}
	heads := arr + 32
	out := make([]Delegation, 0, count)
	for i := 0; i < count; i++ {
		t, ok := r.offset(heads, heads+32*i)
		if !ok {
			return nil, errContext
		}
		var d Delegation
		var okA, okB, okC, okD, okE bool
		d.Delegate, okA = r.address(t)
		d.Delegator, okB = r.address(t + 32)
		auth, okAuth := r.word(t + 64)
		caveatsAt, okC := r.offset(t, t+96)
		salt, okSalt := r.word(t + 128)
		sigAt, okD := r.offset(t, t+160)
		if okD {
			d.Signature, okE = r.bytesAt(sigAt)
		}
		if !okA || !okB || !okAuth || !okC || !okSalt || !okE {
			return nil, errContext
		}
		copy(d.Authority[:], auth)
		copy(d.Salt[:], salt)
		n, ok := r.num(caveatsAt)
		if !ok || n > maxCaveats {
			return nil, errContext
		}
		for j := 0; j < n; j++ {
			c, ok := r.offset(caveatsAt+32, caveatsAt+32+32*j)
			if !ok {
				return nil, errContext
			}
			enforcer, ok1 := r.address(c)
			termsAt, ok2 := r.offset(c, c+32)
			argsAt, ok3 := r.offset(c, c+64)
			if !ok1 || !ok2 || !ok3 {
				return nil, errContext
			}
			terms, ok4 := r.bytesAt(termsAt)
			args, ok5 := r.bytesAt(argsAt)
			if !ok4 || !ok5 {
				return nil, errContext
			}
			d.Caveats = append(d.Caveats, Caveat{Enforcer: enforcer, Terms: terms, Args: args})
		}
		out = append(out, d)
	}
	return out, nil
}

// abiReader reads words of an ABI encoding, every position checked.
type abiReader struct{ b []byte }

func (r abiReader) word(pos int) ([]byte, bool) {
	if pos < 0 || pos%32 != 0 || pos+32 > len(r.b) {
		return nil, false
	}
	return r.b[pos : pos+32], true
}

// num is a word read as a count or offset below the input's length.
func (r abiReader) num(pos int) (int, bool) {
	w, ok := r.word(pos)
	if !ok {
		return 0, false
	}
	for _, c := range w[:24] {
		if c != 0 {
			return 0, false
		}
	}
	n := binary.BigEndian.Uint64(w[24:])
	if n >= uint64(len(r.b)) {
		return 0, false
	}
	return int(n), true
}

// offset is base plus the offset at pos: aligned and inside the input.
func (r abiReader) offset(base, pos int) (int, bool) {
	o, ok := r.num(pos)
	if !ok || o%32 != 0 || base+o >= len(r.b) {
		return 0, false
	}
	return base + o, true
}

func (r abiReader) address(pos int) (string, bool) {
	w, ok := r.word(pos)
	if !ok {
		return "", false
	}
	for _, c := range w[:12] {
		if c != 0 {
			return "", false
		}
	}
	return hex0x(w[12:]), true
}

func (r abiReader) bytesAt(at int) ([]byte, bool) {
	n, ok := r.num(at)
	if !ok || n > maxABIBytes || at+32+n > len(r.b) {
		return nil, false
	}
	return append([]byte(nil), r.b[at+32:at+32+n]...), true
}

// RedeemedLeafRecover reads H from a settlement transaction alone, ref
// {network, transaction}: among the DelegationManager's RedeemedDelegation
// logs, the leaves are those whose delegate (data word 1) is the redeemer
// (topic 2) or the wildcard; exactly one distinct leaf salt (data word 5)
// is H. None is evm/no-leaf, two evm/ambiguous; the read's failures are
// ExactEIP3009.Recover's. One read.
func RedeemedLeafRecover(ref *jsonv.Object, r Reader) (string, error) {
	network, ok1 := ref.GetString("network")
	tx, ok2 := ref.GetString("transaction")
	if !ok1 || !ok2 || !isWord32(tx) {
		return "", rails.Refuse(CodeFieldMalformed)
	}
	receipt, f := ReadReceipt(network, tx, r)
	switch f {
	case ReadWrongNetwork:
		return "", rails.Refuse(CodeWrongReader)
	case ReadFailed, ReadMalformed:
		return "", rails.Refuse(CodeUnreadable)
	case ReadNoReceipt:
		return "", rails.Refuse(CodeNotFound)
	case ReadReverted:
		return "", rails.Refuse(CodeReverted)
	}
	if !receipt.AllWellFormed() {
		return "", rails.Refuse(CodeUnreadable)
	}
	var found []atr.Hash
	for _, l := range receipt.Logs {
		if !SameAddress(l.Address, DelegationManager) || !SameBytes(l.Topic(0), TopicRedeemedDelegation) {
			continue
		}
		redeemer, okR := TopicAddress(l.Topic(2))
		dw, okD := l.DataWord(1)
		sw, okS := l.DataWord(5)
		if !okR || !okD || !okS {
			continue
		}
		delegate := strings.ToLower(common.BytesToAddress(dw).Hex())
		if delegate != redeemer && delegate != AnyDelegate {
			continue
		}
		h := atr.Hash(sw)
		if !containsHash(found, h) {
			found = append(found, h)
		}
	}
	switch len(found) {
	case 0:
		return "", rails.Refuse("evm/no-leaf")
	case 1:
		return found[0].String(), nil
	}
	return "", rails.Refuse(CodeAmbiguous)
}
