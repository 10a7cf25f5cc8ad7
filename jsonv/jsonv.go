// Package jsonv holds JSON values that keep what the wire contracts need and
// encoding/json drops: member order, and JavaScript's serialisation.
//
// Seller documents are echoed back inside payments (accepted, resource,
// extensions), so an object must come back out with its members in the order
// they arrived, and numbers and strings written the way JSON.stringify writes
// them, because the reference gates and their vectors compare those bytes.
//
// A Value is one of: nil (null), bool, Number, string, []Value, *Object.
//
// Callers of the gate meet these values in seller documents, payments and
// signing requests. Parse makes one from JSON text (buyer inputs, say), the
// accessors read it, Marshal writes it back; *Object also satisfies
// encoding/json's Marshaler and Unmarshaler.
package jsonv

import (
	"fmt"
	"math"
	"slices"
)

// Value is a decoded JSON value: nil, bool, Number, string, []Value or *Object.
type Value = any

// Number is a JSON number. It is a float64, as in JavaScript: the reference
// gates read seller JSON with JSON.parse, so 60.0 is 60 and integers above
// 2^53 lose precision exactly as they do there.
type Number float64

// Member is one name/value pair of an Object.
type Member struct {
	Key   string
	Value Value
}

// Object is a JSON object whose members keep their order. Keys are unique.
//
// Small objects (the gate's documents have a handful of members) are scanned;
// from indexFrom members on, a name index keeps Get and Set constant time, so
// that parsing a hostile object of many members stays linear in its length.
// Only writers (Set, Delete, parsing) touch the index, never a reader, so an
// object shared between goroutines for reading stays race free.
type Object struct {
	members []Member
	index   *nameIndex
}

// Obj builds an object from alternating keys and values: Obj("a", 1, "b", "x").
// Go ints and floats become Numbers. It panics on an odd count or a non-string
// key, which is a programming error, never seller input.
func Obj(kv ...any) *Object {
	if len(kv)%2 != 0 {
		panic("jsonv.Obj: odd number of arguments")
	}
	o := &Object{members: make([]Member, 0, len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		o.Set(kv[i].(string), normalise(kv[i+1]))
	}
	return o
}

func normalise(v any) Value {
	switch x := v.(type) {
	case int:
		return Number(x)
	case int64:
		return Number(x)
	case uint64:
		return Number(x)
	case float64:
		return Number(x)
	default:
		return v
	}
}

// Len is the number of members.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.members)
}

// Members returns the members in order. The slice must not be modified.
func (o *Object) Members() []Member {
	if o == nil {
		return nil
	}
	return o.members
}

// Keys returns the member names in order.
func (o *Object) Keys() []string {
	keys := make([]string, 0, o.Len())
	for _, m := range o.Members() {
		keys = append(keys, m.Key)
	}
	return keys
}

// Get returns the value of key and whether the object has it as an own member.
func (o *Object) Get(key string) (Value, bool) {
	if o == nil {
		return nil, false
	}
	if i := o.find(key); i >= 0 {
		return o.members[i].Value, true
	}
	return nil, false
}

// find returns the position of key, or -1.
func (o *Object) find(key string) int {
	if o.index != nil {
		return o.index.lookup(o.members, key, hashName(key))
	}
	for i := range o.members {
		if o.members[i].Key == key {
			return i
		}
	}
	return -1
}

// Has reports whether key is an own member.
func (o *Object) Has(key string) bool {
	_, ok := o.Get(key)
	return ok
}

// Set replaces the value of key in place, or appends key at the end.
func (o *Object) Set(key string, v Value) {
	if o.index == nil {
		if i := o.find(key); i >= 0 {
			o.members[i].Value = v
			return
		}
		o.members = append(o.members, Member{Key: key, Value: v})
		if len(o.members) >= indexFrom {
			o.index = buildIndex(o.members)
		}
		return
	}
	h := hashName(key)
	if i := o.index.lookup(o.members, key, h); i >= 0 {
		o.members[i].Value = v
		return
	}
	o.members = append(o.members, Member{Key: key, Value: v})
	o.index.add(h, len(o.members)-1, len(o.members))
}

// Delete removes key if present. It moves the later members (and rebuilds
// the index), so it costs time linear in the object's size.
func (o *Object) Delete(key string) {
	if i := o.find(key); i >= 0 {
		o.members = append(o.members[:i:i], o.members[i+1:]...)
		if o.index != nil {
			o.index = buildIndex(o.members)
		}
	}
}

// Clone copies the object deeply, so that a payment built from a seller
// document never aliases (and never mutates) the document.
func (o *Object) Clone() *Object {
	if o == nil {
		return nil
	}
	c := newCloner(o)
	return c.object(o)
}

// Clone copies any Value deeply.
func Clone(v Value) Value {
	switch x := v.(type) {
	case *Object:
		return x.Clone()
	case []Value:
		c := newCloner(x)
		return c.array(x)
	default:
		return v
	}
}

// Copier copies one value, fixed when the Copier is made, as often as
// asked. A copy is what Clone makes (three slabs, each object and array
// capped at its length) without Clone's first walk: the tally is made
// once. The value is the Copier's own deep copy, never handed out, so
// neither what it was made from nor any copy can change the next copy.
// It is safe for concurrent use.
type Copier struct {
	v Value
	n cloneCount
}

// NewCopier returns a Copier of v.
func NewCopier(v Value) *Copier {
	c := &Copier{v: Clone(v)}
	c.n.count(c.v)
	return c
}

// Copy returns a deep copy of the Copier's value.
func (c *Copier) Copy() Value {
	cl := cloner{objects: make([]Object, c.n.objects), members: make([]Member, c.n.members), values: make([]Value, c.n.values)}
	return cl.value(c.v)
}

// CopyObject is Copy of a Copier made from an object.
func (c *Copier) CopyObject() *Object {
	o, _ := c.Copy().(*Object)
	return o
}

// cloner copies a tree of values into three slabs sized by a first walk:
// its objects, their members and its arrays' elements, so that a copy costs
// a few allocations whatever its number of objects. Each object's members
// and each array are capped at their length, so that a Set or an append on
// the copy moves it out of the slab instead of writing over a neighbour.
type cloner struct {
	objects []Object
	members []Member
	values  []Value
}

func newCloner(v Value) cloner {
	var n cloneCount
	n.count(v)
	return cloner{objects: make([]Object, n.objects), members: make([]Member, n.members), values: make([]Value, n.values)}
}

// cloneCount is the first walk's tally.
type cloneCount struct{ objects, members, values int }

func (n *cloneCount) count(v Value) {
	switch x := v.(type) {
	case *Object:
		if x == nil {
			return
		}
		n.objects++
		n.members += len(x.members)
		for i := range x.members {
			n.count(x.members[i].Value)
		}
	case []Value:
		n.values += len(x)
		for _, e := range x {
			n.count(e)
		}
	}
}

func (c *cloner) value(v Value) Value {
	switch x := v.(type) {
	case *Object:
		if x == nil {
			return x
		}
		return c.object(x)
	case []Value:
		return c.array(x)
	default:
		return v
	}
}

func (c *cloner) object(o *Object) *Object {
	out := &c.objects[0]
	c.objects = c.objects[1:]
	n := len(o.members)
	out.members = c.members[:n:n]
	c.members = c.members[n:]
	for i, m := range o.members {
		out.members[i] = Member{Key: m.Key, Value: c.value(m.Value)}
	}
	if o.index != nil {
		out.index = &nameIndex{slots: slices.Clone(o.index.slots)}
	}
	return out
}

func (c *cloner) array(a []Value) []Value {
	if a == nil {
		return make([]Value, 0) // a copy of an empty array is an empty array, as before
	}
	n := len(a)
	out := c.values[:n:n]
	c.values = c.values[n:]
	for i, e := range a {
		out[i] = c.value(e)
	}
	return out
}

// Accessors. Each reports whether v has the asked-for JSON type.

// AsObject returns v as an object.
func AsObject(v Value) (*Object, bool) {
	o, ok := v.(*Object)
	return o, ok && o != nil
}

// AsArray returns v as an array.
func AsArray(v Value) ([]Value, bool) {
	a, ok := v.([]Value)
	return a, ok
}

// AsString returns v as a string.
func AsString(v Value) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

// AsNumber returns v as a number.
func AsNumber(v Value) (float64, bool) {
	n, ok := v.(Number)
	return float64(n), ok
}

// MaxSafeInteger is 2^53 − 1, JavaScript's Number.MAX_SAFE_INTEGER.
const MaxSafeInteger = 1<<53 - 1

// AsSafeInt returns v when it is a JSON number with an integral value in
// [0, 2^53−1]. 60.0 is 60.
func AsSafeInt(v Value) (int64, bool) {
	n, ok := v.(Number)
	if !ok {
		return 0, false
	}
	f := float64(n)
	if f < 0 || f > MaxSafeInteger || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

// AsInteger returns v when it is a whole number within ±MaxSafeInteger,
// negative ones included (JSON-RPC's error codes are negative).
func AsInteger(v Value) (int64, bool) {
	n, ok := v.(Number)
	if !ok {
		return 0, false
	}
	f := float64(n)
	if math.Abs(f) > MaxSafeInteger || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

// GetString returns o[key] when it is a string.
func (o *Object) GetString(key string) (string, bool) {
	v, ok := o.Get(key)
	if !ok {
		return "", false
	}
	return AsString(v)
}

// GetObject returns o[key] when it is an object.
func (o *Object) GetObject(key string) (*Object, bool) {
	v, ok := o.Get(key)
	if !ok {
		return nil, false
	}
	return AsObject(v)
}

// Equal reports whether two values are the same JSON, member order included.
func Equal(a, b Value) bool {
	switch x := a.(type) {
	case *Object:
		y, ok := b.(*Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i, m := range x.Members() {
			n := y.members[i]
			if m.Key != n.Key || !Equal(m.Value, n.Value) {
				return false
			}
		}
		return true
	case []Value:
		y, ok := b.([]Value)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// isArrayIndex reports whether key is a canonical array index ("0" to
// "4294967294"), which JavaScript objects order before every other key.
func isArrayIndex(key string) (uint32, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n >= math.MaxUint32 {
		return 0, false
	}
	return uint32(n), true
}

// MarshalJSON writes the object with Marshal, so that a *Object inside a
// struct keeps its member order through encoding/json (which then applies
// its own escaping of <, > and &).
func (o *Object) MarshalJSON() ([]byte, error) { return Marshal(o), nil }

// UnmarshalJSON reads a JSON object with Parse's rules (strict UTF-8, the
// depth cap, duplicate names as JSON.parse reads them).
func (o *Object) UnmarshalJSON(data []byte) error {
	v, err := Parse(data)
	if err != nil {
		return err
	}
	got, ok := v.(*Object)
	if !ok {
		return fmt.Errorf("jsonv: not a JSON object")
	}
	*o = *got
	return nil
}
