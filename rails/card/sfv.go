package card

import (
	"errors"
	"strconv"
	"strings"
)

// This file reads and writes the subset of RFC 9651 structured fields
// (https://www.rfc-editor.org/rfc/rfc9651) that the Signature-Input and
// Signature fields of RFC 9421 need: a Dictionary whose members are Items or
// Inner Lists, with Integer, String, Token, Boolean and Byte Sequence bare
// items. A Decimal, Date or Display String does not parse. The reader is
// bounded: at most MaxTAPMembers members and MaxTAPComponents items in an
// inner list (errTooLarge past them); the caller bounds the text's length.

// sfKind is a bare item's type.
type sfKind int

const (
	sfInteger sfKind = iota
	sfString
	sfToken
	sfBoolean
	sfBytes
)

// sfBare is one bare item; Bytes keeps the base64 text as written.
type sfBare struct {
	Kind sfKind
	Int  int64
	Str  string // String, Token, Byte Sequence (base64 text)
	Bool bool
}

type sfParam struct {
	Key   string
	Value sfBare
}

// sfItem is a bare item with its parameters, in order.
type sfItem struct {
	Bare   sfBare
	Params []sfParam
}

// sfMember is a dictionary member: an Item, or an Inner List (List non-nil
// or IsList) with its parameters.
type sfMember struct {
	Key    string
	IsList bool
	Item   sfItem   // when !IsList
	List   []sfItem // when IsList
	Params []sfParam
}

var (
	errSFMalformed = errors.New("structured field does not parse")
	errTooLarge    = errors.New("structured field over its bounds")
)

func (p sfParam) is(kind sfKind) bool { return p.Value.Kind == kind }

// param returns the last parameter named key (RFC 9651: a repeated key
// overwrites the earlier value).
func param(ps []sfParam, key string) (sfBare, bool) {
	var out sfBare
	found := false
	for _, p := range ps {
		if p.Key == key {
			out, found = p.Value, true
		}
	}
	return out, found
}

type sfParser struct {
	s string
	i int
}

// parseDictionary reads an RFC 9651 Dictionary. A repeated key replaces the
// earlier member in place, as RFC 9651 section 4.2.2 says.
func parseDictionary(s string) ([]sfMember, error) {
	p := &sfParser{s: s}
	var out []sfMember
	count := 0
	p.sp()
	for p.i < len(p.s) {
		if count >= MaxTAPMembers {
			return nil, errTooLarge
		}
		count++
		key, ok := p.key()
		if !ok {
			return nil, errSFMalformed
		}
		m := sfMember{Key: key}
		if p.peek() == '=' {
			p.i++
			if p.peek() == '(' {
				list, params, err := p.innerList()
				if err != nil {
					return nil, err
				}
				m.IsList, m.List, m.Params = true, list, params
			} else {
				it, err := p.item()
				if err != nil {
					return nil, err
				}
				m.Item = it
			}
		} else {
			params, err := p.params()
			if err != nil {
				return nil, err
			}
			m.Item = sfItem{Bare: sfBare{Kind: sfBoolean, Bool: true}, Params: params}
		}
		replaced := false
		for j := range out {
			if out[j].Key == key {
				out[j], replaced = m, true
			}
		}
		if !replaced {
			out = append(out, m)
		}
		p.ows()
		if p.i >= len(p.s) {
			return out, nil
		}
		if p.s[p.i] != ',' {
			return nil, errSFMalformed
		}
		p.i++
		p.ows()
		if p.i >= len(p.s) {
			return nil, errSFMalformed // a trailing comma
		}
	}
	return out, nil
}

func (p *sfParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *sfParser) sp() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *sfParser) ows() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *sfParser) key() (string, bool) {
	c := p.peek()
	if !(c >= 'a' && c <= 'z' || c == '*') {
		return "", false
	}
	start := p.i
	p.i++
	for p.i < len(p.s) && isKeyChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i], true
}

func (p *sfParser) innerList() ([]sfItem, []sfParam, error) {
	p.i++ // (
	list := []sfItem{}
	for p.i < len(p.s) {
		p.sp()
		if p.peek() == ')' {
			p.i++
			params, err := p.params()
			if err != nil {
				return nil, nil, err
			}
			return list, params, nil
		}
		if len(list) >= MaxTAPComponents {
			return nil, nil, errTooLarge
		}
		it, err := p.item()
		if err != nil {
			return nil, nil, err
		}
		list = append(list, it)
		if c := p.peek(); c != ' ' && c != ')' {
			return nil, nil, errSFMalformed
		}
	}
	return nil, nil, errSFMalformed
}

func (p *sfParser) item() (sfItem, error) {
	b, err := p.bare()
	if err != nil {
		return sfItem{}, err
	}
	params, err := p.params()
	if err != nil {
		return sfItem{}, err
	}
	return sfItem{Bare: b, Params: params}, nil
}

func (p *sfParser) params() ([]sfParam, error) {
	var out []sfParam
	for p.peek() == ';' {
		p.i++
		p.sp()
		k, ok := p.key()
		if !ok {
			return nil, errSFMalformed
		}
		v := sfBare{Kind: sfBoolean, Bool: true}
		if p.peek() == '=' {
			p.i++
			b, err := p.bare()
			if err != nil {
				return nil, err
			}
			v = b
		}
		if len(out) >= 4*MaxTAPComponents {
			return nil, errTooLarge
		}
		out = append(out, sfParam{Key: k, Value: v})
	}
	return out, nil
}

func (p *sfParser) bare() (sfBare, error) {
	c := p.peek()
	switch {
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		if c == '-' {
			p.i++
		}
		digits := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		n := p.i - digits
		if n == 0 || n > 15 || p.peek() == '.' {
			return sfBare{}, errSFMalformed // no digits, too many, or a Decimal
		}
		v, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
		if err != nil {
			return sfBare{}, errSFMalformed
		}
		return sfBare{Kind: sfInteger, Int: v}, nil
	case c == '"':
		p.i++
		var b strings.Builder
		for p.i < len(p.s) {
			d := p.s[p.i]
			p.i++
			switch {
			case d == '\\':
				if p.i >= len(p.s) || (p.s[p.i] != '"' && p.s[p.i] != '\\') {
					return sfBare{}, errSFMalformed
				}
				b.WriteByte(p.s[p.i])
				p.i++
			case d == '"':
				return sfBare{Kind: sfString, Str: b.String()}, nil
			case d < 0x20 || d > 0x7e:
				return sfBare{}, errSFMalformed
			default:
				b.WriteByte(d)
			}
		}
		return sfBare{}, errSFMalformed
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '*':
		start := p.i
		p.i++
		for p.i < len(p.s) && isTokenChar(p.s[p.i]) {
			p.i++
		}
		return sfBare{Kind: sfToken, Str: p.s[start:p.i]}, nil
	case c == ':':
		p.i++
		start := p.i
		for p.i < len(p.s) && isBase64Char(p.s[p.i]) {
			p.i++
		}
		if p.peek() != ':' {
			return sfBare{}, errSFMalformed
		}
		v := p.s[start:p.i]
		p.i++
		return sfBare{Kind: sfBytes, Str: v}, nil
	case c == '?':
		if p.i+1 >= len(p.s) || (p.s[p.i+1] != '0' && p.s[p.i+1] != '1') {
			return sfBare{}, errSFMalformed
		}
		v := p.s[p.i+1] == '1'
		p.i += 2
		return sfBare{Kind: sfBoolean, Bool: v}, nil
	}
	return sfBare{}, errSFMalformed // a Date (@), a Display String (%), or nothing
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '*'
}

func isTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(":/!#$%&'*+-.^_`|~", c) >= 0
}

func isBase64Char(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

// Serialization (RFC 9651 section 4.1), for the @signature-params line of a
// signature base.

func appendBare(b []byte, v sfBare) []byte {
	switch v.Kind {
	case sfInteger:
		return strconv.AppendInt(b, v.Int, 10)
	case sfString:
		b = append(b, '"')
		for i := 0; i < len(v.Str); i++ {
			if v.Str[i] == '"' || v.Str[i] == '\\' {
				b = append(b, '\\')
			}
			b = append(b, v.Str[i])
		}
		return append(b, '"')
	case sfToken:
		return append(b, v.Str...)
	case sfBytes:
		b = append(b, ':')
		b = append(b, v.Str...)
		return append(b, ':')
	}
	if v.Bool {
		return append(b, "?1"...)
	}
	return append(b, "?0"...)
}

func appendParams(b []byte, ps []sfParam) []byte {
	for _, p := range ps {
		b = append(b, ';')
		b = append(b, p.Key...)
		if p.Value.Kind == sfBoolean && p.Value.Bool {
			continue
		}
		b = append(b, '=')
		b = appendBare(b, p.Value)
	}
	return b
}

// appendInnerList writes an inner list with its parameters.
func appendInnerList(b []byte, list []sfItem, ps []sfParam) []byte {
	b = append(b, '(')
	for i, it := range list {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendBare(b, it.Bare)
		b = appendParams(b, it.Params)
	}
	b = append(b, ')')
	return appendParams(b, ps)
}
