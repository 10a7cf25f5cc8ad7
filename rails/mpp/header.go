package mpp

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/termsgate/termsgate/jsonv"
)

// The auth-params a Payment challenge keeps; any other is dropped.
var knownParams = map[string]bool{
	"id": true, "realm": true, "method": true, "intent": true, "request": true,
	"expires": true, "digest": true, "description": true, "header": true, "opaque": true,
}

// requiredParams must be present and non-empty.
var requiredParams = []string{"id", "realm", "method", "intent", "request"}

// ChallengesFromHeader is ParseChallenges over every WWW-Authenticate field
// value of h, in order.
func ChallengesFromHeader(h http.Header) ([]jsonv.Value, error) {
	return ParseChallenges(h.Values("WWW-Authenticate"))
}

// ParseChallenges reads WWW-Authenticate field values by RFC 9110's challenge
// grammar and returns the Payment challenges as objects of strings, their
// parameter names lowercased and their members in header order.
//
// Each value is at most MaxFieldValue bytes and must follow the grammar as a
// whole (else mpp/header-malformed, checked before any challenge of it is
// looked at); a Payment challenge with a repeated known parameter, or with a
// required one missing or empty, is mpp/challenge-malformed; more than
// MaxChallenges Payment challenges is mpp/header-malformed. A value is read
// byte by byte, as the reference reads the Latin-1 string fetch gives it: a
// quoted obs-text byte 0x80–0xFF becomes the character U+0080–U+00FF.
//
// Work and memory are linear in one value, and a value over the bound is
// refused before it is read.
func ParseChallenges(fieldValues []string) ([]jsonv.Value, error) {
	var out []jsonv.Value
	for _, value := range fieldValues {
		if len(value) > MaxFieldValue {
			return nil, refuse(CodeHeaderMalformed)
		}
		parsed, ok := parseField(value)
		if !ok {
			return nil, refuse(CodeHeaderMalformed)
		}
		for _, c := range parsed {
			if c.duplicate {
				return nil, refuse(CodeChallengeMalformed)
			}
			for _, k := range requiredParams {
				if v, _ := c.params.GetString(k); v == "" {
					return nil, refuse(CodeChallengeMalformed)
				}
			}
			out = append(out, c.params)
			if len(out) > MaxChallenges {
				return nil, refuse(CodeHeaderMalformed)
			}
		}
	}
	if out == nil {
		out = []jsonv.Value{}
	}
	return out, nil
}

// parsedChallenge is a Payment challenge of a field value. Challenges of
// other schemes are read for the grammar and not kept.
type parsedChallenge struct {
	params    *jsonv.Object
	duplicate bool
}

func (c *parsedChallenge) add(name, value string) {
	if c == nil {
		return // a parameter of another scheme's challenge
	}
	k := strings.ToLower(name)
	if !knownParams[k] {
		return
	}
	if c.params.Has(k) {
		c.duplicate = true // the first value stays; the challenge is refused anyway
		return
	}
	c.params.Set(k, value)
}

// fieldParser walks one field value. Elements of the list are separated by
// commas (empty elements allowed); an element is either a new challenge
// (a scheme, then optionally one SP-separated auth-param or token68) or a
// further auth-param of the current challenge.
type fieldParser struct {
	s string
	i int
}

func parseField(s string) ([]*parsedChallenge, bool) {
	p := &fieldParser{s: s}
	var out []*parsedChallenge
	var current *parsedChallenge // nil inside another scheme's challenge
	inChallenge := false
	for {
		for p.i < len(s) && (s[p.i] == ' ' || s[p.i] == '\t' || s[p.i] == ',') {
			p.i++
		}
		if p.i == len(s) {
			return out, true
		}
		t, ok := p.token()
		if !ok {
			return nil, false
		}
		if p.paramFollows() {
			if !inChallenge {
				return nil, false // an auth-param before any scheme
			}
			v, ok := p.paramValue()
			if !ok {
				return nil, false
			}
			current.add(t, v)
			if !p.elementEnd() {
				return nil, false
			}
			continue
		}
		inChallenge, current = true, nil
		if strings.EqualFold(t, "payment") {
			current = &parsedChallenge{params: &jsonv.Object{}}
			out = append(out, current)
		}
		if p.i == len(s) || s[p.i] == ',' {
			continue
		}
		if s[p.i] != ' ' {
			return nil, false
		}
		for p.i < len(s) && s[p.i] == ' ' {
			p.i++
		}
		if p.i == len(s) || s[p.i] == ',' {
			continue
		}
		start := p.i
		if first, ok := p.token(); ok && p.paramFollows() {
			v, ok := p.paramValue()
			if !ok {
				return nil, false
			}
			current.add(first, v)
			if !p.elementEnd() {
				return nil, false
			}
			continue
		}
		// Not an auth-param: a token68 (credentials of another scheme).
		p.i = start
		for p.i < len(s) && isToken68Char(s[p.i]) {
			p.i++
		}
		for p.i < len(s) && s[p.i] == '=' {
			p.i++
		}
		if p.i == start || !p.elementEnd() {
			return nil, false
		}
	}
}

func (p *fieldParser) token() (string, bool) {
	start := p.i
	for p.i < len(p.s) && isTchar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i], p.i > start
}

func (p *fieldParser) ows() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// paramFollows looks ahead, without consuming, for BWS "=" BWS and the start
// of a token or quoted-string.
func (p *fieldParser) paramFollows() bool {
	j := p.i
	for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t') {
		j++
	}
	if j >= len(p.s) || p.s[j] != '=' {
		return false
	}
	j++
	for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t') {
		j++
	}
	return j < len(p.s) && (p.s[j] == '"' || isTchar(p.s[j]))
}

// paramValue consumes BWS "=" BWS and the value (paramFollows said they are
// there).
func (p *fieldParser) paramValue() (string, bool) {
	p.ows()
	p.i++ // '='
	p.ows()
	if p.s[p.i] == '"' {
		return p.quoted()
	}
	return p.token()
}

// quoted reads a quoted-string, unescaping quoted-pairs. Without escapes or
// obs-text the value is a substring of the field, not a copy.
func (p *fieldParser) quoted() (string, bool) {
	p.i++ // opening quote
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != '"' && p.s[p.i] != '\\' && p.s[p.i] < utf8.RuneSelf && isQdtext(p.s[p.i]) {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '"' {
		p.i++
		return p.s[start : p.i-1], true
	}
	var b strings.Builder
	b.WriteString(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), true
		case c == '\\':
			if p.i+1 >= len(p.s) || !isQuotedPairChar(p.s[p.i+1]) {
				return "", false
			}
			appendLatin1(&b, p.s[p.i+1])
			p.i += 2
		case isQdtext(c):
			appendLatin1(&b, c)
			p.i++
		default:
			return "", false
		}
	}
	return "", false // unterminated
}

// elementEnd: OWS, then a comma or the end of the value.
func (p *fieldParser) elementEnd() bool {
	p.ows()
	return p.i == len(p.s) || p.s[p.i] == ','
}

func appendLatin1(b *strings.Builder, c byte) {
	if c < utf8.RuneSelf {
		b.WriteByte(c)
		return
	}
	b.WriteRune(rune(c))
}

func isTchar(c byte) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func isToken68Char(c byte) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		return true
	}
	return strings.IndexByte("-._~+/", c) >= 0
}

// isQdtext: HTAB, SP, 0x21, 0x23–0x5B, 0x5D–0x7E and obs-text. The backslash
// is handled before this is asked.
func isQdtext(c byte) bool {
	return c == '\t' || c == ' ' || c == 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80
}

// isQuotedPairChar: what may follow a backslash (HTAB, SP, VCHAR, obs-text).
func isQuotedPairChar(c byte) bool {
	return c == '\t' || c == ' ' || (c >= 0x21 && c <= 0x7e) || c >= 0x80
}

// ChallengeHeader writes a challenge as a WWW-Authenticate field value,
// `Payment k="v", …`, its members in order, each value a quoted-string
// (a seller's side: termsgate's own sellers and tests).
func ChallengeHeader(c *jsonv.Object) string {
	var b strings.Builder
	b.WriteString("Payment")
	for i, m := range c.Members() {
		s, _ := m.Value.(string)
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte(' ')
		b.WriteString(m.Key)
		b.WriteString(`="`)
		for j := 0; j < len(s); j++ {
			if s[j] == '"' || s[j] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(s[j])
		}
		b.WriteByte('"')
	}
	return b.String()
}
