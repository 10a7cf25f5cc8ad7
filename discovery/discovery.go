// Package discovery reads and writes the LCP discovery document, the JSON a
// seller serves at /.well-known/legal-context.json to say where its terms
// are (LCP §2). It is a listing, not a confirmation: the terms it points to
// are bound to a payment only through the ATR and its hash H, which the
// gate checks for itself. Nothing here is ever signed.
//
// Parse is strict where a seller could make two readers disagree (one JSON
// object of valid UTF-8, no byte-order mark, at most MaxBytes, every known
// member of its type and non-empty) and lenient only where LCP says so:
// members it does not know are ignored, and named in the order met.
package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
)

// WellKnownPath is where a seller serves the document (LCP §2.1).
const WellKnownPath = "/.well-known/legal-context.json"

// MaxBytes is the largest document read or written; exactly MaxBytes is
// allowed.
const MaxBytes = 65536

// maxDepth bounds nesting, ignored members included: the known members are
// two levels deep, and a seller's extensions have no reason to go far.
const maxDepth = 16

// The refusal codes the vectors fix; a malformed member's code is
// CodeMemberMalformed + "/" + its dotted path.
const (
	CodeTermsMissing      gate.Code = "discovery/terms-missing"
	CodeTermsNotHTTPS     gate.Code = "discovery/terms-not-https"
	CodeATRHashMalformed  gate.Code = "discovery/atr-hash-malformed"
	CodeClauseIDMalformed gate.Code = "discovery/clause-id-malformed"
	CodeMemberMalformed   gate.Code = "discovery/member-malformed"
	CodeTooLarge          gate.Code = "discovery/too-large"
	CodeNotJSONObject     gate.Code = "discovery/not-json-object"
	CodeUnfetchable       gate.Code = "discovery/unfetchable"
)

// Document is a discovery document's known members (LCP §2.4–§2.5). An
// empty string or nil pointer is a member that was absent.
type Document struct {
	Terms              string
	TermsFormat        string
	ATRHash            string // "0x" and 64 lowercase hex digits
	AcceptanceRequired *bool
	DisputeResolution  *DisputeResolution
	Returns            string
	Contact            *Contact
	API                string
}

// DisputeResolution is the disputeResolution member.
type DisputeResolution struct {
	Method       string
	Jurisdiction string
	Contact      string
	ClauseID     string // "sha256:0x" and 64 hex digits
	Source       string
	Catalog      string
}

// Contact is the contact member.
type Contact struct {
	Legal     string
	Technical string
}

func refuse(code gate.Code, detail string) *gate.Decline {
	return &gate.Decline{Code: code, Detail: detail}
}

func malformed(path, want string) *gate.Decline {
	return refuse(CodeMemberMalformed+gate.Code("/"+path), "The discovery document's "+path+" is not "+want+".")
}

// Parse reads a document's bytes. It returns the document and the dotted
// paths of the members it ignored, in the order they appear; or a
// *gate.Decline whose code is one of the discovery/ codes.
func Parse(b []byte) (*Document, []string, error) {
	if len(b) > MaxBytes {
		return nil, nil, refuse(CodeTooLarge, "The discovery document is larger than 65536 bytes.")
	}
	v, err := jsonv.ParseDepth(b, maxDepth)
	if err != nil {
		d := refuse(CodeNotJSONObject, "The discovery document is not one JSON object.")
		d.Err = err
		return nil, nil, d
	}
	return Decode(v)
}

// Decode reads a document already parsed as JSON, as Parse does.
func Decode(v jsonv.Value) (*Document, []string, error) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, nil, refuse(CodeNotJSONObject, "The discovery document is not one JSON object.")
	}
	var d Document
	var ignored []string
	for _, m := range o.Members() {
		var err error
		switch m.Key {
		case "terms":
			if d.Terms, err = str(m.Value, "terms"); err == nil && !atr.IsHTTPSLink(d.Terms) {
				err = refuse(CodeTermsNotHTTPS, "The discovery document's terms is not an absolute https URL.")
			}
		case "termsFormat":
			d.TermsFormat, err = str(m.Value, "termsFormat")
		case "atrHash":
			d.ATRHash, err = str(m.Value, "atrHash")
			if err == nil {
				d.ATRHash, err = atrHash(d.ATRHash)
			}
		case "acceptanceRequired":
			b, ok := m.Value.(bool)
			if !ok {
				err = malformed("acceptanceRequired", "a boolean")
			}
			d.AcceptanceRequired = &b
		case "disputeResolution":
			d.DisputeResolution, err = disputeResolution(m.Value, &ignored)
		case "returns":
			d.Returns, err = str(m.Value, "returns")
		case "contact":
			d.Contact, err = contact(m.Value, &ignored)
		case "api":
			d.API, err = str(m.Value, "api")
		default:
			ignored = append(ignored, m.Key)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if !o.Has("terms") {
		return nil, nil, refuse(CodeTermsMissing, "The discovery document has no terms.")
	}
	if ignored == nil {
		ignored = []string{}
	}
	return &d, ignored, nil
}

// str reads a string member; LCP's string members are all non-empty, and an
// absent member is omitted, never null.
func str(v jsonv.Value, path string) (string, error) {
	s, ok := v.(string)
	if !ok || s == "" {
		return "", malformed(path, "a non-empty string")
	}
	return s, nil
}

func atrHash(s string) (string, error) {
	if len(s) != 66 || s[:2] != "0x" || !isHex(s[2:]) {
		return "", refuse(CodeATRHashMalformed, "The discovery document's atrHash is not 0x and 64 hex digits.")
	}
	return strings.ToLower(s), nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func disputeResolution(v jsonv.Value, ignored *[]string) (*DisputeResolution, error) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, malformed("disputeResolution", "an object")
	}
	var r DisputeResolution
	for _, m := range o.Members() {
		path := "disputeResolution." + m.Key
		var err error
		switch m.Key {
		case "method":
			r.Method, err = str(m.Value, path)
		case "jurisdiction":
			r.Jurisdiction, err = str(m.Value, path)
		case "contact":
			r.Contact, err = str(m.Value, path)
		case "clauseId":
			if r.ClauseID, err = str(m.Value, path); err == nil {
				c := r.ClauseID
				if len(c) != 73 || c[:9] != "sha256:0x" || !isHex(c[9:]) {
					err = refuse(CodeClauseIDMalformed, "The discovery document's disputeResolution.clauseId is not sha256:0x and 64 hex digits.")
				}
			}
		case "source":
			r.Source, err = str(m.Value, path)
		case "catalog":
			r.Catalog, err = str(m.Value, path)
		default:
			*ignored = append(*ignored, path)
		}
		if err != nil {
			return nil, err
		}
	}
	return &r, nil
}

func contact(v jsonv.Value, ignored *[]string) (*Contact, error) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, malformed("contact", "an object")
	}
	var c Contact
	for _, m := range o.Members() {
		path := "contact." + m.Key
		var err error
		switch m.Key {
		case "legal":
			c.Legal, err = str(m.Value, path)
		case "technical":
			c.Technical, err = str(m.Value, path)
		default:
			*ignored = append(*ignored, path)
		}
		if err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// JSON is the document as a JSON object, its members in LCP §2.4–§2.5's
// table order.
func (d *Document) JSON() *jsonv.Object {
	o := &jsonv.Object{}
	set := func(o *jsonv.Object, k, v string) {
		if v != "" {
			o.Set(k, v)
		}
	}
	set(o, "terms", d.Terms)
	set(o, "termsFormat", d.TermsFormat)
	set(o, "atrHash", d.ATRHash)
	if d.AcceptanceRequired != nil {
		o.Set("acceptanceRequired", *d.AcceptanceRequired)
	}
	if r := d.DisputeResolution; r != nil {
		ro := &jsonv.Object{}
		set(ro, "method", r.Method)
		set(ro, "jurisdiction", r.Jurisdiction)
		set(ro, "contact", r.Contact)
		set(ro, "clauseId", r.ClauseID)
		set(ro, "source", r.Source)
		set(ro, "catalog", r.Catalog)
		o.Set("disputeResolution", ro)
	}
	set(o, "returns", d.Returns)
	if c := d.Contact; c != nil {
		co := &jsonv.Object{}
		set(co, "legal", c.Legal)
		set(co, "technical", c.Technical)
		o.Set("contact", co)
	}
	set(o, "api", d.API)
	return o
}

// Emit writes the document a seller serves: the known members of v, checked
// as Parse checks them, in table order, as compact JSON. Members it does
// not know are left out.
func Emit(v jsonv.Value) ([]byte, error) {
	d, _, err := Decode(v)
	if err != nil {
		return nil, err
	}
	return d.Bytes()
}

// Bytes writes d as Emit does, refusing what Parse would refuse.
func (d *Document) Bytes() ([]byte, error) {
	b := jsonv.Marshal(d.JSON())
	// Read back, so that a Document built in Go meets the same rules as one
	// read from a seller.
	if _, _, err := Parse(b); err != nil {
		return nil, err
	}
	return b, nil
}

// ETag is the entity tag a seller serves the document's bytes with: the
// hex SHA-256 in quotes.
func ETag(b []byte) string {
	s := sha256.Sum256(b)
	return `"` + hex.EncodeToString(s[:]) + `"`
}
