package mpp

import (
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// Credential is {challenge, source, payload}: the challenge a shallow copy of
// the chosen one, members and order as read, so that the seller recognises
// what it issued; source the payer's did:pkh.
func Credential(challenge *jsonv.Object, source string, payload *jsonv.Object) *jsonv.Object {
	return jsonv.Obj("challenge", challenge.Clone(), "source", source, "payload", payload)
}

// Source is "did:pkh:eip155:<chainId>:<from as written>".
func Source(chainID int64, from string) string {
	return "did:pkh:eip155:" + strconv.FormatInt(chainID, 10) + ":" + from
}

// PaymentAuthorization is the header a challenge with
// header="Payment-Authorization" asks the credential to come back in.
const PaymentAuthorization = "Payment-Authorization"

// Header is the credential's request header: name Authorization, or
// Payment-Authorization when the echoed challenge asks for it, and value
// "Payment " + base64url of the credential's JSON as JSON.stringify writes
// it.
func Header(credential *jsonv.Object) (name, value string) {
	name = "Authorization"
	if c, ok := credential.GetObject("challenge"); ok {
		if h, _ := c.GetString("header"); strings.EqualFold(h, PaymentAuthorization) {
			name = PaymentAuthorization
		}
	}
	return name, "Payment " + EncodeB64URL(jsonv.Marshal(credential))
}

// maxCredentialBytes bounds a credential header's decoded JSON. The budget
// counts UTF-16 units, so four UTF-8 bytes per unit is the most a credential
// within the budget can take.
const maxCredentialBytes = 4 * MaxCredentialUnits

// ParseHeader reads an Authorization (or Payment-Authorization) value:
// scheme Payment (any case), one space, then strict base64url of a JSON
// object within the credential bounds. It is the seller's side; a refusal is
// mpp/credential-malformed.
func ParseHeader(value string) (*jsonv.Object, error) {
	scheme, rest, ok := strings.Cut(value, " ")
	if !ok || !strings.EqualFold(scheme, "payment") {
		return nil, refuse(CodeCredentialMalformed)
	}
	raw, ok := DecodeB64URL(rest, maxCredentialBytes)
	if !ok {
		return nil, refuse(CodeCredentialMalformed)
	}
	v, err := jsonv.ParseDepth(raw, MaxJSONDepth+1)
	if err != nil {
		return nil, refuse(CodeCredentialMalformed)
	}
	o, ok := jsonv.AsObject(v)
	if !ok || !credentialWithin(o) {
		return nil, refuse(CodeCredentialMalformed)
	}
	return o, nil
}

// credentialShape is a credential's shape: an object with a challenge of
// challenge shape whose id is a string, a payload object, and source a string
// where present.
func credentialShape(v jsonv.Value) (cred, challenge, payload *jsonv.Object, ok bool) {
	cred, ok = jsonv.AsObject(v)
	if !ok {
		return nil, nil, nil, false
	}
	cv, _ := cred.Get("challenge")
	challenge, ok = IsChallengeShape(cv)
	if !ok {
		return nil, nil, nil, false
	}
	if _, ok := challenge.GetString("id"); !ok {
		return nil, nil, nil, false
	}
	if payload, ok = cred.GetObject("payload"); !ok {
		return nil, nil, nil, false
	}
	if s, has := cred.Get("source"); has {
		if _, ok := s.(string); !ok {
			return nil, nil, nil, false
		}
	}
	return cred, challenge, payload, true
}

// credentialWithin is the credential's size and depth budget: each string
// costs its UTF-16 length + 2, each number, boolean and null 8, each array
// and object 2, each member name its length + 3; the total stays within
// MaxCredentialUnits and nothing nests deeper than MaxJSONDepth below the
// credential. It stops as soon as the budget is spent.
func credentialWithin(v jsonv.Value) bool {
	budget := MaxCredentialUnits
	var walk func(x jsonv.Value, depth int) bool
	walk = func(x jsonv.Value, depth int) bool {
		if depth > MaxJSONDepth {
			return false
		}
		switch y := x.(type) {
		case string:
			budget -= atr.UTF16Len(y) + 2
		case []jsonv.Value:
			budget -= 2
			for _, e := range y {
				if !walk(e, depth+1) {
					return false
				}
			}
		case *jsonv.Object:
			budget -= 2
			for _, m := range y.Members() {
				budget -= atr.UTF16Len(m.Key) + 3
				if budget < 0 || !walk(m.Value, depth+1) {
					return false
				}
			}
		default: // number, boolean, null
			budget -= 8
		}
		return budget >= 0
	}
	return walk(v, 0)
}

// Bound is what the shared read-back steps found in a credential.
type Bound struct {
	H          atr.Hash
	Credential *jsonv.Object
	Challenge  *jsonv.Object
	Payload    *jsonv.Object
	Checked    *Checked

	// The echoed challenge's request and opaque as ChallengeBound decoded
	// them, so that Echoed's challenge check does not decode them again.
	decoded *decodedParts
}

// ChallengeBound runs the shared first steps of every MPP bound (docs/protocol.md, "MPP",
// "Reading H back"), in order: the credential's shape and its budget
// (mpp/credential-malformed); H from the echoed id (mpp/id-not-ours); the
// echoed opaque naming H (mpp/opaque-not-this-hash, mpp/opaque-malformed);
// the request decoding (mpp/request-malformed).
func ChallengeBound(presented jsonv.Value) (*Bound, error) {
	cred, challenge, payload, ok := credentialShape(presented)
	if !ok || !credentialWithin(cred) {
		return nil, refuse(CodeCredentialMalformed)
	}
	h, err := HOfChallenge(challenge)
	if err != nil {
		return nil, err
	}
	opaque, has := challenge.GetString("opaque")
	if !has {
		return nil, refuse(CodeOpaqueNotThisHash)
	}
	m, ok := DecodeStringMap(opaque)
	if !ok {
		return nil, refuse(CodeOpaqueMalformed)
	}
	lcText, has := m.GetString(KeyLegalContext)
	lc, ok := ParseLegalContext(lcText)
	if !has || !ok || !lc.Equal(h) {
		return nil, refuse(CodeOpaqueNotThisHash)
	}
	requestText, _ := challenge.GetString("request")
	request, ok := DecodeObject(requestText)
	if !ok {
		return nil, refuse(CodeRequestMalformed)
	}
	return &Bound{H: h, Credential: cred, Challenge: challenge, Payload: payload,
		decoded: &decodedParts{request: request, opaque: m}}, nil
}

// Echoed is ChallengeBound, then the echoed challenge checked as placed and
// offering pairing (mpp/not-this-pairing).
func Echoed(presented jsonv.Value, pairing string) (*Bound, error) {
	b, err := ChallengeBound(presented)
	if err != nil {
		return nil, err
	}
	checked, err := checkChallenge(b.Challenge, true, b.decoded)
	if err != nil {
		return nil, err
	}
	if !checked.Offers(pairing) {
		return nil, refuse(CodeNotThisPairing)
	}
	b.Checked = checked
	return b, nil
}

// HexBytes decodes "0x" and an even number of hex digits of minBytes to
// maxBytes, checking the length before decoding.
func HexBytes(s string, minBytes, maxBytes int) ([]byte, bool) {
	if len(s) < 2 || s[0] != '0' || s[1] != 'x' || len(s)%2 != 0 || len(s) > 2+2*maxBytes || (len(s)-2)/2 < minBytes {
		return nil, false
	}
	b := make([]byte, (len(s)-2)/2)
	for i := range b {
		hi, ok1 := unhex(s[2+2*i])
		lo, ok2 := unhex(s[3+2*i])
		if !ok1 || !ok2 {
			return nil, false
		}
		b[i] = hi<<4 | lo
	}
	return b, true
}

// IsHex reports "0x" and an even number of hex digits, of any length.
func IsHex(s string) bool {
	if len(s) < 2 || s[0] != '0' || s[1] != 'x' || len(s)%2 != 0 {
		return false
	}
	for i := 2; i < len(s); i++ {
		if _, ok := unhex(s[i]); !ok {
			return false
		}
	}
	return true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// SourceAddress is the address of a did:pkh:eip155:<chain>:<address>
// source (chain a positive decimal of at most 16 digits), lowercase; false
// for anything else.
func SourceAddress(source string) (string, bool) {
	rest, ok := strings.CutPrefix(source, "did:pkh:eip155:")
	if !ok {
		return "", false
	}
	chain, addr, ok := strings.Cut(rest, ":")
	if !ok || len(chain) == 0 || len(chain) > 16 || chain[0] == '0' || !IsAddress(addr) {
		return "", false
	}
	for i := 0; i < len(chain); i++ {
		if chain[i] < '0' || chain[i] > '9' {
			return "", false
		}
	}
	return strings.ToLower(addr), true
}
