package solana

import (
	"encoding/binary"
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
)

// AccountRead is a getAccountInfo read at finalized: the context slot it
// was read at and the account, when there is one.
type AccountRead struct {
	Slot   uint64
	Exists bool
	Owner  Key
	Data   []byte
}

// NonceReader is a Reader that can also read accounts and say from which
// slot it still holds blocks: what a durable-nonce reference needs.
type NonceReader interface {
	Reader
	Account(address string) (AccountRead, error)
	FirstAvailableBlock() (uint64, error)
}

// A System nonce account: version u32, state u32, authority, durable
// nonce, lamports per signature u64, little-endian, 80 bytes.
const (
	nonceAccountBytes = 80
	// nonceSettledSlots is how far past fromSlot a nonce read must be for
	// its answer to count: a blockhash's lifetime, 150 slots
	// (https://solana.com/docs/core/transactions).
	nonceSettledSlots = 150
)

// NonceOf reads a nonce account's data: its version, state and durable
// nonce value; ok false when it is not 80 bytes.
func NonceOf(data []byte) (version, state uint32, value Key, ok bool) {
	if len(data) != nonceAccountBytes {
		return 0, 0, Key{}, false
	}
	copy(value[:], data[40:72])
	return binary.LittleEndian.Uint32(data[0:4]), binary.LittleEndian.Uint32(data[4:8]), value, true
}

// NonceMoved reports whether the durable nonce ref records ({nonce:
// {account, value}, fromSlot}) is spent or gone, so the message can never
// land: a read of the nonce account at least 150 slots past fromSlot finds
// no account, an account the System program does not own, one that is not
// an initialized nonce account, or a current-version one holding another
// value. A legacy-version account (an upgrade turns it into a current one),
// a read too early, a failed read, a reference without a nonce and a reader
// of another network are false. One read.
func NonceMoved(ref *jsonv.Object, r NonceReader) bool {
	network, _ := ref.GetString("network")
	nonce, _ := ref.GetObject("nonce")
	as, _ := nonce.GetString("account")
	vs, _ := nonce.GetString("value")
	fs, _ := ref.GetString("fromSlot")
	fromSlot, err := strconv.ParseUint(fs, 10, 64)
	_, okAccount := ParseKey(as)
	recorded, okValue := ParseKey(vs)
	if r == nil || network == "" || network != r.Network() || !okAccount || !okValue || err != nil || fromSlot > ^uint64(0)-nonceSettledSlots {
		return false
	}
	read, err := r.Account(as)
	if err != nil || read.Slot < fromSlot+nonceSettledSlots {
		return false
	}
	if !read.Exists {
		return true
	}
	version, state, value, ok := NonceOf(read.Data)
	switch {
	case read.Owner != SystemProgram || !ok || state != 1:
		return true
	case version == 0:
		return false
	case version != 1:
		return true
	}
	return value != recorded
}

// nonceLapsed is NonceMoved, and the node still holds every block from
// fromSlot (so a transaction that used the nonce would be found).
func nonceLapsed(ref *jsonv.Object, r Reader) bool {
	nr, ok := r.(NonceReader)
	if !ok || !NonceMoved(ref, nr) {
		return false
	}
	fs, _ := ref.GetString("fromSlot")
	fromSlot, _ := strconv.ParseUint(fs, 10, 64)
	first, err := nr.FirstAvailableBlock()
	return err == nil && first <= fromSlot
}
