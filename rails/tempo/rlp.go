package tempo

import "github.com/termsgate/termsgate/rails/rlp"

// The strict RLP reader lives in rails/rlp, shared with rails/evm's EIP-1559
// reader; these names keep tempo's readers and their callers unchanged.

// Item is one decoded RLP item (rlp.Item).
type Item = rlp.Item

// Limits bound a decoding (rlp.Limits).
type Limits = rlp.Limits

// ErrRLP is wrapped by every decoding failure.
var ErrRLP = rlp.ErrRLP

// Decode reads exactly one canonical item spanning all of input (rlp.Decode).
func Decode(input []byte, lim Limits) (Item, error) { return rlp.Decode(input, lim) }
