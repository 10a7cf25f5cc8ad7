package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/termsgate/termsgate/jsonv"
)

// Every JSON-RPC message is checked here before mcp-go sees it. mcp-go reads
// messages with encoding/json, which takes the last of two equal member
// names and matches struct fields ignoring case, so
// {"name":"atr_check","Name":"atr_transact"} would run atr_transact while a
// reader of the text sees atr_check. A message is refused unless it is
// strict JSON (what jsonv.Parse accepts: valid UTF-8, no lone surrogate
// escapes, nesting within the cap) with no two member names in one object
// equal or equal ignoring case, at any depth.

// MaxMessageBytes bounds one JSON-RPC message: an ATR of 1 MiB is about
// 1.4 MB of base64, and a document and a payment sit beside it.
const MaxMessageBytes = 8 << 20

// JSON-RPC error codes the checks answer with.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// envelopeDepth is how deep the JSON-RPC envelope nests a tool argument
// (message, params, arguments), on top of the depth cap a seller document
// gets on its own.
const envelopeDepth = 3

const maxMessageDepth = jsonv.MaxDepth + envelopeDepth

// wireError is a refused message: the JSON-RPC error to answer and whether
// to answer at all (a notification gets no answer).
type wireError struct {
	code   int
	msg    string
	id     json.RawMessage // nil: null
	silent bool
}

func (e *wireError) Error() string { return e.msg }

// response is the JSON-RPC error response for e, one line.
func (e *wireError) response() []byte {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	out := []byte(`{"jsonrpc":"2.0","id":`)
	out = append(out, id...)
	out = append(out, `,"error":{"code":`...)
	out = fmt.Appendf(out, "%d", e.code)
	out = append(out, `,"message":`...)
	out = jsonv.AppendString(out, e.msg)
	return append(out, "}}\n"...)
}

// message is what the check learned about an accepted message.
type message struct {
	request bool // it has a non-null id: it gets an answer
}

// checkMessage accepts msg or says why not. One pass of encoding/json's
// validator (no allocation) and one of scanner, which looks at what the
// validator does not: names, escapes, depth.
func checkMessage(msg []byte) (message, *wireError) {
	if len(msg) > MaxMessageBytes {
		return message{}, &wireError{code: rpcInvalidRequest, msg: fmt.Sprintf("The message is larger than %d bytes and was not processed.", MaxMessageBytes)}
	}
	if !utf8.Valid(msg) || !json.Valid(msg) {
		detail := "the message is not JSON"
		if _, err := jsonv.ParseDepth(msg, maxMessageDepth); err != nil {
			detail = err.Error()
		}
		return message{}, &wireError{code: rpcParseError, msg: "Parse error: " + detail + "; the message was not processed."}
	}
	sc := scanner{data: msg}
	sc.skipSpace()
	sc.value(0)
	if sc.err == nil {
		return message{request: sc.ids == 1 && !sc.idAmbiguous && string(sc.id) != "null"}, nil
	}
	we := &wireError{code: sc.code, msg: sc.err.Error() + "; the message was not processed."}
	switch {
	case sc.idAmbiguous || sc.ids > 1:
	case sc.id != nil:
		we.id = sc.id
	case sc.topObject && sc.hasMethod:
		we.silent = true // a notification: JSON-RPC answers none
	}
	return message{}, we
}

// scanner walks text that json.Valid accepted. It records the first
// refusal and goes on to the end, so that the top-level id is known even
// when the refusal comes before it, and a refusal can be answered to the
// request it refuses.
type scanner struct {
	data []byte
	pos  int
	path []string

	topObject   bool
	hasMethod   bool
	id          json.RawMessage
	ids         int // top-level names that fold to "id"
	idAmbiguous bool

	err  error // the first refusal
	code int
}

func (s *scanner) refuse(code int, format string, a ...any) {
	if s.err == nil {
		s.err, s.code = fmt.Errorf(format, a...), code
	}
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) value(depth int) {
	if s.pos >= len(s.data) {
		return
	}
	switch s.data[s.pos] {
	case '{':
		s.object(depth + 1)
	case '[':
		s.array(depth + 1)
	case '"':
		s.str(false)
	default:
		for s.pos < len(s.data) && !strings.ContainsRune(",]} \t\r\n", rune(s.data[s.pos])) {
			s.pos++
		}
	}
}

func (s *scanner) deep(depth int) {
	if depth > maxMessageDepth {
		s.refuse(rpcParseError, "Parse error: nested deeper than %d levels%s", maxMessageDepth, s.where())
	}
}

func (s *scanner) array(depth int) {
	s.deep(depth)
	s.pos++ // [
	for s.pos < len(s.data) {
		s.skipSpace()
		switch s.data[s.pos] {
		case ']':
			s.pos++
			return
		case ',':
			s.pos++
		default:
			s.value(depth)
		}
	}
}

func (s *scanner) object(depth int) {
	s.deep(depth)
	s.pos++ // {
	if depth == 1 {
		s.topObject = true
	}
	var names members
	for s.pos < len(s.data) {
		s.skipSpace()
		switch s.data[s.pos] {
		case '}':
			s.pos++
			return
		case ',':
			s.pos++
			continue
		}
		name := s.str(true)
		if prev, dup := names.add(name); dup {
			if prev == name {
				s.refuse(rpcInvalidRequest, "The member name %q appears twice in one object%s", name, s.where())
			} else {
				s.refuse(rpcInvalidRequest, "The member names %q and %q differ only in case%s", prev, name, s.where())
			}
		}
		s.skipSpace()
		s.pos++ // :
		s.skipSpace()
		start := s.pos
		s.path = append(s.path, name)
		s.value(depth)
		s.path = s.path[:len(s.path)-1]
		if depth == 1 {
			switch {
			case strings.EqualFold(name, "id"):
				s.ids++
				s.id = json.RawMessage(s.data[start:s.pos])
				if c := s.data[start]; name != "id" || c == '{' || c == '[' {
					s.idAmbiguous = true // not one plain JSON-RPC id
				}
			case name == "method":
				s.hasMethod = true
			}
		}
	}
}

func (s *scanner) where() string {
	if len(s.path) == 0 {
		return " (at the top level)"
	}
	return " (at " + strings.Join(s.path, ".") + ")"
}

// str reads the string at pos, refusing a lone surrogate escape (which
// encoding/json would quietly turn into U+FFFD, so that two different names
// could decode alike). It returns the decoded value when decode is set.
func (s *scanner) str(decode bool) string {
	start := s.pos
	s.pos++ // "
	escaped := false
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			escaped = true
			if s.data[s.pos+1] == 'u' {
				s.unicodeEscape()
				continue
			}
			s.pos += 2
			continue
		case '"':
			s.pos++
			raw := s.data[start:s.pos]
			if !decode {
				return ""
			}
			if !escaped {
				return string(raw[1 : len(raw)-1])
			}
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				s.refuse(rpcParseError, "Parse error: an unreadable member name%s", s.where())
			}
			return v
		}
		s.pos++
	}
	return ""
}

// unicodeEscape reads \uXXXX at pos (json.Valid checked the hex digits): a
// high surrogate must be followed by a low one, and a low one must follow a
// high one.
func (s *scanner) unicodeEscape() {
	r := hex4(s.data[s.pos+2 : s.pos+6])
	s.pos += 6
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		s.refuse(rpcParseError, "Parse error: a lone surrogate in a \\u escape%s", s.where())
	case r >= 0xD800 && r <= 0xDBFF:
		if s.pos+6 > len(s.data) || s.data[s.pos] != '\\' || s.data[s.pos+1] != 'u' {
			s.refuse(rpcParseError, "Parse error: a lone surrogate in a \\u escape%s", s.where())
			return
		}
		if lo := hex4(s.data[s.pos+2 : s.pos+6]); lo < 0xDC00 || lo > 0xDFFF {
			s.refuse(rpcParseError, "Parse error: a lone surrogate in a \\u escape%s", s.where())
			return
		}
		s.pos += 6
	}
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// members are the names of one object so far. Objects in messages have a
// handful of members, compared pairwise without allocating; past
// smallObject the names go in a map of fold keys, so that a hostile object
// of many members costs linear time.
type members struct {
	names []string
	folds map[string]string
}

const smallObject = 16

// add records name and returns an earlier name equal to it ignoring case.
func (m *members) add(name string) (string, bool) {
	if m.folds == nil {
		for _, n := range m.names {
			if strings.EqualFold(n, name) {
				return n, true
			}
		}
		m.names = append(m.names, name)
		if len(m.names) > smallObject {
			m.folds = make(map[string]string, 2*len(m.names))
			for _, n := range m.names {
				m.folds[foldKey(n)] = n
			}
		}
		return "", false
	}
	k := foldKey(name)
	if n, ok := m.folds[k]; ok {
		return n, true
	}
	m.folds[k] = name
	return "", false
}

// foldKey maps names that strings.EqualFold calls equal (the comparison
// encoding/json matches field names with) to one key: each rune becomes the
// smallest rune of its case-folding orbit, so "k", "K" and the Kelvin sign
// K all become "K".
func foldKey(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		min := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < min {
				min = f
			}
		}
		b.WriteRune(min)
	}
	return b.String()
}
