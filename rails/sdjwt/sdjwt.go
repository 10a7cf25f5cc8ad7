// Package sdjwt reads SD-JWT presentations (RFC 9901): the issuer-signed JWT,
// its disclosures and an optional key-binding JWT, with the disclosures put
// back into the payload as RFC 9901 section 7.1 does. AP2, UCP and the card
// networks' Verifiable Intent carry the LCP binding inside such presentations
// (the checkout JWT's legalContext, a mandate's checkout_hash), so the checkout
// and card rails share this one reader.
//
// The reader is strict and bounded: a presentation is at most MaxPresentation
// bytes, with at most MaxDisclosures disclosures, each JSON document nested at
// most MaxDepth deep, disclosures nested in disclosures at most MaxNesting
// deep (the caps of the upstream reader's vectors). It never verifies a signature: which key signs which layer is the
// profile's to say, and the caller checks it (crypto/ecdsa for ES256) on the
// Signed bytes this reader keeps.
package sdjwt

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
)

// Caps on what a seller or agent can make the reader hold.
const (
	MaxPresentation = 64 << 10
	MaxDisclosures  = 128
	MaxDepth        = jsonv.MaxDepth
	MaxNesting      = 16
)

// Refusal codes. RFC 9901 leaves the codes to the caller; these name the
// reason as the upstream vectors do.
const (
	Malformed      = "malformed"
	AlgUnsupported = "sd-alg-unsupported"
	Unreferenced   = "unreferenced"
	TooLarge       = "too-large"
)

// Error is a refusal with one of the codes above and a detail.
type Error struct {
	Code   string
	Detail string
}

func (e *Error) Error() string { return "sd-jwt/" + e.Code + ": " + e.Detail }

func refuse(code, format string, args ...any) error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Code is the refusal code of err, "" when err is not a refusal.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// JWT is one compact JWS, decoded but not verified.
type JWT struct {
	Header    *jsonv.Object
	Payload   *jsonv.Object
	Signed    string // header.payload, the bytes the signature covers
	Signature []byte
}

// Alg is the header's alg, "" if absent.
func (j *JWT) Alg() string { s, _ := j.Header.GetString("alg"); return s }

// Disclosure is one disclosure as presented and as decoded.
type Disclosure struct {
	Encoded string // the base64url text, whose SHA-256 is its digest
	Digest  string
	Salt    string
	Name    string // "" for an array element disclosure
	Element bool   // two elements: an array element's value
	Value   jsonv.Value
}

// Presentation is a read SD-JWT: the issuer JWT with its disclosures put back
// (Claims), and the key-binding JWT if one follows the last tilde.
type Presentation struct {
	Issuer      *JWT
	Claims      *jsonv.Object // Issuer.Payload with disclosures resolved, _sd and _sd_alg removed
	Disclosures []Disclosure
	KeyBinding  *JWT // nil when the presentation ends with a tilde
}

// Digest is base64url(SHA-256(s)) without padding, the form RFC 9901 digests,
// sd_hash and AP2's checkout_hash take.
func Digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// ParseJWT decodes a compact JWS: three base64url parts (no padding), a JSON
// object header with a string alg other than none, a JSON object payload.
func ParseJWT(s string) (*JWT, error) {
	if len(s) > MaxPresentation {
		return nil, refuse(TooLarge, "JWT of %d bytes (cap %d)", len(s), MaxPresentation)
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return nil, refuse(Malformed, "JWT has %d parts, not 3", len(parts))
	}
	header, err := jsonObject(parts[0], "JWT header")
	if err != nil {
		return nil, err
	}
	alg, ok := header.GetString("alg")
	if !ok || alg == "" || strings.EqualFold(alg, "none") {
		return nil, refuse(Malformed, "JWT header alg missing or none")
	}
	payload, err := jsonObject(parts[1], "JWT payload")
	if err != nil {
		return nil, err
	}
	sig, err := base64.RawURLEncoding.Strict().DecodeString(parts[2])
	if err != nil || len(sig) == 0 {
		return nil, refuse(Malformed, "JWT signature is not base64url")
	}
	return &JWT{Header: header, Payload: payload, Signed: parts[0] + "." + parts[1], Signature: sig}, nil
}

func jsonObject(part, what string) (*jsonv.Object, error) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(part)
	if err != nil {
		return nil, refuse(Malformed, "%s is not base64url", what)
	}
	v, err := jsonv.ParseDepth(b, MaxDepth)
	if err != nil {
		return nil, jsonRefusal(what, err)
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, refuse(Malformed, "%s is not a JSON object", what)
	}
	return o, nil
}

func jsonRefusal(what string, err error) error {
	if errors.Is(err, jsonv.ErrTooDeep) {
		return refuse(TooLarge, "%s: %v", what, err)
	}
	return refuse(Malformed, "%s: %v", what, err)
}

// ParseDisclosure decodes one disclosure: a base64url JSON array of salt, name
// and value (an object property) or salt and value (an array element).
func ParseDisclosure(s string) (Disclosure, error) {
	d := Disclosure{Encoded: s, Digest: Digest(s)}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return d, refuse(Malformed, "disclosure is not base64url")
	}
	v, err := jsonv.ParseDepth(b, MaxDepth)
	if err != nil {
		return d, jsonRefusal("disclosure", err)
	}
	a, ok := jsonv.AsArray(v)
	if !ok || (len(a) != 2 && len(a) != 3) {
		return d, refuse(Malformed, "disclosure is not an array of 2 or 3")
	}
	if d.Salt, ok = jsonv.AsString(a[0]); !ok {
		return d, refuse(Malformed, "disclosure salt is not a string")
	}
	if len(a) == 2 {
		d.Element, d.Value = true, a[1]
		return d, nil
	}
	if d.Name, ok = jsonv.AsString(a[1]); !ok {
		return d, refuse(Malformed, "disclosure name is not a string")
	}
	if d.Name == "_sd" || d.Name == "..." || d.Name == "_sd_alg" {
		return d, refuse(Malformed, "disclosure names the reserved claim %q", d.Name)
	}
	d.Value = a[2]
	return d, nil
}

// Parse reads a presentation: JWT~D1~…~Dn~ or JWT~D1~…~Dn~KB-JWT.
func Parse(s string) (*Presentation, error) {
	if len(s) > MaxPresentation {
		return nil, refuse(TooLarge, "presentation of %d bytes (cap %d)", len(s), MaxPresentation)
	}
	if strings.Count(s, "~") > MaxDisclosures+1 {
		return nil, refuse(TooLarge, "more than %d disclosures", MaxDisclosures)
	}
	parts := strings.Split(s, "~")
	if len(parts) < 2 {
		return nil, refuse(Malformed, "no tilde: not an SD-JWT")
	}
	issuer, err := ParseJWT(parts[0])
	if err != nil {
		return nil, err
	}
	p := &Presentation{Issuer: issuer}
	if last := parts[len(parts)-1]; last != "" {
		if p.KeyBinding, err = ParseJWT(last); err != nil {
			return nil, err
		}
	}
	byDigest := make(map[string]int, len(parts))
	for _, e := range parts[1 : len(parts)-1] {
		if e == "" {
			return nil, refuse(Malformed, "empty disclosure")
		}
		d, err := ParseDisclosure(e)
		if err != nil {
			return nil, err
		}
		if _, dup := byDigest[d.Digest]; dup {
			return nil, refuse(Malformed, "disclosure %s presented twice", d.Digest)
		}
		byDigest[d.Digest] = len(p.Disclosures)
		p.Disclosures = append(p.Disclosures, d)
	}
	if v, ok := issuer.Payload.Get("_sd_alg"); ok {
		if alg, _ := jsonv.AsString(v); alg != "sha-256" {
			return nil, refuse(AlgUnsupported, "_sd_alg %s", jsonv.Marshal(v))
		}
	}
	r := resolver{p: p, byDigest: byDigest, used: make([]bool, len(p.Disclosures))}
	claims, err := r.object(issuer.Payload, 0)
	if err != nil {
		return nil, err
	}
	claims.Delete("_sd_alg")
	for i, u := range r.used {
		if !u {
			return nil, refuse(Unreferenced, "disclosure %s is not referenced by the payload or another disclosure", p.Disclosures[i].Digest)
		}
	}
	p.Claims = claims
	return p, nil
}

type resolver struct {
	p        *Presentation
	byDigest map[string]int
	used     []bool // a disclosure is put back once; a second reference is refused
	steps    int
}

// maxSteps bounds the walk: disclosures can be referenced from inside other
// disclosures, and each value is visited once, so this is a cap on work.
const maxSteps = 1 << 14

// step counts one value; nest is how many disclosures enclose it.
func (r *resolver) step(nest int) error {
	r.steps++
	if r.steps > maxSteps {
		return refuse(TooLarge, "payload walk beyond %d values", maxSteps)
	}
	if nest > MaxNesting {
		return refuse(TooLarge, "disclosures nested deeper than %d", MaxNesting)
	}
	return nil
}

func (r *resolver) digest(v jsonv.Value) (int, error) {
	s, ok := jsonv.AsString(v)
	if !ok {
		return -1, refuse(Malformed, "digest is not a string")
	}
	i, ok := r.byDigest[s]
	if !ok {
		return -1, nil
	}
	return i, nil
}

func (r *resolver) use(i int) error {
	if r.used[i] {
		return refuse(Malformed, "disclosure %s referenced twice", r.p.Disclosures[i].Digest)
	}
	r.used[i] = true
	return nil
}

func (r *resolver) value(v jsonv.Value, nest int) (jsonv.Value, error) {
	switch x := v.(type) {
	case *jsonv.Object:
		return r.object(x, nest)
	case []jsonv.Value:
		return r.array(x, nest)
	}
	return v, r.step(nest)
}

func (r *resolver) object(o *jsonv.Object, nest int) (*jsonv.Object, error) {
	if err := r.step(nest); err != nil {
		return nil, err
	}
	out := jsonv.Obj()
	for _, m := range o.Members() {
		if m.Key == "_sd" {
			continue
		}
		v, err := r.value(m.Value, nest)
		if err != nil {
			return nil, err
		}
		out.Set(m.Key, v)
	}
	sdv, ok := o.Get("_sd")
	if !ok {
		return out, nil
	}
	sd, ok := jsonv.AsArray(sdv)
	if !ok {
		return nil, refuse(Malformed, "_sd is not an array")
	}
	for _, e := range sd {
		i, err := r.digest(e)
		if err != nil {
			return nil, err
		}
		// A digest naming no disclosure is a decoy or withheld claim; one
		// naming an array-element disclosure is ignored here (the vectors'
		// allowance: Verifiable Intent lists such digests in _sd too).
		if i < 0 || r.p.Disclosures[i].Element {
			continue
		}
		d := r.p.Disclosures[i]
		if out.Has(d.Name) {
			return nil, refuse(Malformed, "disclosed claim %q is already in the object", d.Name)
		}
		if err := r.use(i); err != nil {
			return nil, err
		}
		v, err := r.value(d.Value, nest+1)
		if err != nil {
			return nil, err
		}
		out.Set(d.Name, v)
	}
	return out, nil
}

func (r *resolver) array(a []jsonv.Value, nest int) ([]jsonv.Value, error) {
	if err := r.step(nest); err != nil {
		return nil, err
	}
	out := make([]jsonv.Value, 0, len(a))
	for _, e := range a {
		if o, ok := jsonv.AsObject(e); ok && o.Len() == 1 && o.Has("...") {
			dv, _ := o.Get("...")
			i, err := r.digest(dv)
			if err != nil {
				return nil, err
			}
			if i < 0 {
				continue // not disclosed: the element is left out
			}
			d := r.p.Disclosures[i]
			if !d.Element {
				return nil, refuse(Malformed, "array element names a property disclosure %s", d.Digest)
			}
			if err := r.use(i); err != nil {
				return nil, err
			}
			v, err := r.value(d.Value, nest+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		v, err := r.value(e, nest)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
