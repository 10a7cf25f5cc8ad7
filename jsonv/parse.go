package jsonv

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the one nesting cap for JSON the gate reads from a seller or a
// caller: at most 64 levels of arrays and objects (core-vectors.json JD rows).
const MaxDepth = 64

// SyntaxError says where a JSON text stopped being acceptable.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("json: %s at byte %d", e.Msg, e.Offset) }

// ErrTooDeep is returned (wrapped) when nesting exceeds the depth cap.
var ErrTooDeep = errors.New("json: nested deeper than the cap")

// Parse reads exactly one JSON value (RFC 8259) with the default depth cap.
//
// It is strict where the reference gates differ or are lenient: the text must
// be valid UTF-8 with no byte-order mark, a \u escape may not leave a lone
// surrogate, and nothing but JSON whitespace may follow the value. Duplicate
// member names behave as JSON.parse: the last value wins, kept at the first
// name's position; array-index names ("0", "12") come first in ascending
// order, as in a JavaScript object.
func Parse(data []byte) (Value, error) { return ParseDepth(data, MaxDepth) }

// ParseDepth is Parse with another depth cap (the vector files are trusted
// data and may nest deeper than a seller document may).
func ParseDepth(data []byte, maxDepth int) (Value, error) {
	if !utf8.Valid(data) {
		return nil, &SyntaxError{0, "text is not valid UTF-8"}
	}
	p := parser{data: data, maxDepth: maxDepth}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.errorf("unexpected data after the value")
	}
	return v, nil
}

type parser struct {
	data     []byte
	pos      int
	maxDepth int
	// scanOnly accepts \u escapes that leave a lone surrogate, as a pure
	// syntax check (RFC 8259's grammar) does.
	scanOnly bool
	// members and values are stacks shared by the objects and arrays being
	// read (a nested one pushes above its parent's and pops back): each is
	// built there and copied out once at its exact size, so a long one costs
	// one copy rather than the repeated copying of growing it by append.
	members []Member
	values  []Value
}

// Valid reports whether data is exactly one RFC 8259 JSON value, valid UTF-8
// with no byte-order mark, nested at most maxDepth deep. It is the grammar
// alone: a \u escape naming a lone surrogate is allowed, as JSON.parse
// allows it.
func Valid(data []byte, maxDepth int) bool {
	if !utf8.Valid(data) {
		return false
	}
	p := parser{data: data, maxDepth: maxDepth, scanOnly: true}
	p.skipSpace()
	if _, err := p.value(0); err != nil {
		return false
	}
	p.skipSpace()
	return p.pos == len(p.data)
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{p.pos, fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of text")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.errorf("unexpected character %q", c)
	}
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.errorf("invalid literal")
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int) (Value, error) {
	if depth > p.maxDepth {
		return nil, fmt.Errorf("%w (%d) at byte %d", ErrTooDeep, p.maxDepth, p.pos)
	}
	p.pos++ // {
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return &Object{}, nil
	}
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	var index *nameIndex
	indexKeys := false
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errorf("expected a member name")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf("expected ':'")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		if _, ok := isArrayIndex(key); ok {
			indexKeys = true
		}
		// A repeated name keeps its first position and takes the new value.
		if index == nil {
			i := slices.IndexFunc(p.members[base:], func(m Member) bool { return m.Key == key })
			if i >= 0 {
				p.members[base+i].Value = v
			} else if p.members = push(p.members, Member{key, v}); len(p.members)-base >= indexFrom {
				index = buildIndex(p.members[base:])
			}
		} else {
			h := hashName(key)
			if i := index.lookup(p.members[base:], key, h); i >= 0 {
				p.members[base+i].Value = v
			} else {
				p.members = push(p.members, Member{key, v})
				n := len(p.members) - base
				index.add(h, n-1, n)
			}
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of text in an object")
		}
		if p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.data[p.pos] == '}' {
			p.pos++
			break
		}
		return nil, p.errorf("expected ',' or '}'")
	}
	o := &Object{members: slices.Clone(p.members[base:]), index: index}
	if indexKeys {
		sortIndexKeysFirst(o)
	}
	return o, nil
}

// push appends e, doubling the capacity when it runs out (append grows
// large slices by a quarter, which copies a long stack four times over).
func push[E any](s []E, e E) []E {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(len(s), 64))
	}
	return append(s, e)
}

// sortIndexKeysFirst puts array-index names first, ascending, keeping the
// others in insertion order: the property order of a JavaScript object.
func sortIndexKeysFirst(o *Object) {
	// Parse each name once; index names are unique, so an unstable sort by
	// their value is exact, and the other names keep their order.
	type indexed struct {
		n uint32
		m Member
	}
	var idx []indexed
	rest := make([]Member, 0, len(o.members))
	for _, m := range o.members {
		if n, ok := isArrayIndex(m.Key); ok {
			idx = append(idx, indexed{n, m})
		} else {
			rest = append(rest, m)
		}
	}
	slices.SortFunc(idx, func(a, b indexed) int { return cmp.Compare(a.n, b.n) })
	o.members = o.members[:0]
	for _, e := range idx {
		o.members = append(o.members, e.m)
	}
	o.members = append(o.members, rest...)
	o.index = buildIndex(o.members)
}

func (p *parser) array(depth int) (Value, error) {
	if depth > p.maxDepth {
		return nil, fmt.Errorf("%w (%d) at byte %d", ErrTooDeep, p.maxDepth, p.pos)
	}
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return []Value{}, nil
	}
	base := len(p.values)
	defer func() { p.values = p.values[:base] }()
	for {
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		p.values = push(p.values, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of text in an array")
		}
		if p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.data[p.pos] == ']' {
			p.pos++
			return slices.Clone(p.values[base:]), nil
		}
		return nil, p.errorf("expected ',' or ']'")
	}
}

func (p *parser) number() (Value, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos >= len(p.data) {
		return nil, p.errorf("invalid number")
	}
	switch c := p.data[p.pos]; {
	case c == '0':
		p.pos++
	case c >= '1' && c <= '9':
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	default:
		return nil, p.errorf("invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if p.pos >= len(p.data) || !isDigit(p.data[p.pos]) {
			return nil, p.errorf("invalid number")
		}
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(p.data) || !isDigit(p.data[p.pos]) {
			return nil, p.errorf("invalid number")
		}
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	}
	// Out-of-range magnitudes become ±Inf, as JSON.parse gives Infinity.
	f, err := strconv.ParseFloat(string(p.data[start:p.pos]), 64)
	if err != nil {
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return nil, p.errorf("invalid number")
		}
	}
	return Number(f), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.errorf("control character in a string")
		}
		p.pos++
	}
	buf := append([]byte(nil), p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), nil
		case c < 0x20:
			return "", p.errorf("control character in a string")
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		p.pos++
		if p.pos >= len(p.data) {
			break
		}
		e := p.data[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) && p.scanOnly {
				r = utf8.RuneError
			} else if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || p.pos+6 > len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
					return "", p.errorf("lone surrogate in a \\u escape")
				}
				p.pos += 2
				r2, err := p.hex4()
				if err != nil {
					return "", err
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return "", p.errorf("lone surrogate in a \\u escape")
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.errorf("invalid escape")
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *parser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errorf("short \\u escape")
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, p.errorf("invalid \\u escape")
		}
	}
	p.pos += 4
	return r, nil
}
