package mcpserver

import (
	"bytes"
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

// kind is what an accepted message is.
type kind int

const (
	kindRequest      kind = iota + 1 // has a method and an id: it gets an answer
	kindNotification                 // has a method and no id: it gets none
	kindResponse                     // has an id and a result or error: a client's answer
)

// message is what the check learned about an accepted message.
type message struct {
	kind   kind
	id     json.RawMessage // a request's or response's id, as sent
	method string
	// args is params.arguments as sent when it is a JSON object, at
	// argsAt in the message; nil otherwise.
	args   []byte
	argsAt int
}

// envelopeNames are the members of a JSON-RPC message. mcp-go decodes them
// ignoring case, so another spelling of one ("ID", "Method") would be read
// as that member by mcp-go and as something else by any other reader.
var envelopeNames = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// checkMessage accepts msg or says why not, in one pass over its bytes that
// allocates only for member names: the JSON grammar (RFC 8259, strict UTF-8,
// no lone surrogate escapes, nesting within the cap), the names of every
// object, and the shape of the envelope. What it accepts is one JSON-RPC
// request, notification or response as MCP defines them (docs/mcp.md,
// "Malformed input"):
//
//   - one JSON object: a batch (an array) or any other JSON value is an
//     Invalid Request (-32600), since MCP dropped batching in its 2025-06-18
//     revision;
//   - with the envelope's members spelled exactly ("id", not "ID"), and
//     "jsonrpc": "2.0";
//   - an id, when present, that is a string or an integer within ±(2^53−1)
//     (MCP allows no null id; a fraction would come back changed);
//   - a method, when present, that is a string, and then no result or error;
//     without a method, an id and a result or error (a response).
func checkMessage(msg []byte) (message, *wireError) {
	if len(msg) > MaxMessageBytes {
		return message{}, &wireError{code: rpcInvalidRequest, msg: fmt.Sprintf("The message is larger than %d bytes and was not processed.", MaxMessageBytes)}
	}
	sc := scanner{data: msg}
	sc.skipSpace()
	if sc.pos < len(sc.data) {
		sc.top = sc.data[sc.pos]
	}
	if sc.value(0) {
		sc.skipSpace()
		if sc.pos != len(sc.data) {
			sc.syntax("unexpected data after the message")
		}
	}
	if sc.broken != nil {
		return message{}, &wireError{code: rpcParseError, msg: "Parse error: " + sc.broken.Error() + "; the message was not processed."}
	}
	if sc.err != nil {
		we := &wireError{code: sc.code, msg: sc.err.Error() + "; the message was not processed."}
		switch {
		case sc.answerID() != nil:
			we.id = sc.id
		case sc.ids == 0 && sc.method != nil && sc.variant == "":
			we.silent = true // a notification: JSON-RPC answers none
		}
		return message{}, we
	}
	return sc.envelope()
}

// envelope checks the top-level shape of a message that is JSON with
// distinct names.
func (s *scanner) envelope() (message, *wireError) {
	refuse := func(format string, a ...any) (message, *wireError) {
		we := &wireError{code: rpcInvalidRequest, msg: "Invalid Request: " + fmt.Sprintf(format, a...) + "; the message was not processed."}
		we.id = s.answerID()
		return message{}, we
	}
	switch {
	case s.top == '[':
		return refuse("the message is a JSON array (a batch), and MCP has no batches since its 2025-06-18 revision: send each message on its own")
	case s.top != '{':
		return refuse("the message is %s, not a JSON-RPC object", jsonType(s.top))
	case s.variant != "":
		return refuse("the member %q must be spelled %q", s.variant, s.variantOf)
	case !s.version2:
		return refuse("the message lacks \"jsonrpc\": \"2.0\"")
	case s.ids == 1 && !s.idOK:
		return refuse("%s", s.idProblem)
	case s.method != nil && s.method[0] != '"':
		return refuse("the method is %s; it must be a string", jsonType(s.method[0]))
	case s.method != nil && s.hasResult:
		return refuse("a request or notification (it has a method) has no \"result\" member")
	case s.method != nil && s.hasError:
		return refuse("a request or notification (it has a method) has no \"error\" member")
	case s.method != nil && s.idOK:
		return message{kind: kindRequest, id: s.id, method: s.methodName, args: s.args, argsAt: s.argsAt}, nil
	case s.method != nil:
		return message{kind: kindNotification, method: s.methodName}, nil
	case s.idOK && (s.hasResult || s.hasError):
		return message{kind: kindResponse, id: s.id}, nil
	default:
		return refuse("the message has no method, so it is neither a request nor a notification")
	}
}

// answerID is the id to answer a refusal with: the message's own when it
// has exactly one, usable, or nil (null).
func (s *scanner) answerID() json.RawMessage {
	if s.ids == 1 && s.idOK {
		return s.id
	}
	return nil
}

// jsonType names the JSON type of a value from its first byte.
func jsonType(c byte) string {
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		return "a number"
	}
}

// scanner walks a message once. A broken text (not JSON) stops it; any
// other refusal is recorded (the first one) and the walk goes on to the end,
// so that the top-level id is known even when the refusal comes before it,
// and a refusal can be answered to the request it refuses.
type scanner struct {
	data []byte
	pos  int
	path []string

	top       byte // the first byte of the message's value
	ids       int  // top-level names equal to "id" ignoring case
	id        json.RawMessage
	idOK      bool   // one "id", a string or a safe integer
	idProblem string // why the id is not usable
	method    json.RawMessage
	// methodName is the method, decoded when it is a string.
	methodName          string
	hasResult, hasError bool
	version2            bool   // "jsonrpc": "2.0"
	variant, variantOf  string // an envelope member spelled otherwise
	args                []byte // params.arguments, when an object
	argsAt              int

	broken error // the text is not JSON
	err    error // the first other refusal
	code   int
}

func (s *scanner) refuse(code int, format string, a ...any) {
	if s.err == nil {
		s.err, s.code = fmt.Errorf(format, a...), code
	}
}

// syntax records that the text is not JSON at pos, and stops the walk.
func (s *scanner) syntax(what string) bool {
	if s.broken == nil {
		s.broken = fmt.Errorf("%s at byte %d%s", what, s.pos, s.where())
	}
	return false
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

// value reads one JSON value at pos; false when the text is broken.
func (s *scanner) value(depth int) bool {
	if s.pos >= len(s.data) {
		return s.syntax("unexpected end of the message")
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, ok := s.str(false)
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	default:
		return s.syntax(fmt.Sprintf("unexpected character %q", c))
	}
}

func (s *scanner) literal(word string) bool {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(word)) {
		return s.syntax("invalid literal")
	}
	s.pos += len(word)
	return true
}

func (s *scanner) number() bool {
	digits := func() bool {
		start := s.pos
		for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
			s.pos++
		}
		return s.pos > start
	}
	if s.data[s.pos] == '-' {
		s.pos++
	}
	if s.pos < len(s.data) && s.data[s.pos] == '0' {
		s.pos++
	} else if !digits() {
		return s.syntax("invalid number")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if !digits() {
			return s.syntax("invalid number")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if !digits() {
			return s.syntax("invalid number")
		}
	}
	return true
}

// tooDeep refuses a value past the depth cap and skips it without
// recursing further (a hostile message may nest millions deep): brackets
// are counted, strings read whole.
func (s *scanner) tooDeep() bool {
	s.refuse(rpcParseError, "Parse error: nested deeper than %d levels%s", maxMessageDepth, s.where())
	open := 0
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '"':
			if _, ok := s.str(false); !ok {
				return false
			}
			continue
		case '[', '{':
			open++
		case ']', '}':
			if open--; open == 0 {
				s.pos++
				return true
			}
		}
		s.pos++
	}
	return s.syntax("unexpected end of the message")
}

func (s *scanner) array(depth int) bool {
	if depth > maxMessageDepth {
		return s.tooDeep()
	}
	s.pos++ // [
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return true
	}
	for {
		s.skipSpace()
		if !s.value(depth) {
			return false
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return s.syntax("unexpected end of the message in an array")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return true
		default:
			return s.syntax("expected ',' or ']'")
		}
	}
}

func (s *scanner) object(depth int) bool {
	if depth > maxMessageDepth {
		return s.tooDeep()
	}
	s.pos++ // {
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return true
	}
	var names members
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return s.syntax("expected a member name")
		}
		name, ok := s.str(true)
		if !ok {
			return false
		}
		if prev, dup := names.add(name); dup {
			if prev == name {
				s.refuse(rpcInvalidRequest, "The member name %q appears twice in one object%s", name, s.where())
			} else {
				s.refuse(rpcInvalidRequest, "The member names %q and %q differ only in case%s", prev, name, s.where())
			}
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return s.syntax("expected ':'")
		}
		s.pos++
		s.skipSpace()
		start := s.pos
		s.path = append(s.path, name)
		if !s.value(depth) {
			return false
		}
		s.path = s.path[:len(s.path)-1]
		if depth == 1 {
			s.member(name, s.data[start:s.pos])
		} else if depth == 2 && name == "arguments" && len(s.path) == 1 && s.path[0] == "params" && s.data[start] == '{' {
			s.args, s.argsAt = s.data[start:s.pos], start
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return s.syntax("unexpected end of the message in an object")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return true
		default:
			return s.syntax("expected ',' or '}'")
		}
	}
}

// member records a top-level member of the message.
func (s *scanner) member(name string, raw []byte) {
	for _, e := range envelopeNames {
		if name != e && strings.EqualFold(name, e) && s.variant == "" {
			s.variant, s.variantOf = name, e
		}
	}
	switch name {
	case "id":
		s.ids++
		s.id = raw
		s.idOK, s.idProblem = checkID(raw)
	case "method":
		s.method = raw
		if raw[0] == '"' {
			inner := scanner{data: raw}
			s.methodName, _ = inner.str(true)
		}
	case "jsonrpc":
		if raw[0] == '"' {
			inner := scanner{data: raw}
			v, _ := inner.str(true)
			s.version2 = v == "2.0"
		}
	case "result":
		s.hasResult = true
	case "error":
		s.hasError = true
	default:
		if strings.EqualFold(name, "id") {
			s.ids++
		}
	}
}

// checkID says whether a request id can be answered as sent: a string, or
// an integer that survives a float64 (mcp-go reads numbers as float64).
func checkID(raw []byte) (bool, string) {
	switch c := raw[0]; {
	case c == '"':
		return true, ""
	case c == '-' || c >= '0' && c <= '9':
		digits := strings.TrimPrefix(string(raw), "-")
		if strings.ContainsAny(digits, ".eE") {
			return false, fmt.Sprintf("the id %s is not an integer; a request id must be a string or an integer", raw)
		}
		if len(digits) > 16 || len(digits) == 16 && digits > "9007199254740991" {
			return false, fmt.Sprintf("the id %s is beyond 2^53-1, where it would come back changed; use a smaller integer or a string", raw)
		}
		return true, ""
	case c == 'n':
		return false, "the id is null, which MCP does not allow; a request id must be a string or an integer"
	default:
		return false, fmt.Sprintf("the id is %s; a request id must be a string or an integer", jsonType(c))
	}
}

func (s *scanner) where() string {
	if len(s.path) == 0 {
		return " (at the top level)"
	}
	return " (at " + strings.Join(s.path, ".") + ")"
}

// str reads the string at pos: no control characters, known escapes only,
// valid UTF-8, and no lone surrogate escape (which encoding/json would
// quietly turn into U+FFFD, so that two different names could decode
// alike: refused, though the walk goes on). It returns the decoded value
// when decode is set.
func (s *scanner) str(decode bool) (string, bool) {
	s.pos++ // "
	start := s.pos
	var buf []byte // the decoded value, once an escape was met
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			raw := s.data[start:s.pos]
			s.pos++
			if !utf8.Valid(raw) {
				s.pos = start
				return "", s.syntax("invalid UTF-8 in a string")
			}
			if !decode {
				return "", true
			}
			if buf == nil {
				return string(raw), true
			}
			return string(buf), true
		case c < 0x20:
			return "", s.syntax("a control character in a string")
		case c != '\\':
			if decode && buf != nil {
				buf = append(buf, c)
			}
			s.pos++
			continue
		}
		if decode && buf == nil {
			buf = append([]byte{}, s.data[start:s.pos]...)
		}
		if s.pos+1 >= len(s.data) {
			break
		}
		e := s.data[s.pos+1]
		if e == 'u' {
			r, ok := s.unicodeEscape()
			if !ok {
				return "", false
			}
			if decode {
				buf = utf8.AppendRune(buf, r)
			}
			continue
		}
		d := unescape(e)
		if d == 0 {
			return "", s.syntax("an invalid escape in a string")
		}
		if decode {
			buf = append(buf, d)
		}
		s.pos += 2
	}
	return "", s.syntax("an unterminated string")
}

// unescape is the byte a one-letter escape stands for, or 0.
func unescape(e byte) byte {
	switch e {
	case '"', '\\', '/':
		return e
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// unicodeEscape reads \uXXXX at pos: a high surrogate must be followed by
// a low one, and a low one must follow a high one.
func (s *scanner) unicodeEscape() (rune, bool) {
	r, ok := hex4(s.data[s.pos+2 : min(len(s.data), s.pos+6)])
	if !ok {
		return 0, s.syntax("an invalid \\u escape")
	}
	s.pos += 6
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		s.refuse(rpcParseError, "Parse error: a lone surrogate in a \\u escape%s", s.where())
		return utf8.RuneError, true
	case r >= 0xD800 && r <= 0xDBFF:
		if s.pos+6 > len(s.data) || s.data[s.pos] != '\\' || s.data[s.pos+1] != 'u' {
			s.refuse(rpcParseError, "Parse error: a lone surrogate in a \\u escape%s", s.where())
			return utf8.RuneError, true
		}
		lo, ok := hex4(s.data[s.pos+2 : s.pos+6])
		if !ok {
			return 0, s.syntax("an invalid \\u escape")
		}
		if lo < 0xDC00 || lo > 0xDFFF {
			s.refuse(rpcParseError, "Parse error: a lone surrogate in a \\u escape%s", s.where())
			return utf8.RuneError, true
		}
		s.pos += 6
		return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), true
	}
	return r, true
}

func hex4(b []byte) (rune, bool) {
	if len(b) != 4 {
		return 0, false
	}
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
		default:
			return 0, false
		}
	}
	return r, true
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
