package stacks

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/ripemd160" //lint:ignore SA1019 hash160 (RIPEMD-160 of SHA-256) is what Stacks addresses are made of
)

// The SIP-010 transfer a payment is: a single-signature contract call of
// transfer(amount uint, sender principal, recipient principal, memo
// (optional (buff 34))) on the asset's contract, with one fungible
// post-condition (the sender sends exactly amount of the asset) in deny
// mode.

// Network facts of a Stacks chain: its transaction version byte and the
// address versions of a single-signature (P2PKH) and a multisig account.
type Chain struct {
	Network       string // stacks:1 or stacks:2147483648
	ChainID       uint32
	TxVersion     byte
	Single, Multi byte
}

// The two chains.
var (
	Mainnet = Chain{Network: "stacks:1", ChainID: 1, TxVersion: 0x00, Single: 22, Multi: 20}
	Testnet = Chain{Network: "stacks:2147483648", ChainID: 0x80000000, TxVersion: 0x80, Single: 26, Multi: 21}
)

// ChainOf is the chain of a CAIP-2 network.
func ChainOf(network string) (Chain, bool) {
	switch network {
	case Mainnet.Network:
		return Mainnet, true
	case Testnet.Network:
		return Testnet, true
	}
	return Chain{}, false
}

// IsNetwork reports a Stacks network termsgate pays on.
func IsNetwork(network string) bool { _, ok := ChainOf(network); return ok }

// ParseStandard reads a standard address of this chain (either version).
func (c Chain) ParseStandard(s string) (Principal, bool) {
	v, h, ok := ParseAddress(s)
	if !ok || (v != c.Single && v != c.Multi) {
		return Principal{}, false
	}
	return Principal{Version: v, Hash: h}, true
}

// ParseContract reads <address>.<name> of this chain.
func (c Chain) ParseContract(s string) (Principal, bool) {
	addr, name, ok := strings.Cut(s, ".")
	p, okA := c.ParseStandard(addr)
	if !ok || !okA || !IsName(name) {
		return Principal{}, false
	}
	p.Name = name
	return p, true
}

// IsName reports a Clarity name of at most MaxName characters: a letter,
// then letters, digits, '-' or '_'.
func IsName(s string) bool {
	if s == "" || len(s) > MaxName || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && (c < '0' || c > '9') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// String writes a principal: its address, and .name for a contract.
func (p Principal) String() string {
	s := Address(p.Version, p.Hash)
	if p.Name != "" {
		s += "." + p.Name
	}
	return s
}

// Clarity values of a transfer's arguments.

// ClarityUint is a Clarity uint (u128).
func ClarityUint(n uint64) []byte {
	b := make([]byte, 17)
	b[0] = 0x01
	binary.BigEndian.PutUint64(b[9:], n)
	return b
}

// ClarityPrincipal is a standard (0x05) or contract (0x06) principal.
func ClarityPrincipal(p Principal) []byte {
	if p.Name != "" {
		return p.write([]byte{0x06})
	}
	return p.write([]byte{0x05})
}

// MemoOf is (some H): the memo argument that carries H.
func MemoOf(h [32]byte) []byte {
	b := append([]byte{0x0a, 0x02}, 0, 0, 0, 32)
	return append(b, h[:]...)
}

// MemoH reads (some (buff 32)) back into H.
func MemoH(arg []byte) ([32]byte, bool) {
	var h [32]byte
	if len(arg) != 38 || !bytes.Equal(arg[:6], []byte{0x0a, 0x02, 0, 0, 0, 32}) {
		return h, false
	}
	copy(h[:], arg[6:])
	return h, true
}

// uintOf reads a Clarity uint that fits in 64 bits.
func uintOf(arg []byte) (uint64, bool) {
	if len(arg) != 17 || arg[0] != 0x01 || binary.BigEndian.Uint64(arg[1:9]) != 0 {
		return 0, false
	}
	return binary.BigEndian.Uint64(arg[9:]), true
}

// principalOf reads a standard principal argument.
func principalOf(arg []byte) (Principal, bool) {
	if len(arg) != 22 || arg[0] != 0x05 || arg[1] >= 32 { // a version c32 cannot write
		return Principal{}, false
	}
	p := Principal{Version: arg[1]}
	copy(p.Hash[:], arg[2:])
	return p, true
}

// Transfer is what a SIP-010 transfer transaction moves, as read.
type Transfer struct {
	Chain     Chain
	Origin    Principal // the signer's address (the chain's single-signature version)
	Contract  Principal
	AssetName string
	Amount    uint64
	Sender    Principal // the transfer's sender argument
	Recipient Principal
	Memo      []byte // the memo argument as serialized
	Nonce     uint64
	Fee       uint64
	Guarded   bool // deny mode with the one post-condition: the origin sends exactly Amount of the asset
}

// ReadTransfer reads tx as a SIP-010 transfer on its chain: version and
// chain id of one chain, a call of transfer with four arguments, the
// amount a uint, sender and recipient standard principals. Anything else
// is false.
func ReadTransfer(tx *Tx) (*Transfer, bool) {
	var c Chain
	switch {
	case tx.Version == Mainnet.TxVersion && tx.ChainID == Mainnet.ChainID:
		c = Mainnet
	case tx.Version == Testnet.TxVersion && tx.ChainID == Testnet.ChainID:
		c = Testnet
	default:
		return nil, false
	}
	if tx.Function != "transfer" || len(tx.Args) != 4 {
		return nil, false
	}
	amount, okA := uintOf(tx.Args[0])
	sender, okS := principalOf(tx.Args[1])
	recipient, okR := principalOf(tx.Args[2])
	if !okA || !okS || !okR {
		return nil, false
	}
	t := &Transfer{Chain: c, Origin: Principal{Version: c.Single, Hash: tx.Signer}, Contract: tx.Contract,
		Amount: amount, Sender: sender, Recipient: recipient, Memo: tx.Args[3], Nonce: tx.Nonce, Fee: tx.Fee}
	if len(tx.PostConditions) == 1 {
		pc := tx.PostConditions[0]
		t.AssetName = pc.AssetName
		from := pc.PrincipalType == 1 || pc.PrincipalType == 2 && pc.Principal == t.Origin
		t.Guarded = tx.PostCondMode == 0x02 && from && pc.Asset == tx.Contract && pc.Code == 0x01 && pc.Amount == amount
	}
	return t, true
}

// TransferSpec is what the buyer's transaction is built from.
type TransferSpec struct {
	Chain      Chain
	Origin     [20]byte // hash160 of the payer's compressed key
	Contract   Principal
	AssetName  string
	Amount     uint64
	Recipient  Principal
	H          [32]byte
	Nonce, Fee uint64
}

// Build writes the unsigned transaction (signature zero): on-chain anchor
// mode, deny mode with the post-condition that the origin sends exactly
// Amount of the asset, and transfer(amount, origin, recipient, (some H)).
func (s TransferSpec) Build() *Tx {
	origin := Principal{Version: s.Chain.Single, Hash: s.Origin}
	return &Tx{Version: s.Chain.TxVersion, ChainID: s.Chain.ChainID, Signer: s.Origin, Nonce: s.Nonce, Fee: s.Fee,
		AnchorMode: 0x01, PostCondMode: 0x02,
		PostConditions: []PostCondition{{PrincipalType: 2, Principal: origin, Asset: s.Contract, AssetName: s.AssetName,
			Code: 0x01, Amount: s.Amount}},
		Contract: s.Contract, Function: "transfer",
		Args: [][]byte{ClarityUint(s.Amount), ClarityPrincipal(origin), ClarityPrincipal(s.Recipient), MemoOf(s.H)}}
}

// Hash160 is RIPEMD-160 of SHA-256, of a compressed public key for an
// address.
func Hash160(b []byte) [20]byte {
	s := sha256Sum(b)
	r := ripemd160.New()
	r.Write(s[:])
	var h [20]byte
	copy(h[:], r.Sum(nil))
	return h
}

// Sign signs the SIP-005 hash with key, as the origin's signature: the
// recovery id, then r and s (low s, RFC 6979).
func Sign(t *Tx, key *secp256k1.PrivateKey) [65]byte {
	h := t.SigHash()
	c := ecdsa.SignCompact(key, h[:], true)
	var sig [65]byte
	sig[0] = c[0] - 31
	copy(sig[1:], c[1:])
	return sig
}

// VerifySignature reports whether the transaction's signature recovers,
// over its SIP-005 hash, to a compressed key whose hash160 is its signer.
func VerifySignature(t *Tx) bool {
	if t.Signature[0] > 3 {
		return false
	}
	h := t.SigHash()
	var c [65]byte
	c[0] = t.Signature[0] + 31
	copy(c[1:], t.Signature[1:])
	pub, compressed, err := ecdsa.RecoverCompact(c[:], h[:])
	if err != nil || !compressed {
		return false
	}
	return Hash160(pub.SerializeCompressed()) == t.Signer
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }
