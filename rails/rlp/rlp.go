// Package rlp is the strict RLP reader the rails that read signed
// transactions share (rails/tempo's 0x76 envelope, rails/evm's EIP-1559
// transaction; docs/protocol.md, "Tempo", and docs/mpp-evm.md, "The EIP-1559
// reader"). go-ethereum's rlp encodes canonically, and termsgate encodes
// with it; but its readers accept integers with leading zeros or over 32
// bytes and know no depth or size bound, and a payment's read-back must
// refuse every encoding two readers could disagree on. So the reading is
// done here.
package rlp

import (
	"errors"
	"math/big"
)

// Item is one decoded RLP item. Bytes and Raw are sub-slices of the input.
type Item struct {
	List  bool
	Bytes []byte // a string's content
	Items []Item // a list's items
	Raw   []byte // the item's exact encoding, so a caller can hash what it received
}

// Limits bound a decoding: the outermost list is at depth 0 and a list
// deeper than MaxDepth is refused; MaxItems bounds the items of the whole
// tree (every item counts, at any depth), so that memory stays proportional
// to what a real transaction holds.
type Limits struct {
	MaxDepth int
	MaxItems int
}

// ErrRLP is wrapped by every decoding failure.
var ErrRLP = errors.New("rlp: not canonical, or beyond the bounds")

// Decode reads exactly one canonical item spanning all of input: a single
// byte below 0x80 stands for itself (never 0x81 0x00–0x7f), lengths up to 55
// use the short form, a long length has no leading zero byte and is over 55,
// and every length fits inside its container.
func Decode(input []byte, lim Limits) (Item, error) {
	d := decoder{b: input, lim: lim}
	it, next, err := d.item(0, len(input), 0)
	if err != nil {
		return Item{}, err
	}
	if next != len(input) {
		return Item{}, ErrRLP // trailing bytes
	}
	return it, nil
}

type decoder struct {
	b     []byte
	lim   Limits
	items int
}

func (d *decoder) item(at, end, depth int) (Item, int, error) {
	if at >= end {
		return Item{}, 0, ErrRLP
	}
	d.items++
	if d.items > d.lim.MaxItems {
		return Item{}, 0, ErrRLP
	}
	p := d.b[at]
	if p < 0x80 {
		return Item{Bytes: d.b[at : at+1], Raw: d.b[at : at+1]}, at + 1, nil
	}
	var n, head int
	switch {
	case p <= 0xb7:
		n, head = int(p-0x80), 1
	case p <= 0xbf:
		ln, err := d.longLength(at, end, int(p-0xb7))
		if err != nil {
			return Item{}, 0, err
		}
		n, head = ln, 1+int(p-0xb7)
	case p <= 0xf7:
		n, head = int(p-0xc0), 1
	default:
		ln, err := d.longLength(at, end, int(p-0xf7))
		if err != nil {
			return Item{}, 0, err
		}
		n, head = ln, 1+int(p-0xf7)
	}
	body := at + head
	if n > end-body {
		return Item{}, 0, ErrRLP
	}
	stop := body + n
	raw := d.b[at:stop]
	if p < 0xc0 {
		if n == 1 && d.b[body] < 0x80 {
			return Item{}, 0, ErrRLP // a byte below 0x80 must stand for itself
		}
		return Item{Bytes: d.b[body:stop], Raw: raw}, stop, nil
	}
	if depth > d.lim.MaxDepth {
		return Item{}, 0, ErrRLP
	}
	list := Item{List: true, Raw: raw, Items: []Item{}}
	for pos := body; pos < stop; {
		child, next, err := d.item(pos, stop, depth+1)
		if err != nil {
			return Item{}, 0, err
		}
		list.Items = append(list.Items, child)
		pos = next
	}
	return list, stop, nil
}

// longLength reads the k length bytes after the prefix at at: no leading
// zero, a value over 55, and never beyond end (checked as it accumulates, so
// it cannot overflow).
func (d *decoder) longLength(at, end, k int) (int, error) {
	if at+1+k > end || d.b[at+1] == 0 {
		return 0, ErrRLP
	}
	n := 0
	for i := 0; i < k; i++ {
		n = n<<8 | int(d.b[at+1+i])
		if n > end {
			return 0, ErrRLP
		}
	}
	if n <= 55 {
		return 0, ErrRLP
	}
	return n, nil
}

// Uint reads an integer: a string of at most 32 bytes with no leading zero
// byte (zero is the empty string; 0x00 is no integer).
func (it Item) Uint() (*big.Int, bool) {
	if it.List || len(it.Bytes) > 32 || (len(it.Bytes) > 0 && it.Bytes[0] == 0) {
		return nil, false
	}
	return new(big.Int).SetBytes(it.Bytes), true
}

// IsUint reports whether the item reads as an integer.
func (it Item) IsUint() bool { _, ok := it.Uint(); return ok }
