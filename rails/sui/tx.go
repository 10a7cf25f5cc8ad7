package sui

import (
	"errors"

	"golang.org/x/crypto/blake2b"

	"github.com/termsgate/termsgate/internal/base58"
	"github.com/termsgate/termsgate/rails/bcs"
)

// Sui's TransactionData, version 1, read and written in BCS as the
// validators hash and sign it (docs/sui.md, "The transaction").

// Bounds of a transaction, Sui's own protocol limits where it has one.
const (
	MaxTxBytes    = 128 * 1024 // max_tx_size_bytes
	MaxInputs     = 2048       // max_input_objects bounds object inputs; pure inputs are bounded by it too here
	MaxCommands   = 1024       // max_programmable_tx_commands
	MaxArguments  = 2048       // arguments of one command
	MaxTypeDepth  = 16         // nesting of type tags
	MaxIdentifier = 128        // characters of a Move identifier
	MaxGasObjects = 256        // max_gas_payment_objects
)

// ErrNotProgrammable is a transaction whose kind is not a programmable
// transaction (a system transaction): nothing a payer signs.
var ErrNotProgrammable = errors.New("sui: not a programmable transaction")

// Address is a 32-byte Sui address or object id.
type Address [32]byte

// ObjectRef names one version of an object: its id, version and digest.
type ObjectRef struct {
	ID      Address
	Version uint64
	Digest  [32]byte
}

// Input kinds (CallArg).
const (
	InputPure   = 0
	InputObject = 1
)

// Object argument kinds (ObjectArg).
const (
	ObjImmOrOwned = 0
	ObjShared     = 1
	ObjReceiving  = 2
)

// Input is one CallArg: pure bytes, or an object.
type Input struct {
	Kind      uint8
	Pure      []byte
	ObjKind   uint8
	Ref       ObjectRef // ImmOrOwned and Receiving
	SharedID  Address
	SharedVer uint64
	Mutable   bool
}

// Argument kinds.
const (
	ArgGasCoin      = 0
	ArgInput        = 1
	ArgResult       = 2
	ArgNestedResult = 3
)

// Argument names a value a command takes.
type Argument struct {
	Kind   uint8
	Index  uint16
	Nested uint16
}

// Command kinds.
const (
	CmdMoveCall        = 0
	CmdTransferObjects = 1
	CmdSplitCoins      = 2
	CmdMergeCoins      = 3
	CmdPublish         = 4
	CmdMakeMoveVec     = 5
	CmdUpgrade         = 6
)

// Command is one command of a programmable transaction. Only the members
// of its kind are set. Type tags are kept as their raw BCS bytes: the
// pairing reads none of them, and they are written back as read.
type Command struct {
	Kind uint8
	// MoveCall
	Package          Address
	Module, Function string
	TypeArgs         [][]byte
	// TransferObjects: Args are the objects, Arg the address.
	// SplitCoins: Arg the coin, Args the amounts.
	// MergeCoins: Arg the destination, Args the sources.
	// MakeMoveVec: Args the elements, VecType the raw option of a type tag.
	// Upgrade: Arg the ticket. MoveCall: Args the arguments.
	Args    []Argument
	Arg     Argument
	VecType []byte
	// Publish and Upgrade
	Modules [][]byte
	Deps    []Address
	UpgPkg  Address
}

// Expiration kinds.
const (
	ExpNone        = 0
	ExpEpoch       = 1
	ExpValidDuring = 2
	ExpValidity    = 3
)

// Expiration is a TransactionExpiration: none, an epoch, or a validity
// window whose raw fields after the kind are kept as read (MaxEpoch is the
// bound the pairing reads).
type Expiration struct {
	Kind     uint8
	Epoch    uint64
	MaxEpoch *uint64
	raw      []byte // ValidDuring and Validity: the fields as read
}

// Tx is a TransactionData V1 with a programmable kind.
type Tx struct {
	Inputs     []Input
	Commands   []Command
	Sender     Address
	GasPayment []ObjectRef
	GasOwner   Address
	GasPrice   uint64
	GasBudget  uint64
	Expiration Expiration
}

// DecodeTx reads exactly one canonical TransactionData of at most
// MaxTxBytes: a programmable transaction (ErrNotProgrammable for another
// kind), every byte read, and the bytes what Encode writes back.
func DecodeTx(b []byte) (*Tx, error) {
	if len(b) > MaxTxBytes {
		return nil, bcs.ErrMalformed
	}
	r := bcs.NewReader(b)
	t, err := ReadTx(r)
	if err != nil {
		return nil, err
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	if string(t.Encode()) != string(b) {
		return nil, bcs.ErrMalformed
	}
	return t, nil
}

// ReadTx reads one TransactionData from r (a signed transaction's inner
// value), leaving r after it.
func ReadTx(r *bcs.Reader) (*Tx, error) {
	if v := r.ULEB128(); v != 0 {
		r.Fail()
		return nil, bcs.ErrMalformed
	}
	if k := r.ULEB128(); r.Err() == nil && k != 0 {
		return nil, ErrNotProgrammable
	}
	t := &Tx{}
	n := r.Len(2, MaxInputs)
	t.Inputs = make([]Input, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		t.Inputs = append(t.Inputs, readInput(r))
	}
	n = r.Len(2, MaxCommands)
	t.Commands = make([]Command, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		t.Commands = append(t.Commands, readCommand(r))
	}
	t.Sender = readAddr(r)
	n = r.Len(73, MaxGasObjects)
	for i := 0; i < n && r.Err() == nil; i++ {
		t.GasPayment = append(t.GasPayment, readRef(r))
	}
	copy(t.GasOwner[:], r.Fixed(32))
	t.GasPrice = r.U64()
	t.GasBudget = r.U64()
	t.Expiration = readExpiration(r)
	if r.Err() != nil {
		return nil, r.Err()
	}
	return t, nil
}

func readAddr(r *bcs.Reader) (a Address) {
	copy(a[:], r.Fixed(32))
	return a
}

func readRef(r *bcs.Reader) ObjectRef {
	ref := ObjectRef{ID: readAddr(r), Version: r.U64()}
	if d := r.Bytes(32); len(d) == 32 {
		copy(ref.Digest[:], d)
	} else {
		r.Fail()
	}
	return ref
}

func readInput(r *bcs.Reader) Input {
	in := Input{Kind: uint8(r.ULEB128())}
	switch in.Kind {
	case InputPure:
		in.Pure = r.Bytes(MaxTxBytes)
	case InputObject:
		in.ObjKind = uint8(r.ULEB128())
		switch in.ObjKind {
		case ObjImmOrOwned, ObjReceiving:
			in.Ref = readRef(r)
		case ObjShared:
			in.SharedID, in.SharedVer, in.Mutable = readAddr(r), r.U64(), r.Bool()
		default:
			r.Fail()
		}
	default:
		r.Fail()
	}
	return in
}

func readArg(r *bcs.Reader) Argument {
	a := Argument{Kind: uint8(r.ULEB128())}
	switch a.Kind {
	case ArgGasCoin:
	case ArgInput, ArgResult:
		a.Index = r.U16()
	case ArgNestedResult:
		a.Index, a.Nested = r.U16(), r.U16()
	default:
		r.Fail()
	}
	return a
}

func readArgs(r *bcs.Reader) []Argument {
	n := r.Len(1, MaxArguments)
	out := make([]Argument, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		out = append(out, readArg(r))
	}
	return out
}

func readIdent(r *bcs.Reader) string {
	b := r.Bytes(MaxIdentifier)
	if len(b) == 0 {
		r.Fail()
		return ""
	}
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			r.Fail()
			return ""
		}
	}
	return string(b)
}

// skipTypeTag reads one type tag and returns its raw bytes.
func skipTypeTag(r *bcs.Reader, depth int) []byte {
	start := r.Offset()
	if depth > MaxTypeDepth {
		r.Fail()
		return nil
	}
	switch r.ULEB128() {
	case 0, 1, 2, 3, 4, 5, 8, 9, 10:
	case 6:
		skipTypeTag(r, depth+1)
	case 7:
		r.Fixed(32)
		readIdent(r)
		readIdent(r)
		n := r.Len(1, 32)
		for i := 0; i < n && r.Err() == nil; i++ {
			skipTypeTag(r, depth+1)
		}
	default:
		r.Fail()
	}
	if r.Err() != nil {
		return nil
	}
	return r.Bytes0(start)
}

func readCommand(r *bcs.Reader) Command {
	c := Command{Kind: uint8(r.ULEB128())}
	switch c.Kind {
	case CmdMoveCall:
		c.Package = readAddr(r)
		c.Module, c.Function = readIdent(r), readIdent(r)
		n := r.Len(1, 32)
		for i := 0; i < n && r.Err() == nil; i++ {
			c.TypeArgs = append(c.TypeArgs, skipTypeTag(r, 0))
		}
		c.Args = readArgs(r)
	case CmdTransferObjects:
		c.Args = readArgs(r)
		c.Arg = readArg(r)
	case CmdSplitCoins, CmdMergeCoins:
		c.Arg = readArg(r)
		c.Args = readArgs(r)
	case CmdPublish, CmdUpgrade:
		n := r.Len(1, MaxTxBytes)
		for i := 0; i < n && r.Err() == nil; i++ {
			c.Modules = append(c.Modules, r.Bytes(MaxTxBytes))
		}
		n = r.Len(32, MaxTxBytes)
		for i := 0; i < n && r.Err() == nil; i++ {
			c.Deps = append(c.Deps, readAddr(r))
		}
		if c.Kind == CmdUpgrade {
			c.UpgPkg = readAddr(r)
			c.Arg = readArg(r)
		}
	case CmdMakeMoveVec:
		start := r.Offset()
		if r.Option() {
			skipTypeTag(r, 0)
		}
		c.VecType = r.Bytes0(start)
		c.Args = readArgs(r)
	default:
		r.Fail()
	}
	return c
}

func readOptU64(r *bcs.Reader) *uint64 {
	if !r.Option() {
		return nil
	}
	v := r.U64()
	return &v
}

func readExpiration(r *bcs.Reader) Expiration {
	e := Expiration{Kind: uint8(r.ULEB128())}
	switch e.Kind {
	case ExpNone:
	case ExpEpoch:
		e.Epoch = r.U64()
	case ExpValidDuring, ExpValidity:
		start := r.Offset()
		readOptU64(r) // min epoch
		e.MaxEpoch = readOptU64(r)
		readOptU64(r) // min timestamp
		readOptU64(r) // max timestamp
		if d := r.Bytes(32); len(d) != 32 {
			r.Fail() // the chain identifier, a digest
		}
		r.U32() // nonce
		if e.Kind == ExpValidity && r.Option() {
			n := r.Len(32, MaxGasObjects) // allowed proposers
			r.Fixed(32 * n)
		}
		e.raw = r.Bytes0(start)
	default:
		r.Fail()
	}
	return e
}

// UntilEpoch is the last epoch the transaction can execute in; false when
// its expiration sets none.
func (t *Tx) UntilEpoch() (uint64, bool) {
	switch t.Expiration.Kind {
	case ExpEpoch:
		return t.Expiration.Epoch, true
	case ExpValidDuring, ExpValidity:
		if t.Expiration.MaxEpoch != nil {
			return *t.Expiration.MaxEpoch, true
		}
	}
	return 0, false
}

// Encode writes t as BCS.
func (t *Tx) Encode() []byte {
	w := &bcs.Writer{B: make([]byte, 0, 256)}
	w.ULEB128(0) // V1
	w.ULEB128(0) // ProgrammableTransaction
	w.ULEB128(uint32(len(t.Inputs)))
	for _, in := range t.Inputs {
		w.ULEB128(uint32(in.Kind))
		if in.Kind == InputPure {
			w.Bytes(in.Pure)
			continue
		}
		w.ULEB128(uint32(in.ObjKind))
		if in.ObjKind == ObjShared {
			w.Fixed(in.SharedID[:])
			w.U64(in.SharedVer)
			w.Bool(in.Mutable)
		} else {
			writeRef(w, in.Ref)
		}
	}
	w.ULEB128(uint32(len(t.Commands)))
	for i := range t.Commands {
		writeCommand(w, &t.Commands[i])
	}
	w.Fixed(t.Sender[:])
	w.ULEB128(uint32(len(t.GasPayment)))
	for _, ref := range t.GasPayment {
		writeRef(w, ref)
	}
	w.Fixed(t.GasOwner[:])
	w.U64(t.GasPrice)
	w.U64(t.GasBudget)
	w.ULEB128(uint32(t.Expiration.Kind))
	switch t.Expiration.Kind {
	case ExpEpoch:
		w.U64(t.Expiration.Epoch)
	case ExpValidDuring, ExpValidity:
		w.Fixed(t.Expiration.raw)
	}
	return w.B
}

func writeRef(w *bcs.Writer, ref ObjectRef) {
	w.Fixed(ref.ID[:])
	w.U64(ref.Version)
	w.Bytes(ref.Digest[:])
}

func writeArg(w *bcs.Writer, a Argument) {
	w.ULEB128(uint32(a.Kind))
	switch a.Kind {
	case ArgInput, ArgResult:
		w.U16(a.Index)
	case ArgNestedResult:
		w.U16(a.Index)
		w.U16(a.Nested)
	}
}

func writeArgs(w *bcs.Writer, as []Argument) {
	w.ULEB128(uint32(len(as)))
	for _, a := range as {
		writeArg(w, a)
	}
}

func writeCommand(w *bcs.Writer, c *Command) {
	w.ULEB128(uint32(c.Kind))
	switch c.Kind {
	case CmdMoveCall:
		w.Fixed(c.Package[:])
		w.Bytes([]byte(c.Module))
		w.Bytes([]byte(c.Function))
		w.ULEB128(uint32(len(c.TypeArgs)))
		for _, ta := range c.TypeArgs {
			w.Fixed(ta)
		}
		writeArgs(w, c.Args)
	case CmdTransferObjects:
		writeArgs(w, c.Args)
		writeArg(w, c.Arg)
	case CmdSplitCoins, CmdMergeCoins:
		writeArg(w, c.Arg)
		writeArgs(w, c.Args)
	case CmdPublish, CmdUpgrade:
		w.ULEB128(uint32(len(c.Modules)))
		for _, m := range c.Modules {
			w.Bytes(m)
		}
		w.ULEB128(uint32(len(c.Deps)))
		for _, d := range c.Deps {
			w.Fixed(d[:])
		}
		if c.Kind == CmdUpgrade {
			w.Fixed(c.UpgPkg[:])
			writeArg(w, c.Arg)
		}
	case CmdMakeMoveVec:
		w.Fixed(c.VecType)
		writeArgs(w, c.Args)
	}
}

// UnusedPure is the indexes of the pure inputs no command uses.
func (t *Tx) UnusedPure() []int {
	var small [16]bool // MaxInputs is larger, but a payment has a handful
	used := small[:0]
	if len(t.Inputs) <= len(small) {
		used = small[:len(t.Inputs)]
	} else {
		used = make([]bool, len(t.Inputs))
	}
	mark := func(a Argument) {
		if a.Kind == ArgInput && int(a.Index) < len(used) {
			used[a.Index] = true
		}
	}
	for i := range t.Commands {
		c := &t.Commands[i]
		// Every argument a command names: what Sui itself counts as an
		// input's use.
		switch c.Kind {
		case CmdTransferObjects, CmdSplitCoins, CmdMergeCoins:
			for _, a := range c.Args {
				mark(a)
			}
			mark(c.Arg)
		case CmdUpgrade:
			mark(c.Arg)
		default:
			for _, a := range c.Args {
				mark(a)
			}
		}
	}
	var out []int
	for i, in := range t.Inputs {
		if in.Kind == InputPure && !used[i] {
			out = append(out, i)
		}
	}
	return out
}

var digestPrefix = []byte("TransactionData::")

// Digest is the transaction digest of BCS bytes: Blake2b-256 over
// "TransactionData::" and the bytes.
func Digest(b []byte) [32]byte {
	return blake2bOf(digestPrefix, b)
}

// blake2bOf is Blake2b-256 of prefix and b, one-shot over a stack buffer
// when they fit (a payment's transaction does), so nothing is allocated.
func blake2bOf(prefix, b []byte) [32]byte {
	var buf [1024]byte
	if len(prefix)+len(b) <= len(buf) {
		n := copy(buf[:], prefix)
		n += copy(buf[n:], b)
		return blake2b.Sum256(buf[:n])
	}
	h, _ := blake2b.New256(nil)
	h.Write(prefix)
	h.Write(b)
	return [32]byte(h.Sum(nil))
}

// DigestString is the digest in base58, as Sui names transactions.
func DigestString(b []byte) string {
	d := Digest(b)
	return base58.Bitcoin.Encode(d[:])
}

// IntentMessage is what a Sui key signs for a transaction: Blake2b-256 of
// the intent (scope 0, version 0, app 0: a transaction for Sui) and the
// bytes.
func IntentMessage(b []byte) [32]byte {
	return blake2bOf(intentPrefix[:], b)
}

var intentPrefix = [3]byte{0, 0, 0}

// AddressOfEd25519 is the address of an Ed25519 public key: Blake2b-256 of
// the scheme flag 0x00 and the key.
func AddressOfEd25519(pub []byte) Address {
	return Address(blake2bOf(ed25519Flag[:], pub))
}

var ed25519Flag = [1]byte{0}
