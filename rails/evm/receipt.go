package evm

// What a settlement read takes from an eip155 node: a transaction's receipt
// and the chain's finalized and safe heads. The buyer gate never reads the
// chain; these are the seller's or a verifier's step, after the payment, to
// learn whether it settled and whether the settling transaction carried H.
// Everything here is a pure read of JSON the caller's node gave: nothing
// fetches, nothing panics, and malformed input is a value, not an error.

import (
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
)

// The block tags a Reader's Head answers.
const (
	TagFinalized = "finalized"
	TagSafe      = "safe"
)

// Reader is the read-only calls a settlement read makes of one network's
// node. A read that fails returns an error; the readers turn it into a
// pending status or a refusal, never into a failed payment.
type Reader interface {
	// Network is the CAIP-2 network the node serves, e.g. "eip155:84532".
	Network() string
	// Receipt is eth_getTransactionReceipt of tx as JSON: an object
	// {status, blockNumber, logs}, or nil (JSON null) when the node holds no
	// receipt for tx.
	Receipt(tx string) (jsonv.Value, error)
	// Head is the number of the block the tag ("finalized" or "safe")
	// names.
	Head(tag string) (uint64, error)
}

// Receipt is a receipt as ParseReceipt read it.
type Receipt struct {
	Succeeded   bool // status 1; status 0 is a reverted transaction
	BlockNumber uint64
	Logs        []Log
}

// Log is one receipt log. Topics that are not strings read as "", which
// matches no hash.
type Log struct {
	Address string
	Topics  []string
	Data    string        // "0x" hex as given; "" when absent
	Raw     *jsonv.Object // the log exactly as the node gave it
	// WellFormed: the address and data are strings and every topic is a
	// string. The generic status reads only receipts whose logs all are.
	WellFormed bool
}

// ParseReceipt reads the receipt form the vectors give: status the number 0
// or 1 (the decimal strings "0" and "1" are read the same), blockNumber a
// decimal string, logs a list. Each log that is not an object, or lacks an
// address or a topics list, is kept but matches nothing. ok is false for
// anything else.
func ParseReceipt(v jsonv.Value) (*Receipt, bool) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, false
	}
	sv, _ := o.Get("status")
	var succeeded bool
	switch sv {
	case jsonv.Number(1), "1":
		succeeded = true
	case jsonv.Number(0), "0":
	default:
		return nil, false
	}
	bs, _ := o.GetString("blockNumber")
	block, ok := decimalUint64(bs)
	if !ok {
		return nil, false
	}
	lv, _ := o.Get("logs")
	list, ok := jsonv.AsArray(lv)
	if !ok {
		return nil, false
	}
	r := &Receipt{Succeeded: succeeded, BlockNumber: block, Logs: make([]Log, 0, len(list))}
	for _, x := range list {
		r.Logs = append(r.Logs, ParseLog(x))
	}
	return r, true
}

// ParseLog reads one log as ParseReceipt does.
func ParseLog(v jsonv.Value) Log {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return Log{}
	}
	l := Log{Raw: o}
	address, okAddress := o.GetString("address")
	l.Address = address
	tv, _ := o.Get("topics")
	topics, okTopics := jsonv.AsArray(tv)
	allStrings := okTopics
	for _, t := range topics {
		s, isString := t.(string)
		allStrings = allStrings && isString
		l.Topics = append(l.Topics, s)
	}
	data, okData := o.GetString("data")
	l.Data = data
	l.WellFormed = okAddress && allStrings && okData
	return l
}

// AllWellFormed reports whether every log of the receipt is well formed.
func (r *Receipt) AllWellFormed() bool {
	for _, l := range r.Logs {
		if !l.WellFormed {
			return false
		}
	}
	return true
}

// Topic returns topic i, or "" when the log has fewer.
func (l Log) Topic(i int) string {
	if i < 0 || i >= len(l.Topics) {
		return ""
	}
	return l.Topics[i]
}

// DataWord returns 32-byte word i of the log's data, when the data is hex
// and long enough.
func (l Log) DataWord(i int) ([]byte, bool) {
	data, ok := HexBytes(l.Data)
	if !ok || i < 0 || i >= len(data)/32 {
		return nil, false
	}
	return data[32*i : 32*(i+1)], true
}

// decimalUint64 reads a canonical decimal (no sign, no leading zero) that
// fits in 64 bits.
func decimalUint64(s string) (uint64, bool) {
	if s == "" || len(s) > 20 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// SameBytes reports whether two "0x" hex strings spell the same bytes, in
// any case. Anything that is not even hex is the same as nothing.
func SameBytes(a, b string) bool {
	x, okX := HexBytes(a)
	y, okY := HexBytes(b)
	return okX && okY && string(x) == string(y)
}

// SameAddress reports whether a and b are both addresses and the same one.
func SameAddress(a, b string) bool {
	return IsAddress(a) && IsAddress(b) && SameBytes(a, b)
}

// TopicAddress is the address in the low 20 bytes of a 32-byte topic,
// lowercase.
func TopicAddress(topic string) (string, bool) {
	b, ok := HexBytes(topic)
	if !ok || len(b) != 32 {
		return "", false
	}
	return hex0x(b[12:]), true
}
