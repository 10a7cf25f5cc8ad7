package evm

// The EIP-1559 (type 2) transaction, read strictly and written canonically
// (docs/mpp-evm.md, "The EIP-1559 reader"). mpp/charge/evm/transaction's
// answer is one; the gate reads it back before making the credential, and
// inspect and the loopback seller read it as the chain does. go-ethereum's
// core/types would read it too, but links KZG and gnark into every program
// that pays (internal/depcheck), so the reading is done on rails/rlp.

import (
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	gethrlp "github.com/ethereum/go-ethereum/rlp"

	"github.com/termsgate/termsgate/rails/rlp"
)

// EIP1559TxType is the type byte of an EIP-1559 transaction.
const EIP1559TxType = 0x02

// Bounds of an EIP-1559 transaction the gate reads: the outer list is at
// depth 0, the access list 1, a tuple 2, its storage keys 3. 64 KiB holds
// far more than a token transfer with any real access list; the item bound
// keeps a list of one-byte items from costing more than its bytes.
const (
	MaxEIP1559Bytes = 64 << 10
	maxEIP1559Depth = 3
	maxEIP1559Items = 4096
)

// ErrEIP1559 is wrapped by every refusal of the reader.
var ErrEIP1559 = errors.New("evm: not a canonical, signed EIP-1559 transaction")

// AccessTuple is one entry of an access list.
type AccessTuple struct {
	Address     common.Address
	StorageKeys []common.Hash
}

// EIP1559Tx is a type-2 transaction. Nil integers are zero; To nil is a
// contract creation. R and S are nil until it is signed.
type EIP1559Tx struct {
	ChainID              *big.Int
	Nonce                uint64
	MaxPriorityFeePerGas *big.Int
	MaxFeePerGas         *big.Int
	Gas                  uint64
	To                   *common.Address
	Value                *big.Int
	Data                 []byte
	AccessList           []AccessTuple
	YParity              byte
	R, S                 *big.Int
}

// secp256k1 group order, and half of it: a signature's s above the half is
// the malleable twin every node refuses (EIP-2).
var (
	secp256k1N     = crypto.S256().Params().N
	secp256k1HalfN = new(big.Int).Rsh(secp256k1N, 1)
)

// DecodeEIP1559 reads a signed EIP-1559 transaction: 0x02, then one
// canonical RLP list spanning the rest, of exactly [chainId, nonce,
// maxPriorityFeePerGas, maxFeePerGas, gas, to, value, data, accessList,
// yParity, r, s]. Integers are canonical (no leading zero, at most 32
// bytes, nonce and gas at most 8); the chain id is positive; to is empty or
// 20 bytes; each access tuple is [20 bytes, [32 bytes ...]]; yParity is 0
// or 1, and 0 < r < n, 0 < s <= n/2. Anything else wraps ErrEIP1559.
func DecodeEIP1559(wire []byte) (*EIP1559Tx, error) {
	if len(wire) < 2 || len(wire) > MaxEIP1559Bytes || wire[0] != EIP1559TxType {
		return nil, ErrEIP1559
	}
	it, err := rlp.Decode(wire[1:], rlp.Limits{MaxDepth: maxEIP1559Depth, MaxItems: maxEIP1559Items})
	if err != nil || !it.List || len(it.Items) != 12 {
		return nil, ErrEIP1559
	}
	f := it.Items
	tx := &EIP1559Tx{}
	var ok [9]bool
	var parity *big.Int
	tx.ChainID, ok[0] = f[0].Uint()
	tx.Nonce, ok[1] = uint64Item(f[1])
	tx.MaxPriorityFeePerGas, ok[2] = f[2].Uint()
	tx.MaxFeePerGas, ok[3] = f[3].Uint()
	tx.Gas, ok[4] = uint64Item(f[4])
	tx.Value, ok[5] = f[6].Uint()
	parity, ok[6] = f[9].Uint()
	tx.R, ok[7] = f[10].Uint()
	tx.S, ok[8] = f[11].Uint()
	for _, o := range ok {
		if !o {
			return nil, ErrEIP1559
		}
	}
	if tx.ChainID.Sign() == 0 || f[5].List || f[7].List || !parity.IsUint64() || parity.Uint64() > 1 {
		return nil, ErrEIP1559
	}
	switch len(f[5].Bytes) {
	case 0:
	case common.AddressLength:
		to := common.BytesToAddress(f[5].Bytes)
		tx.To = &to
	default:
		return nil, ErrEIP1559
	}
	tx.Data = append([]byte{}, f[7].Bytes...)
	if tx.AccessList, err = accessList(f[8]); err != nil {
		return nil, err
	}
	tx.YParity = byte(parity.Uint64())
	if tx.R.Sign() == 0 || tx.R.Cmp(secp256k1N) >= 0 || tx.S.Sign() == 0 || tx.S.Cmp(secp256k1HalfN) > 0 {
		return nil, ErrEIP1559
	}
	return tx, nil
}

func uint64Item(it rlp.Item) (uint64, bool) {
	n, ok := it.Uint()
	if !ok || !n.IsUint64() {
		return 0, false
	}
	return n.Uint64(), true
}

func accessList(it rlp.Item) ([]AccessTuple, error) {
	if !it.List {
		return nil, ErrEIP1559
	}
	out := make([]AccessTuple, 0, len(it.Items))
	for _, t := range it.Items {
		if !t.List || len(t.Items) != 2 || t.Items[0].List || len(t.Items[0].Bytes) != common.AddressLength || !t.Items[1].List {
			return nil, ErrEIP1559
		}
		keys := make([]common.Hash, 0, len(t.Items[1].Items))
		for _, k := range t.Items[1].Items {
			if k.List || len(k.Bytes) != common.HashLength {
				return nil, ErrEIP1559
			}
			keys = append(keys, common.BytesToHash(k.Bytes))
		}
		out = append(out, AccessTuple{Address: common.BytesToAddress(t.Items[0].Bytes), StorageKeys: keys})
	}
	return out, nil
}

// eip1559Fields are the nine signed fields, in the order they are encoded;
// the rlp tags make a nil To the empty string, as a creation is written.
type eip1559Fields struct {
	ChainID              *big.Int
	Nonce                uint64
	MaxPriorityFeePerGas *big.Int
	MaxFeePerGas         *big.Int
	Gas                  uint64
	To                   *common.Address `rlp:"nil"`
	Value                *big.Int
	Data                 []byte
	AccessList           []AccessTuple
}

// eip1559Signed is the same with the signature; go-ethereum's rlp skips an
// embedded unexported struct, so the fields are written out again.
type eip1559Signed struct {
	ChainID              *big.Int
	Nonce                uint64
	MaxPriorityFeePerGas *big.Int
	MaxFeePerGas         *big.Int
	Gas                  uint64
	To                   *common.Address `rlp:"nil"`
	Value                *big.Int
	Data                 []byte
	AccessList           []AccessTuple
	YParity              uint64
	R, S                 *big.Int
}

func orZero(n *big.Int) *big.Int {
	if n == nil {
		return new(big.Int)
	}
	return n
}

func (tx *EIP1559Tx) fields() eip1559Fields {
	al := tx.AccessList
	if al == nil {
		al = []AccessTuple{}
	}
	return eip1559Fields{
		ChainID: orZero(tx.ChainID), Nonce: tx.Nonce, MaxPriorityFeePerGas: orZero(tx.MaxPriorityFeePerGas),
		MaxFeePerGas: orZero(tx.MaxFeePerGas), Gas: tx.Gas, To: tx.To, Value: orZero(tx.Value), Data: tx.Data, AccessList: al,
	}
}

// typed is the type byte followed by v's canonical RLP; only a negative
// integer fails.
func typed(v any) ([]byte, error) {
	b, err := gethrlp.EncodeToBytes(v)
	if err != nil {
		return nil, errors.Join(ErrEIP1559, err)
	}
	return append([]byte{EIP1559TxType}, b...), nil
}

// SigningHash is what the sender signs: keccak256(0x02 ‖ rlp(the nine
// fields)).
func (tx *EIP1559Tx) SigningHash() (common.Hash, error) {
	b, err := typed(tx.fields())
	if err != nil {
		return common.Hash{}, err
	}
	return crypto.Keccak256Hash(b), nil
}

// Sign sets the signature from a 65-byte r ‖ s ‖ v (v 0 or 1, as
// go-ethereum's crypto.Sign returns it) over SigningHash.
func (tx *EIP1559Tx) Sign(sig []byte) error {
	if len(sig) != 65 || sig[64] > 1 {
		return ErrEIP1559
	}
	tx.R, tx.S, tx.YParity = new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64]), sig[64]
	return nil
}

// MarshalBinary is the signed transaction's wire form: 0x02 ‖ rlp(the nine
// fields, yParity, r, s). Of a decoded transaction it is the input again,
// since the reader takes only canonical encodings.
func (tx *EIP1559Tx) MarshalBinary() ([]byte, error) {
	if tx.R == nil || tx.S == nil {
		return nil, errors.New("evm: the transaction is not signed")
	}
	f := tx.fields()
	return typed(eip1559Signed{f.ChainID, f.Nonce, f.MaxPriorityFeePerGas, f.MaxFeePerGas, f.Gas, f.To, f.Value, f.Data,
		f.AccessList, uint64(tx.YParity), tx.R, tx.S})
}

// Hash is the signed transaction's hash, keccak256 of its wire form (the
// transaction's id on the chain).
func (tx *EIP1559Tx) Hash() (common.Hash, error) {
	wire, err := tx.MarshalBinary()
	if err != nil {
		return common.Hash{}, err
	}
	return crypto.Keccak256Hash(wire), nil
}

// Sender recovers the address that signed the transaction.
func (tx *EIP1559Tx) Sender() (common.Address, error) {
	if tx.R == nil || tx.S == nil || tx.R.Sign() < 0 || tx.S.Sign() < 0 || tx.R.BitLen() > 256 || tx.S.BitLen() > 256 || tx.YParity > 1 {
		return common.Address{}, ErrEIP1559
	}
	sig := make([]byte, 65)
	tx.R.FillBytes(sig[:32])
	tx.S.FillBytes(sig[32:64])
	sig[64] = tx.YParity
	h, err := tx.SigningHash()
	if err != nil {
		return common.Address{}, err
	}
	pub, err := crypto.SigToPub(h[:], sig)
	if err != nil {
		return common.Address{}, ErrEIP1559
	}
	return crypto.PubkeyToAddress(*pub), nil
}
