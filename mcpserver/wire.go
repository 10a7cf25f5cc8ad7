package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/termsgate/termsgate/internal/jsonv"
)

// Every JSON-RPC message is checked here before mcp-go sees it. mcp-go reads
// messages with encoding/json, which takes the last of two equal member
// names and matches struct fields ignoring case, so
// {"name":"atr_check","Name":"atr_transact"} would run atr_transact while a
// reader of the text sees atr_check. A message is refused unless it is
// strict JSON (jsonv's rules: valid UTF-8, no lone surrogate escapes, the
// depth cap) with no two member names in one object equal or equal ignoring
// case, at any depth.

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

// checkMessage returns nil when msg may be dispatched.
func checkMessage(msg []byte) *wireError {
	if len(msg) > MaxMessageBytes {
		return &wireError{code: rpcInvalidRequest, msg: fmt.Sprintf("The message is larger than %d bytes and was not processed.", MaxMessageBytes)}
	}
	if _, err := jsonv.ParseDepth(msg, jsonv.MaxDepth+envelopeDepth); err != nil {
		return &wireError{code: rpcParseError, msg: "Parse error: " + err.Error() + "; the message was not processed."}
	}
	sc := scanner{data: msg}
	sc.skipSpace()
	err := sc.value(0)
	if err == nil {
		err = sc.err
	}
	if err == nil {
		return nil
	}
	we := &wireError{code: rpcInvalidRequest, msg: err.Error() + "; the message was not processed."}
	switch {
	case sc.idAmbiguous || sc.ids > 1:
	case sc.id != nil:
		we.id = sc.id
	case sc.topObject && sc.hasMethod:
		we.silent = true // a notification: JSON-RPC answers none
	}
	return we
}

// scanner walks text that jsonv already accepted, looking only at member
// names. It also notes the top-level id, so that a refusal can be answered
// to the request it refuses.
type scanner struct {
	data []byte
	pos  int
	path []string

	topObject   bool
	hasMethod   bool
	id          json.RawMessage
	ids         int // top-level names that fold to "id"
	idAmbiguous bool
	err         error // the first refusal; the scan goes on to find the id
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

func (s *scanner) value(depth int) error {
	if s.pos >= len(s.data) {
		return errors.New("unexpected end of the message")
	}
	switch s.data[s.pos] {
	case '{':
		return s.object(depth + 1)
	case '[':
		return s.array(depth + 1)
	case '"':
		_, _, err := s.str()
		return err
	default:
		for s.pos < len(s.data) && !strings.ContainsRune(",]} \t\r\n", rune(s.data[s.pos])) {
			s.pos++
		}
		return nil
	}
}

func (s *scanner) array(depth int) error {
	s.pos++ // [
	for {
		s.skipSpace()
		if s.pos < len(s.data) && s.data[s.pos] == ']' {
			s.pos++
			return nil
		}
		if err := s.value(depth); err != nil {
			return err
		}
		s.skipSpace()
		if s.pos < len(s.data) && s.data[s.pos] == ',' {
			s.pos++
		}
	}
}

func (s *scanner) object(depth int) error {
	s.pos++ // {
	if depth == 1 {
		s.topObject = true
	}
	// Objects in messages have few members: a slice beats a map.
	var seen []string // name, then its fold key, in pairs
	for {
		s.skipSpace()
		if s.pos >= len(s.data) {
			return errors.New("unexpected end of the message")
		}
		if s.data[s.pos] == '}' {
			s.pos++
			return nil
		}
		if s.data[s.pos] == ',' {
			s.pos++
			continue
		}
		name, _, err := s.str()
		if err != nil {
			return err
		}
		fold := foldKey(name)
		for i := 0; i < len(seen) && s.err == nil; i += 2 {
			switch {
			case seen[i+1] != fold:
			case seen[i] == name:
				s.err = fmt.Errorf("The member name %q appears twice in one object%s", name, s.where())
			default:
				s.err = fmt.Errorf("The member names %q and %q differ only in case%s", seen[i], name, s.where())
			}
		}
		seen = append(seen, name, fold)
		s.skipSpace()
		s.pos++ // :
		s.skipSpace()
		start := s.pos
		s.path = append(s.path, name)
		if err := s.value(depth); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		if depth == 1 {
			switch {
			case fold == "ID":
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

// str reads a string at pos and returns its decoded value.
func (s *scanner) str() (string, bool, error) {
	start := s.pos
	s.pos++ // "
	escaped := false
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			escaped = true
			s.pos += 2
			continue
		case '"':
			s.pos++
			raw := s.data[start:s.pos]
			if !escaped {
				return string(raw[1 : len(raw)-1]), false, nil
			}
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				return "", true, errors.New("an unreadable member name")
			}
			return v, true, nil
		}
		s.pos++
	}
	return "", escaped, errors.New("unexpected end of the message")
}

// foldKey maps names that strings.EqualFold calls equal (the comparison
// encoding/json matches field names with) to one key: each rune becomes the
// smallest rune of its case-folding orbit, so "k", "K" and the Kelvin sign
// K all become "K".
func foldKey(name string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= utf8.RuneSelf || 'a' <= c && c <= 'z' {
			ascii = false
			break
		}
	}
	if ascii {
		return name // no lower-case letters: already its own key
	}
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
