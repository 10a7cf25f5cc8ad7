package mpp

import (
	"encoding/base64"
	"math"

	"github.com/termsgate/termsgate/jsonv"
)

var b64url = base64.RawURLEncoding.Strict()

// EncodeB64URL is base64url without padding, the form of id, request,
// opaque and the credential.
func EncodeB64URL(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// DecodeB64URL decodes strict unpadded base64url of at most maxBytes: only
// the url alphabet (Go's decoder would skip CR and LF), a length whose
// remainder mod 4 is not 1, the encoded length bounded before anything is
// decoded, and zero unused trailing bits.
func DecodeB64URL(s string, maxBytes int) ([]byte, bool) {
	if len(s)%4 == 1 || len(s) > (maxBytes*4+2)/3 {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if !isB64URLChar(s[i]) {
			return nil, false
		}
	}
	b, err := b64url.DecodeString(s)
	return b, err == nil
}

func isB64URLChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// DecodeObject reads a request or opaque value: strict base64url of at most
// MaxDecoded bytes, strict UTF-8 with no byte-order mark, one JSON object
// nested at most MaxJSONDepth levels, with no lone surrogate and only finite
// numbers (what RFC 8785 can re-encode).
func DecodeObject(s string) (*jsonv.Object, bool) {
	raw, ok := DecodeB64URL(s, MaxDecoded)
	if !ok {
		return nil, false
	}
	return decodeObjectBytes(raw)
}

// decodeObjectBytes is DecodeObject after the base64url.
func decodeObjectBytes(raw []byte) (*jsonv.Object, bool) {
	v, err := jsonv.ParseDepth(raw, MaxJSONDepth)
	if err != nil {
		return nil, false
	}
	o, ok := jsonv.AsObject(v)
	if !ok || !finite(o) {
		return nil, false
	}
	return o, true
}

// finite reports whether every number in v is finite: JSON.parse turns 1e400
// into Infinity, which canonical JSON cannot write.
func finite(v jsonv.Value) bool {
	switch x := v.(type) {
	case jsonv.Number:
		return !math.IsInf(float64(x), 0) && !math.IsNaN(float64(x))
	case []jsonv.Value:
		for _, e := range x {
			if !finite(e) {
				return false
			}
		}
	case *jsonv.Object:
		for _, m := range x.Members() {
			if !finite(m.Value) {
				return false
			}
		}
	}
	return true
}

// DecodeStringMap reads an opaque value: DecodeObject whose every member is a
// string.
func DecodeStringMap(s string) (*jsonv.Object, bool) {
	o, ok := DecodeObject(s)
	if !ok {
		return nil, false
	}
	for _, m := range o.Members() {
		if _, isString := m.Value.(string); !isString {
			return nil, false
		}
	}
	return o, true
}

// EncodeObject writes o as base64url of its RFC 8785 canonical JSON, the form
// a seller issues request and opaque in.
func EncodeObject(o *jsonv.Object) string { return EncodeB64URL(jsonv.Canonical(o)) }
