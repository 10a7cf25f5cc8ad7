package evm

// The settlement status of an EVM payment, read from the receipt of the
// transaction a settlement reference names (docs/protocol.md, "EVM pairings on MPP"; the
// reference's evmStatus). A reference ("ref") is what the seller records at
// claim, as JSON, so that it or anyone holding it can read the chain later:
//
//	{network, transaction, settleBy?, search?,
//	 bindingLog?: {address, topic0, index: 1|2|3 | dataWord: n, value},
//	 transferLog?: {address, topic0, identity, digest}}
//
// bindingLog is the log carrying H or its commitment, transferLog the token
// transfer the payment made, identified by the SHA-256 of the fields its
// identity names. settleBy and search are for the caller (until when to
// look, and how to find a transaction none was named for); the status does
// not read them.

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The states of a settlement, and their reasons.
const (
	StateSettled = "settled"
	StatePending = "pending"
	StateFailed  = "failed"

	FinalityFinalized = "finalized"
	FinalitySafe      = "safe"
	FinalityLatest    = "latest"

	// Pending: read again later.
	WhyNotFound   = "not-found"  // the node holds no receipt (yet)
	WhyUnreadable = "unreadable" // the read failed, or its answer or the ref could not be read
	// Failed: this transaction is not the payment.
	WhyReverted             = "reverted"
	WhyAuthorizationNotUsed = "authorization-not-used"
	WhyBindingLogNotFound   = "binding-log-not-found"
	WhyTransferNotFound     = "transfer-not-found"
	WhyReceivePolicyBlocked = "receive-policy-blocked"
)

// Status is what a settlement read found.
type Status struct {
	State       string // StateSettled, StatePending or StateFailed
	Finality    string // settled: the highest finality mark at or above the block
	BlockNumber uint64 // settled: the receipt's block
	Why         string // pending or failed: the reason
}

// JSON is the status as the vectors write it: {state, finality,
// blockNumber (decimal string)} when settled, else {state, why}.
func (s Status) JSON() *jsonv.Object {
	if s.State == StateSettled {
		return jsonv.Obj("state", s.State, "finality", s.Finality, "blockNumber", formatUint(s.BlockNumber))
	}
	return jsonv.Obj("state", s.State, "why", s.Why)
}

func pending(why string) Status { return Status{State: StatePending, Why: why} }
func failed(why string) Status  { return Status{State: StateFailed, Why: why} }

// SettledAt is settled at block, with the highest finality mark whose head
// is at or above it. A head that cannot be read (or no reader) counts as not
// reached, so a failing node can only understate finality. At most two
// reads.
func SettledAt(block uint64, r Reader) Status {
	s := Status{State: StateSettled, Finality: FinalityLatest, BlockNumber: block}
	if r == nil {
		return s
	}
	if n, err := r.Head(TagFinalized); err == nil && n >= block {
		s.Finality = FinalityFinalized
	} else if n, err := r.Head(TagSafe); err == nil && n >= block {
		s.Finality = FinalitySafe
	}
	return s
}

// Well-known topics and addresses the settlement reads name.
var (
	// TopicAuthorizationUsed is keccak256("AuthorizationUsed(address,bytes32)").
	TopicAuthorizationUsed = common.HexToHash("0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5")
	// TopicTransfer is keccak256("Transfer(address,address,uint256)").
	TopicTransfer = common.HexToHash("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
)

// ReceivePolicyGuard is where a Tempo receive policy sends a transfer it
// blocks: a payment whose logs are missing but which moved the token there
// was refused by the recipient's policy, not lost.
const ReceivePolicyGuard = "0xb10c000000000000000000000000000000000000"

// RefStatus reads the transaction ref names: a reader of another network,
// a failed read, or a ref or receipt it cannot read is pending unreadable;
// no receipt is pending not-found; a revert is failed. On success each log
// the ref names must be in the receipt, emitted by the named contract (else
// failed binding-log-not-found or transfer-not-found, or
// receive-policy-blocked when the token moved to the receive-policy guard
// instead). Settled carries the highest finality reached. The receipt is
// returned when the status is settled, for readers that check more of it.
// At most three reads.
func RefStatus(ref *jsonv.Object, r Reader) (Status, *Receipt) {
	network, okNetwork := ref.GetString("network")
	tx, okTx := ref.GetString("transaction")
	binding, okBinding := bindingLogOf(ref)
	transfer, okTransfer := transferLogOf(ref)
	if !okNetwork || !okTx || !isWord32(tx) || !okBinding || !okTransfer {
		return pending(WhyUnreadable), nil
	}
	receipt, s := readSucceeded(network, tx, r)
	if receipt == nil {
		return s, nil
	}
	if !receipt.AllWellFormed() {
		return pending(WhyUnreadable), nil
	}
	missing := ""
	if binding != nil && !anyLog(receipt.Logs, binding.carried) {
		missing = WhyBindingLogNotFound
	} else if transfer != nil && !anyLog(receipt.Logs, transfer.matches) {
		missing = WhyTransferNotFound
	}
	if missing != "" {
		token := ""
		if transfer != nil {
			token = transfer.address
		} else if binding != nil {
			token = binding.address
		}
		if token != "" && anyLog(receipt.Logs, func(l Log) bool { return isGuardTransfer(l, token) }) {
			return failed(WhyReceivePolicyBlocked), nil
		}
		return failed(missing), nil
	}
	return SettledAt(receipt.BlockNumber, r), receipt
}

// ReadFailure says why ReadReceipt gave no receipt to read on.
type ReadFailure int

const (
	ReadOK           ReadFailure = iota
	ReadWrongNetwork             // the reader serves another network (or there is none)
	ReadFailed                   // the read failed
	ReadNoReceipt                // the node holds no receipt
	ReadMalformed                // the answer is no receipt
	ReadReverted                 // the transaction reverted
)

// ReadReceipt reads tx's receipt on network, one read: the receipt when it
// reads and the transaction succeeded, else why not.
func ReadReceipt(network, tx string, r Reader) (*Receipt, ReadFailure) {
	if r == nil || r.Network() != network {
		return nil, ReadWrongNetwork
	}
	v, err := r.Receipt(tx)
	if err != nil {
		return nil, ReadFailed
	}
	if v == nil {
		return nil, ReadNoReceipt
	}
	receipt, ok := ParseReceipt(v)
	if !ok {
		return nil, ReadMalformed
	}
	if !receipt.Succeeded {
		return nil, ReadReverted
	}
	return receipt, ReadOK
}

// readSucceeded is ReadReceipt with its failures as a status: a read to
// repeat is pending, a revert failed.
func readSucceeded(network, tx string, r Reader) (*Receipt, Status) {
	receipt, f := ReadReceipt(network, tx, r)
	switch f {
	case ReadOK:
		return receipt, Status{}
	case ReadNoReceipt:
		return nil, pending(WhyNotFound)
	case ReadReverted:
		return nil, failed(WhyReverted)
	}
	return nil, pending(WhyUnreadable)
}

func anyLog(logs []Log, match func(Log) bool) bool {
	for _, l := range logs {
		if match(l) {
			return true
		}
	}
	return false
}

// bindingLog is a ref's bindingLog: value in topic index, or in data word
// dataWord when byData.
type bindingLog struct {
	address, topic0, value string
	index                  int
	dataWord               int
	byData                 bool
}

// bindingLogOf reads ref.bindingLog: nil when absent, ok false when present
// and not one (a ref the status cannot read is never a failed payment).
func bindingLogOf(ref *jsonv.Object) (*bindingLog, bool) {
	v, has := ref.Get("bindingLog")
	if !has {
		return nil, true
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, false
	}
	b := &bindingLog{}
	b.address, _ = o.GetString("address")
	b.topic0, _ = o.GetString("topic0")
	b.value, _ = o.GetString("value")
	if _, okValue := HexBytes(b.value); !IsAddress(b.address) || !isWord32(b.topic0) || !okValue {
		return nil, false
	}
	iv, hasIndex := o.Get("index")
	wv, hasWord := o.Get("dataWord")
	switch {
	case hasIndex && !hasWord:
		n, ok := jsonv.AsSafeInt(iv)
		if !ok || n < 1 || n > 3 {
			return nil, false
		}
		b.index = int(n)
	case hasWord && !hasIndex:
		n, ok := jsonv.AsSafeInt(wv)
		if !ok || n > 1<<20 {
			return nil, false
		}
		b.dataWord, b.byData = int(n), true
	default:
		return nil, false
	}
	return b, true
}

// carried: a log from the binding's contract, under its topic0, with its
// value in the named topic or data word.
func (b *bindingLog) carried(l Log) bool {
	if !SameAddress(l.Address, b.address) || !SameBytes(l.Topic(0), b.topic0) {
		return false
	}
	if !b.byData {
		return SameBytes(l.Topic(b.index), b.value)
	}
	w, ok := l.DataWord(b.dataWord)
	return ok && SameBytes(hex0x(w), b.value)
}

// transferLog is a ref's transferLog.
type transferLog struct {
	address, topic0, identity, digest string
}

// The identities a transferLog may name: which of from, to and value its
// digest covers.
var identities = map[string]bool{"from,to,value": true, "from,to": true, "from": true, "to,value": true, "to": true}

func transferLogOf(ref *jsonv.Object) (*transferLog, bool) {
	v, has := ref.Get("transferLog")
	if !has {
		return nil, true
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, false
	}
	t := &transferLog{}
	t.address, _ = o.GetString("address")
	t.topic0, _ = o.GetString("topic0")
	t.identity, _ = o.GetString("identity")
	t.digest, _ = o.GetString("digest")
	if !IsAddress(t.address) || !isWord32(t.topic0) || !identities[t.identity] || !isWord32(t.digest) {
		return nil, false
	}
	return t, true
}

// matches: a transfer from the named token, under its topic0, whose named
// fields hash to the digest.
func (t *transferLog) matches(l Log) bool {
	p, ok := TransferPartsOf(l, t.address, t.topic0)
	if !ok {
		return false
	}
	var f TransferFields
	for _, name := range strings.Split(t.identity, ",") {
		switch name {
		case "from":
			f.From = p.From
		case "to":
			f.To = p.To
		case "value":
			f.Value = p.Value
		}
	}
	d, err := TransferDigest(f)
	return err == nil && SameBytes(hex0x(d[:]), t.digest)
}

// TransferParts are the from, to and value of a transfer log.
type TransferParts struct {
	From, To string // lowercase
	Value    *big.Int
}

// TransferPartsOf reads a transfer log from token under topic0: from and to
// in topics 1 and 2 (their low 20 bytes), the value in data word 0. An ERC-20
// Transfer has exactly three topics; an event that also indexes a memo
// (TIP-20's TransferWithMemo) has four.
func TransferPartsOf(l Log, token, topic0 string) (TransferParts, bool) {
	if !SameAddress(l.Address, token) || !SameBytes(l.Topic(0), topic0) {
		return TransferParts{}, false
	}
	want := 4
	if SameBytes(topic0, TopicTransfer.Hex()) {
		want = 3
	}
	if len(l.Topics) != want {
		return TransferParts{}, false
	}
	from, okFrom := TopicAddress(l.Topics[1])
	to, okTo := TopicAddress(l.Topics[2])
	w, okValue := l.DataWord(0)
	if !okFrom || !okTo || !okValue {
		return TransferParts{}, false
	}
	return TransferParts{From: from, To: to, Value: new(big.Int).SetBytes(w)}, true
}

// isGuardTransfer: the token's Transfer to the receive-policy guard.
func isGuardTransfer(l Log, token string) bool {
	p, ok := TransferPartsOf(l, token, TopicTransfer.Hex())
	return ok && p.To == ReceivePolicyGuard
}

// Refusal codes of the transfer digest.
const (
	CodeFieldMalformed  = "evm/field-malformed"
	CodeAmountMalformed = "evm/amount-malformed"
)

// TransferFields are the fields a transfer digest covers; "" and nil are
// absent.
type TransferFields struct {
	From, To string
	Value    *big.Int
}

// TransferDigest is SHA-256 over the fields present, in the order from, to,
// value: 20, 20 and 32 bytes, the value big-endian. It identifies one
// transfer without naming amounts in a search filter; with all three it is
// abi.encodePacked(from, to, value)'s hash.
func TransferDigest(f TransferFields) ([32]byte, error) {
	var packed []byte
	for _, a := range []string{f.From, f.To} {
		if a == "" {
			continue
		}
		if !IsAddress(a) {
			return [32]byte{}, rails.Refuse(CodeFieldMalformed)
		}
		b, _ := HexBytes(a)
		packed = append(packed, b...)
	}
	if f.Value != nil {
		if f.Value.Sign() < 0 || f.Value.Cmp(maxUint256) > 0 {
			return [32]byte{}, rails.Refuse(CodeAmountMalformed)
		}
		packed = append(packed, common.LeftPadBytes(f.Value.Bytes(), 32)...)
	}
	return sha256.Sum256(packed), nil
}

// isWord32 reports "0x" and 64 hex digits, in either case.
func isWord32(s string) bool {
	b, ok := HexBytes(s)
	return ok && len(b) == 32
}

// hex0x writes "0x" and lowercase hex.
func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }

func formatUint(n uint64) string { return strconv.FormatUint(n, 10) }
