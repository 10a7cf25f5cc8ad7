package starknet

// SNIP-12 revision 1 (https://github.com/starknet-io/SNIPs/blob/main/SNIPS/snip-12.md)
// for the one typed data this pairing signs: SNIP-9 v2's OutsideExecution
// (https://github.com/starknet-io/SNIPs/blob/main/SNIPS/snip-9.md) holding
// one Call. The types are fixed, so their hashes are computed once from
// their revision-1 encodings and a message is hashed field by field.

import (
	"sync"

	"golang.org/x/crypto/sha3"
)

// SnKeccak is Starknet's sn_keccak: Keccak-256 with its top six bits
// cleared, 250 bits.
func SnKeccak(b []byte) Felt {
	h := sha3.NewLegacyKeccak256()
	h.Write(b)
	var d [32]byte
	h.Sum(d[:0])
	d[0] &= 0x03
	return FeltOfBytes(d)
}

// Selector is the entry point selector of a function or event name.
func Selector(name string) Felt { return SnKeccak([]byte(name)) }

// The revision-1 type encodings: names and types quoted, a struct followed
// by the structs it references.
const (
	encDomain           = `"StarknetDomain"("name":"shortstring","version":"shortstring","chainId":"shortstring","revision":"shortstring")`
	encCall             = `"Call"("To":"ContractAddress","Selector":"selector","Calldata":"felt*")`
	encOutsideExecution = `"OutsideExecution"("Caller":"ContractAddress","Nonce":"felt","Execute After":"u128","Execute Before":"u128","Calls":"Call*")` + encCall
)

var (
	TypeHashDomain           = SnKeccak([]byte(encDomain))
	TypeHashCall             = SnKeccak([]byte(encCall))
	TypeHashOutsideExecution = SnKeccak([]byte(encOutsideExecution))

	// SelectorTransfer is transfer's selector, SelectorExecuteFromOutsideV2
	// SNIP-9 v2's entry point, SelectorTransferEvent the Transfer event's key.
	SelectorTransfer             = Selector("transfer")
	SelectorExecuteFromOutsideV2 = Selector("execute_from_outside_v2")
	SelectorTransferEvent        = Selector("Transfer")
	starknetMessage, _           = ShortString("StarkNet Message")
	domainName, _                = ShortString("Account.execute_from_outside")
	domainVersion                = Felt{2}
	domainRevision               = Felt{1}
	anyCaller, _                 = ShortString("ANY_CALLER")
)

// Call is one call of an outside execution.
type Call struct {
	To, Selector Felt
	Calldata     []Felt
}

// OutsideExecution is SNIP-9 v2's message.
type OutsideExecution struct {
	Caller        Felt
	Nonce         Felt
	ExecuteAfter  Felt // a u128
	ExecuteBefore Felt // a u128
	Calls         []Call
}

// DomainHash is the hash of SNIP-9 v2's domain on the chain chainID; the
// pairing's networks' are computed once (three permutations each time
// otherwise).
func DomainHash(chainID Felt) Felt {
	if d := knownDomain(chainID); d != nil {
		return d.hash
	}
	return domainHash(chainID)
}

func domainHash(chainID Felt) Felt {
	return PoseidonHashMany(TypeHashDomain, domainName, domainVersion, chainID, domainRevision)
}

// knownDomains are the pairing's networks' domain hashes and, for each,
// the message hash's state after its first two values ("StarkNet
// Message" and the domain hash), which are the same for every message on
// the chain: one permutation of a message hash's thirteen saved.
var knownDomains = func() []knownChain {
	out := make([]knownChain, len(Networks))
	for i, n := range Networks {
		c, _ := ChainID(n)
		out[i].chain, out[i].hash = c, domainHash(c)
		out[i].prefix = absorbed(starknetMessage, out[i].hash)
	}
	return out
}()

type knownChain struct {
	chain, hash Felt
	prefix      [3]fe
}

func knownDomain(chainID Felt) *knownChain {
	for i := range knownDomains {
		if knownDomains[i].chain == chainID {
			return &knownDomains[i]
		}
	}
	return nil
}

func (c *Call) hash() Felt {
	s := memoAbsorbed(TypeHashCall, c.To)
	return hashManyFrom(&s, []Felt{c.Selector, PoseidonHashMany(c.Calldata...)})
}

// prefixMemo holds hash_many's state after a first pair that recurs from
// one payment to the next: a Call's type hash and token contract, an
// OutsideExecution's type hash and caller (the fee payer). A buyer pays
// in a few tokens through a few facilitators, so a hit saves a
// permutation of the twelve; it holds at most prefixMemoMax states and
// starts over when full, so a stream of new callers costs a lookup each,
// not memory.
var prefixMemo struct {
	sync.Mutex
	m map[[2]Felt][3]fe
}

const prefixMemoMax = 64

func memoAbsorbed(a, b Felt) [3]fe {
	k := [2]Felt{a, b}
	prefixMemo.Lock()
	s, ok := prefixMemo.m[k]
	prefixMemo.Unlock()
	if ok {
		return s
	}
	s = absorbed(a, b)
	prefixMemo.Lock()
	if prefixMemo.m == nil || len(prefixMemo.m) >= prefixMemoMax {
		prefixMemo.m = make(map[[2]Felt][3]fe, prefixMemoMax)
	}
	prefixMemo.m[k] = s
	prefixMemo.Unlock()
	return s
}

// StructHash is the message's struct hash.
func (o *OutsideExecution) StructHash() Felt {
	calls := make([]Felt, len(o.Calls))
	for i := range o.Calls {
		calls[i] = o.Calls[i].hash()
	}
	s := memoAbsorbed(TypeHashOutsideExecution, o.Caller)
	return hashManyFrom(&s, []Felt{o.Nonce, o.ExecuteAfter, o.ExecuteBefore, PoseidonHashMany(calls...)})
}

// MessageHash is what the account's key signs: the hash of "StarkNet
// Message", the domain, the account and the message.
func (o *OutsideExecution) MessageHash(chainID, account Felt) Felt {
	if d := knownDomain(chainID); d != nil {
		s := d.prefix
		return hashManyFrom(&s, []Felt{account, o.StructHash()})
	}
	return PoseidonHashMany(starknetMessage, domainHash(chainID), account, o.StructHash())
}
