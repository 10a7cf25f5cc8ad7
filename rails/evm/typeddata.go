package evm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/jsonv"
)

// This file hashes EIP-712 typed data directly from its JSON request form.
// go-ethereum's apitypes computes the same digests (the tests cross-check
// every vector against it) but needs a JSON round trip and reflection that
// cost more than the rest of a payment together; the signer and the gate
// hash every payment, so they use this.

// typedField is one member of an EIP-712 struct type.
type typedField struct{ name, typ string }

// typeSet is the types of one typed-data object, with each type's hash
// computed once. A frozen set (one of typeSets) is shared and never
// written: every declared type's hash is in it.
type typeSet struct {
	fields map[string][]typedField
	hashes map[string][32]byte
	frozen bool
}

// typeSets remembers the type sets of typed data met before, keyed by
// typesKey (every type's name and every field's name and type, in order,
// each length-prefixed, so that two different "types" members never share
// a key): a payment's signer and the gate's check of its signature read
// the same few sets, which are then read and their type hashes computed
// once per process. Only sets that declare EIP712Domain are kept (the
// others take their domain fields from each request's domain), and only
// small ones (a set kept has every type's hash computed at once, which for
// many types that refer to each other would be far more than a request
// hashes). It stops
// growing at maxTypeSets; a set not kept is read each time, as before.
var typeSets struct {
	sync.RWMutex
	m map[string]*typeSet
}

const (
	maxTypeSets     = 64
	maxTypesKeyLen  = 2048 // bytes of a key kept
	maxTypeSetTypes = 8    // types in a set kept (each one's hash is computed when it is)
)

// typesKey appends the key of a types object to buf; false when v is no
// object of lists of {name, type} objects (readTypes then says why).
func typesKey(buf []byte, v jsonv.Value) ([]byte, bool) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return buf, false
	}
	appendStr := func(b []byte, s string) []byte {
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	}
	for _, m := range o.Members() {
		list, ok := jsonv.AsArray(m.Value)
		if !ok {
			return buf, false
		}
		buf = appendStr(buf, m.Key)
		buf = binary.AppendUvarint(buf, uint64(len(list)))
		for _, e := range list {
			f, ok := jsonv.AsObject(e)
			if !ok || f.Len() != 2 {
				return buf, false // another member is readTypes' to judge
			}
			name, ok1 := f.GetString("name")
			typ, ok2 := f.GetString("type")
			if !ok1 || !ok2 {
				return buf, false
			}
			buf = appendStr(appendStr(buf, name), typ)
		}
	}
	return buf, true
}

// typesOf is readTypes through typeSets.
func typesOf(v jsonv.Value) (*typeSet, error) {
	var stack [512]byte
	key, ok := typesKey(stack[:0], v)
	if ok {
		typeSets.RLock()
		ts := typeSets.m[string(key)]
		typeSets.RUnlock()
		if ts != nil {
			return ts, nil
		}
	}
	ts, err := readTypes(v)
	if err != nil || !ok || len(key) > maxTypesKeyLen {
		return ts, err
	}
	if _, declared := ts.fields["EIP712Domain"]; !declared || len(ts.fields) > maxTypeSetTypes {
		return ts, nil
	}
	for t := range ts.fields {
		ts.typeHash(t)
	}
	ts.frozen = true
	typeSets.Lock()
	if typeSets.m == nil {
		typeSets.m = map[string]*typeSet{}
	}
	if len(typeSets.m) < maxTypeSets {
		typeSets.m[string(key)] = ts
	}
	typeSets.Unlock()
	return ts, nil
}

// arrayOf splits "T[n]" or "T[]" into T and n ("" for a dynamic array).
func arrayOf(t string) (elem, n string, ok bool) {
	if !strings.HasSuffix(t, "]") {
		return "", "", false
	}
	i := strings.LastIndexByte(t, '[')
	if i < 0 {
		return "", "", false
	}
	n = t[i+1 : len(t)-1]
	for _, c := range n {
		if c < '0' || c > '9' {
			return "", "", false
		}
	}
	return t[:i], n, true
}

// sizedType reads "uint96", "int", "bytes4": the prefix and the size (0 when
// none is written).
func sizedType(t, prefix string) (int, bool) {
	if !strings.HasPrefix(t, prefix) {
		return 0, false
	}
	rest := t[len(prefix):]
	if rest == "" {
		return 0, true
	}
	n, err := strconv.Atoi(rest)
	if err != nil || rest[0] == '0' || rest[0] == '+' || rest[0] == '-' {
		return 0, false
	}
	return n, true
}

func readTypes(v jsonv.Value) (*typeSet, error) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, errors.New("types is not an object")
	}
	ts := &typeSet{fields: map[string][]typedField{}, hashes: map[string][32]byte{}}
	for _, m := range o.Members() {
		list, ok := jsonv.AsArray(m.Value)
		if !ok {
			return nil, fmt.Errorf("type %s is not a list", m.Key)
		}
		fields := make([]typedField, 0, len(list))
		for _, e := range list {
			f, ok := jsonv.AsObject(e)
			name, ok1 := f.GetString("name")
			typ, ok2 := f.GetString("type")
			if !ok || !ok1 || !ok2 || name == "" || typ == "" {
				return nil, fmt.Errorf("type %s has a malformed field", m.Key)
			}
			fields = append(fields, typedField{name, typ})
		}
		ts.fields[m.Key] = fields
	}
	return ts, nil
}

// baseType strips array suffixes: "Person[][2]" → "Person".
func baseType(t string) string {
	for {
		elem, _, ok := arrayOf(t)
		if !ok {
			return t
		}
		t = elem
	}
}

func (ts *typeSet) deps(t string, found map[string]bool) {
	t = baseType(t)
	if found[t] {
		return
	}
	fields, ok := ts.fields[t]
	if !ok {
		return
	}
	found[t] = true
	for _, f := range fields {
		ts.deps(f.typ, found)
	}
}

// encodeType is the standard's encodeType: the primary type, then the types
// it refers to, sorted by name.
func (ts *typeSet) encodeType(primary string) string {
	var others []string
	if ts.refersToStructs(primary) {
		found := map[string]bool{}
		ts.deps(primary, found)
		delete(found, primary)
		others = make([]string, 0, len(found))
		for t := range found {
			others = append(others, t)
		}
		sort.Strings(others)
	}
	var b strings.Builder
	b.Grow(128)
	ts.writeType(&b, primary)
	for _, t := range others {
		ts.writeType(&b, t)
	}
	return b.String()
}

// refersToStructs reports whether a field of t has a struct type (or an
// array of one); most types have none, and need no dependency walk.
func (ts *typeSet) refersToStructs(t string) bool {
	for _, f := range ts.fields[t] {
		if _, ok := ts.fields[baseType(f.typ)]; ok {
			return true
		}
	}
	return false
}

func (ts *typeSet) writeType(b *strings.Builder, t string) {
	b.WriteString(t)
	b.WriteByte('(')
	for i, f := range ts.fields[t] {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f.typ)
		b.WriteByte(' ')
		b.WriteString(f.name)
	}
	b.WriteByte(')')
}

// typeHashes keeps the hashes of encoded types met before, keyed by the
// encoded type itself (its hash depends on nothing else): the handful a
// payment's requests use are hashed once per process. It stops growing at
// maxTypeHashes, after which a new type is simply hashed each time.
var typeHashes struct {
	sync.RWMutex
	m map[string][32]byte
}

const maxTypeHashes = 256

func typeHashOf(encoded string) [32]byte {
	typeHashes.RLock()
	h, ok := typeHashes.m[encoded]
	typeHashes.RUnlock()
	if ok {
		return h
	}
	h = crypto.Keccak256Hash([]byte(encoded))
	typeHashes.Lock()
	if typeHashes.m == nil {
		typeHashes.m = map[string][32]byte{}
	}
	if len(typeHashes.m) < maxTypeHashes {
		typeHashes.m[encoded] = h
	}
	typeHashes.Unlock()
	return h
}

func (ts *typeSet) typeHash(t string) [32]byte {
	h, ok := ts.hashes[t]
	if !ok {
		h = typeHashOf(ts.encodeType(t))
		if !ts.frozen {
			ts.hashes[t] = h
		}
	}
	return h
}

// hashStruct is the standard's hashStruct of v as type t.
func (ts *typeSet) hashStruct(t string, v jsonv.Value, depth int) ([32]byte, error) {
	// Encoded into a pooled keccaker's buffer: a buffer on this stack
	// went to the heap anyway (the encoder is recursive, and Go's escape
	// analysis lets no buffer through recursion stay on a stack).
	k := keccakers.Get().(*keccaker)
	defer k.release()
	buf, err := ts.encodeStruct(k.buf[:0], t, v, depth)
	if err != nil {
		return [32]byte{}, err
	}
	k.buf = buf[:0] // kept if it grew, release bounds it
	return k.sum(buf), nil
}

// keccakers are Keccak-256 states, each with a buffer and an output of its
// own, reused through a pool. crypto.Keccak256Hash pools its states too,
// but what it is given goes through an interface's Write: a buffer on the
// caller's stack (an encoded struct, a digest's preimage) moved to the heap,
// with the list of its arguments, twice an allocation per hash. Copied
// into the keccaker's own buffer, the caller's stays on its stack.
type keccaker struct {
	d   crypto.KeccakState
	buf []byte
	out [32]byte
}

var keccakers = sync.Pool{New: func() any {
	return &keccaker{d: crypto.NewKeccakState(), buf: make([]byte, 0, 512)}
}}

// keccak is Keccak-256 of b (crypto.Keccak256Hash's), without allocating.
func keccak(b []byte) [32]byte {
	k := keccakers.Get().(*keccaker)
	defer k.release()
	k.buf = append(k.buf[:0], b...)
	return k.sum(k.buf)
}

// sum is Keccak-256 of b, which must not be on a caller's stack (k.buf, or
// memory already on the heap).
func (k *keccaker) sum(b []byte) [32]byte {
	k.d.Reset()
	_, _ = k.d.Write(b)
	_, _ = k.d.Read(k.out[:])
	return k.out
}

// release returns k to the pool, unless a long input grew its buffer: that
// one is left to the collector.
func (k *keccaker) release() {
	if cap(k.buf) <= 4096 {
		keccakers.Put(k)
	}
}

// encodeStruct appends typeHash(t) ‖ encodeData(v) to buf: what hashStruct
// hashes.
func (ts *typeSet) encodeStruct(buf []byte, t string, v jsonv.Value, depth int) ([]byte, error) {
	if depth > 32 {
		return nil, errors.New("typed data nests too deep")
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, fmt.Errorf("%s value is not an object", t)
	}
	fields := ts.fields[t]
	if o.Len() > len(fields) {
		return nil, fmt.Errorf("%s value has members its type does not declare", t)
	}
	if n := 32 * (len(fields) + 1); n > cap(buf)-len(buf) {
		buf = append(make([]byte, 0, len(buf)+n), buf...)
	}
	th := ts.typeHash(t)
	buf = append(buf, th[:]...)
	for _, f := range fields {
		fv, ok := o.Get(f.name)
		if !ok {
			return nil, fmt.Errorf("%s value lacks %s", t, f.name)
		}
		var err error
		if buf, err = ts.appendValue(buf, f.typ, fv, depth); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, f.name, err)
		}
	}
	return buf, nil
}

// appendValue appends EIP-712's encodeData of one value, always 32 bytes,
// to buf.
func (ts *typeSet) appendValue(buf []byte, typ string, v jsonv.Value, depth int) ([]byte, error) {
	if elem, size, isArray := arrayOf(typ); isArray {
		items, ok := jsonv.AsArray(v)
		if !ok {
			return nil, errors.New("not an array")
		}
		if size != "" {
			if n, err := strconv.Atoi(size); err != nil || n != len(items) {
				return nil, errors.New("array of the wrong length")
			}
		}
		words := make([]byte, 0, 32*len(items))
		for _, it := range items {
			var err error
			if words, err = ts.appendValue(words, elem, it, depth+1); err != nil {
				return nil, err
			}
		}
		h := crypto.Keccak256Hash(words)
		return append(buf, h[:]...), nil
	}
	if _, ok := ts.fields[typ]; ok {
		h, err := ts.hashStruct(typ, v, depth+1)
		if err != nil {
			return nil, err
		}
		return append(buf, h[:]...), nil
	}
	switch typ {
	case "string":
		s, ok := jsonv.AsString(v)
		if !ok {
			return nil, errors.New("not a string")
		}
		h := keccakString(s)
		return append(buf, h[:]...), nil
	case "bytes":
		b, ok := hexValue(v)
		if !ok {
			return nil, errors.New("not 0x hex")
		}
		h := crypto.Keccak256Hash(b)
		return append(buf, h[:]...), nil
	case "address":
		s, _ := jsonv.AsString(v)
		var w [32]byte
		if !decodeHexInto(w[12:], s) {
			return nil, errors.New("not an address")
		}
		return append(buf, w[:]...), nil
	case "bool":
		b, ok := v.(bool)
		if !ok {
			return nil, errors.New("not a boolean")
		}
		var w [32]byte
		if b {
			w[31] = 1
		}
		return append(buf, w[:]...), nil
	}
	if n, ok := sizedType(typ, "bytes"); ok && n > 0 {
		var w [32]byte
		if s, isString := v.(string); isString && n <= 32 && decodeHexInto(w[:n], s) {
			return append(buf, w[:]...), nil // the common case, without allocating
		}
		b, ok := hexValue(v)
		if !ok || n < 1 || n > 32 || len(b) != n {
			return nil, fmt.Errorf("not %d bytes of hex", n)
		}
		copy(w[:], b)
		return append(buf, w[:]...), nil
	}
	unsigned := strings.HasPrefix(typ, "uint")
	prefix := "int"
	if unsigned {
		prefix = "uint"
	}
	if bits, ok := sizedType(typ, prefix); ok {
		if bits == 0 {
			bits = 256
		}
		if bits < 8 || bits > 256 || bits%8 != 0 {
			return nil, fmt.Errorf("unknown type %s", typ)
		}
		if n, ok := smallDecimal(v); ok && (bits >= 64 || n>>(bits-1) == 0) {
			// A short decimal fits when its bits do (a signed type keeps
			// its top bit clear); anything else takes the general path.
			var w [32]byte
			binary.BigEndian.PutUint64(w[24:], n)
			return append(buf, w[:]...), nil
		}
		n, ok := integerValue(v)
		if !ok {
			return nil, errors.New("not an integer")
		}
		w, err := intWord(n, bits, unsigned)
		if err != nil {
			return nil, err
		}
		return append(buf, w...), nil
	}
	return nil, fmt.Errorf("unknown type %s", typ)
}

// keccakString hashes a string member. The short ones (a token's name and
// version, hashed into every domain separator) are remembered.
func keccakString(s string) [32]byte {
	if len(s) > maxRememberedInput {
		return crypto.Keccak256Hash([]byte(s))
	}
	stringHashes.RLock()
	h, ok := stringHashes.m[s]
	stringHashes.RUnlock()
	if ok {
		return h // looked up by s itself: no copy of it is made
	}
	return rememberedKeccak(&stringHashes, []byte(s))
}

// stringHashes and domainHashes remember Keccak-256 of inputs met before,
// keyed by the input itself, so a hit is exactly the hash: the few token
// names and domains a buyer pays in are hashed once per process. Each stops
// growing at maxRemembered entries (seller input fills them; after that a
// new input is simply hashed each time).
var stringHashes, domainHashes keccakMemo

type keccakMemo struct {
	sync.RWMutex
	m map[string][32]byte
}

const (
	maxRemembered      = 256
	maxRememberedInput = 64 // bytes of a string member remembered
)

func rememberedKeccak(memo *keccakMemo, b []byte) [32]byte {
	memo.RLock()
	h, ok := memo.m[string(b)]
	memo.RUnlock()
	if ok {
		return h
	}
	h = keccak(b)
	memo.Lock()
	if memo.m == nil {
		memo.m = map[string][32]byte{}
	}
	if len(memo.m) < maxRemembered {
		memo.m[string(b)] = h
	}
	memo.Unlock()
	return h
}

// decodeHexInto decodes s, 0x and exactly 2·len(dst) hex digits of either
// case (what HexBytes reads), into dst without allocating.
func decodeHexInto(dst []byte, s string) bool {
	if len(s) != 2+2*len(dst) || s[0] != '0' || s[1] != 'x' {
		return false
	}
	for i := range dst {
		hi, ok1 := fromHexChar(s[2+2*i])
		lo, ok2 := fromHexChar(s[3+2*i])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

func fromHexChar(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// smallDecimal reads a decimal string of 1 to 18 digits (no sign, which
// integerValue's general path handles), or a JSON number that is a
// non-negative safe integer: any such value is below 2^60.
func smallDecimal(v jsonv.Value) (uint64, bool) {
	if f, isNumber := v.(jsonv.Number); isNumber {
		if f >= 0 && f <= jsonv.MaxSafeInteger && f == jsonv.Number(uint64(f)) {
			return uint64(f), true
		}
		return 0, false
	}
	s, ok := v.(string)
	if !ok || len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

func hexValue(v jsonv.Value) ([]byte, bool) {
	s, ok := jsonv.AsString(v)
	if !ok {
		return nil, false
	}
	return HexBytes(s)
}

// integerValue reads an integer written as a decimal string, a 0x hex string
// or a JSON number with an integral value no larger than 2^53−1.
func integerValue(v jsonv.Value) (*big.Int, bool) {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "0x") || strings.HasPrefix(x, "0X") {
			return new(big.Int).SetString(x[2:], 16)
		}
		if x == "" || len(x) > 80 {
			return nil, false
		}
		return new(big.Int).SetString(x, 10)
	case jsonv.Number:
		f := float64(x)
		if f != float64(int64(f)) || f > jsonv.MaxSafeInteger || f < -jsonv.MaxSafeInteger {
			return nil, false
		}
		return big.NewInt(int64(f)), true
	}
	return nil, false
}

func intWord(n *big.Int, bits int, unsigned bool) ([]byte, error) {
	if unsigned {
		if n.Sign() < 0 || n.BitLen() > bits {
			return nil, fmt.Errorf("does not fit uint%d", bits)
		}
		return leftPad(n.Bytes()), nil
	}
	limit := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	if n.Cmp(limit) >= 0 || n.Cmp(new(big.Int).Neg(limit)) < 0 {
		return nil, fmt.Errorf("does not fit int%d", bits)
	}
	if n.Sign() >= 0 {
		return leftPad(n.Bytes()), nil
	}
	twos := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 256), n)
	return leftPad(twos.Bytes()), nil
}

func leftPad(b []byte) []byte {
	w := make([]byte, 32)
	copy(w[32-len(b):], b)
	return w
}

// domainFields are the EIP712Domain members in the order the standard lists
// them, used when a request's types do not declare the domain.
var domainFields = []typedField{
	{"name", "string"}, {"version", "string"}, {"chainId", "uint256"},
	{"verifyingContract", "address"}, {"salt", "bytes32"},
}

// typedDataHashes computes the domain separator, struct hash and digest of
// a typed-data request.
func typedDataHashes(td *jsonv.Object) (TypedDataParts, error) {
	tv, _ := td.Get("types")
	ts, err := typesOf(tv)
	if err != nil {
		return TypedDataParts{}, err
	}
	domain, ok := td.GetObject("domain")
	if !ok {
		return TypedDataParts{}, errors.New("typed data has no domain")
	}
	if _, declared := ts.fields["EIP712Domain"]; !declared {
		var fields []typedField
		for _, f := range domainFields {
			if domain.Has(f.name) {
				fields = append(fields, f)
			}
		}
		ts.fields["EIP712Domain"] = fields
	}
	primary, ok := td.GetString("primaryType")
	if !ok || primary == "EIP712Domain" {
		return TypedDataParts{}, errors.New("typed data has no primaryType")
	}
	if _, ok := ts.fields[primary]; !ok {
		return TypedDataParts{}, fmt.Errorf("primaryType %s is not among the types", primary)
	}
	msg, _ := td.Get("message")
	// The domain separator is a function of its encoding alone (the type
	// hash and the members' words): remembered by it. Encoded into a pooled
	// buffer, as hashStruct's.
	k := keccakers.Get().(*keccaker)
	defer k.release()
	enc, err := ts.encodeStruct(k.buf[:0], "EIP712Domain", domain, 0)
	if err != nil {
		return TypedDataParts{}, err
	}
	k.buf = enc[:0]
	var ds [32]byte
	if len(enc) <= maxDomainEncoding {
		ds = rememberedKeccak(&domainHashes, enc)
	} else {
		ds = k.sum(enc) // a domain of more members than any token's
	}
	sh, err := ts.hashStruct(primary, msg, 0)
	if err != nil {
		return TypedDataParts{}, err
	}
	return TypedDataParts{DomainSeparator: ds, StructHash: sh, Digest: digest712(ds, sh)}, nil
}

// maxDomainEncoding is the longest domain encoding remembered: the type
// hash and seven members.
const maxDomainEncoding = 8 * 32

// digest712 is keccak256(0x1901 ‖ domainSeparator ‖ structHash).
func digest712(domain, structHash [32]byte) [32]byte {
	var b [66]byte
	b[0], b[1] = 0x19, 0x01
	copy(b[2:], domain[:])
	copy(b[34:], structHash[:])
	return keccak(b[:])
}
