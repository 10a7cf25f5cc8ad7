package card

// card/visa-tap. Where H goes: an lcp-hash HTTP field of the agent's
// payment request, whose value is H (0x + 64 hex), listed as the bare
// component "lcp-hash" in every agent-payer-auth RFC 9421 message signature
// of the request (the Signature-Input member tagged agent-payer-auth).

import (
	"crypto/ed25519"
	"encoding/base64"
	"strconv"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// TAP names.
const (
	TAPField    = "lcp-hash"         // the field and the component the signature lists
	PayerTag    = "agent-payer-auth" // the tag of the signature that pays
	BrowsingTag = "agent-browser-auth"
	KindTAP     = "tap-field" // the signing request's kind
	tapNetwork  = "card:visa"
	tapWhereH   = "the lcp-hash field of the agent's request, listed as a covered component of every agent-payer-auth message signature (Signature-Input)"
)

// VisaTAP is card/visa-tap. The seller shows {legalContext}; the buyer's
// agent adds the lcp-hash field to its payment request and lists it in its
// agent-payer-auth signature, answering {signatureInput, signature,
// lcpHash}. The seller's TAP recognition verifies the signature.
type VisaTAP struct{}

var (
	_ rails.Pairing    = VisaTAP{}
	_ rails.Summarizer = VisaTAP{}
	_ rails.Inspector  = VisaTAP{}
)

func (VisaTAP) ID() string { return VisaTAPID }

func (VisaTAP) Pattern() rails.Pattern { return noProof("protocol-extension") }

func (VisaTAP) Read(doc jsonv.Value) (rails.Read, error) { return readShown(doc) }

func (VisaTAP) Choose(read rails.Read, account string, _ *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	return chooseDoc(read, account)
}

type tapUnsigned struct{ value string }

// Build is the field for the agent's signer: lcp-hash = h.
func (VisaTAP) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	doc, err := docOf(choice)
	if err != nil {
		return nil, err
	}
	if _, err := readShown(doc); err != nil {
		return nil, err
	}
	return &tapUnsigned{value: h.String()}, nil
}

// TAPBuild is what the agent's signer adds: {field, value, component}.
func TAPBuild(h string) (*jsonv.Object, error) {
	v, ok := normalHash(h)
	if !ok {
		return nil, refuse(CodeLegalContextMalformed)
	}
	return jsonv.Obj("field", TAPField, "value", v, "component", TAPField), nil
}

func (VisaTAP) Request(u rails.Unsigned) (rails.Request, error) {
	b, ok := u.(*tapUnsigned)
	if !ok {
		return nil, refuse(CodeChoiceMalformed)
	}
	return jsonv.Obj("kind", KindTAP, "field", TAPField, "value", b.value, "component", TAPField), nil
}

// Complete takes the agent's answer {signatureInput, signature, lcpHash}
// as the payment; Bound (run by the gate) then reads H from it.
func (VisaTAP) Complete(_ rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	o, ok := jsonv.AsObject(answer)
	if !ok {
		return rails.Completion{}, refuse(CodeSignatureMalformed)
	}
	si, ok1 := o.GetString("signatureInput")
	sg, ok2 := o.GetString("signature")
	lines, ok3 := o.Get("lcpHash")
	list, ok4 := jsonv.AsArray(lines)
	if !ok1 || !ok2 || !ok3 || !ok4 || si == "" || sg == "" {
		return rails.Completion{}, refuse(CodeSignatureMalformed)
	}
	return rails.Completion{Signed: jsonv.Obj("signatureInput", si, "signature", sg, "lcpHash", jsonv.Clone(list))}, nil
}

// TAPRequest is a TAP payment request as read: the signature members by
// label, the payer signatures' labels, and the one lcp-hash line.
type TAPRequest struct {
	Inputs     []sfMember
	Signatures []sfMember
	Payers     []string // labels tagged agent-payer-auth, in order
	Line       string   // the lcp-hash field line, SP and HTAB trimmed: what the signatures cover
	H          string
}

// ReadTAP is bound's whole check, in the reference's order: the
// Signature-Input dictionary (inner lists of Strings, no Byte Sequence
// parameter), the Signature dictionary (Byte Sequences), at least one
// agent-payer-auth signature (its tag a String), every one of them listing
// the bare "lcp-hash" component, one of them with its Signature member,
// then exactly one lcp-hash line holding 0x + 64 hex (SP/HTAB trimmed). No
// signature, key, window or nonce is verified here: that is the seller's
// TAP recognition step (VerifyTAP).
func ReadTAP(presented jsonv.Value) (*TAPRequest, error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return nil, refuse(CodeTAPInputMalformed)
	}
	si, ok := o.GetString("signatureInput")
	if !ok {
		return nil, refuse(CodeTAPInputMalformed)
	}
	if len(si) > MaxTAPField {
		return nil, refuse(CodeTooLarge)
	}
	inputs, err := parseDictionary(si)
	if err == errTooLarge {
		return nil, refuse(CodeTooLarge)
	}
	if err != nil || !isSignatureInput(inputs) {
		return nil, refuse(CodeTAPInputMalformed)
	}
	sg, ok := o.GetString("signature")
	if !ok {
		return nil, refuse(CodeTAPSignatureMalformed)
	}
	if len(sg) > MaxTAPField {
		return nil, refuse(CodeTooLarge)
	}
	sigs, err := parseDictionary(sg)
	if err == errTooLarge {
		return nil, refuse(CodeTooLarge)
	}
	if err != nil || !isSignatureSet(sigs) {
		return nil, refuse(CodeTAPSignatureMalformed)
	}
	r := &TAPRequest{Inputs: inputs, Signatures: sigs}
	for _, m := range inputs {
		if t, ok := param(m.Params, "tag"); ok && t.Kind == sfString && t.Str == PayerTag {
			r.Payers = append(r.Payers, m.Key)
		}
	}
	if len(r.Payers) == 0 {
		return nil, refuse(CodeTAPNoPayer)
	}
	signed := false
	for _, label := range r.Payers {
		m, _ := member(inputs, label)
		if !coversHash(m) {
			return nil, refuse(CodeTAPHashNotCovered)
		}
		if _, has := member(sigs, label); has {
			signed = true
		}
	}
	if !signed {
		return nil, refuse(CodeTAPSignatureMissing)
	}
	lv, ok := o.Get("lcpHash")
	lines, okA := jsonv.AsArray(lv)
	if !ok || !okA {
		return nil, refuse(CodeTAPFieldMalformed)
	}
	switch {
	case len(lines) == 0:
		return nil, refuse(CodeTAPFieldMissing)
	case len(lines) > 1:
		return nil, refuse(CodeTAPFieldRepeated)
	}
	line, ok := jsonv.AsString(lines[0])
	if !ok {
		return nil, refuse(CodeTAPFieldMalformed)
	}
	if len(line) > MaxTAPHashLine {
		return nil, refuse(CodeTooLarge)
	}
	r.Line = trimSPHTAB(line)
	h, ok := normalHash(r.Line)
	if !ok {
		return nil, refuse(CodeTAPFieldMalformed)
	}
	r.H = h
	return r, nil
}

func member(d []sfMember, key string) (sfMember, bool) {
	for _, m := range d {
		if m.Key == key {
			return m, true
		}
	}
	return sfMember{}, false
}

// isSignatureInput: every member an inner list of Strings; no parameter a
// Byte Sequence.
func isSignatureInput(d []sfMember) bool {
	for _, m := range d {
		if !m.IsList || !plainParams(m.Params) {
			return false
		}
		for _, it := range m.List {
			if it.Bare.Kind != sfString || !plainParams(it.Params) {
				return false
			}
		}
	}
	return true
}

// isSignatureSet: every member a Byte Sequence.
func isSignatureSet(d []sfMember) bool {
	for _, m := range d {
		if m.IsList || m.Item.Bare.Kind != sfBytes {
			return false
		}
	}
	return true
}

func plainParams(ps []sfParam) bool {
	for _, p := range ps {
		if p.is(sfBytes) {
			return false
		}
	}
	return true
}

// coversHash: the inner list holds the String lcp-hash with no parameters.
func coversHash(m sfMember) bool {
	for _, it := range m.List {
		if it.Bare.Kind == sfString && it.Bare.Str == TAPField && len(it.Params) == 0 {
			return true
		}
	}
	return false
}

func trimSPHTAB(s string) string {
	a, b := 0, len(s)
	for a < b && (s[a] == ' ' || s[a] == '\t') {
		a++
	}
	for b > a && (s[b-1] == ' ' || s[b-1] == '\t') {
		b--
	}
	return s[a:b]
}

// Bound is the one lcp-hash line, when every payer signature covers it.
func (VisaTAP) Bound(presented jsonv.Value) (string, error) {
	r, err := ReadTAP(presented)
	if err != nil {
		return "", err
	}
	return r.H, nil
}

// Summarize: the agent's signature grants the checkout's charge on the
// card network; the field names no amount, asset or payee, so a spend
// policy finds the summary incomplete and refuses (nothing is signed on
// doubt).
func (VisaTAP) Summarize(req rails.Request) (rails.Grant, error) {
	if k, _ := req.GetString("kind"); k != KindTAP {
		return rails.Grant{}, refuse(CodeChoiceMalformed)
	}
	if v, _ := req.GetString("value"); !isLowerHash(v) {
		return rails.Grant{}, refuse(CodeLegalContextMalformed)
	}
	return cardGrant(tapNetwork, ""), nil
}

func isLowerHash(s string) bool {
	v, ok := normalHash(s)
	return ok && v == s
}

// Inspect states where H sits and which signatures list it.
func (VisaTAP) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	r, err := ReadTAP(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	d := jsonv.Obj("payerSignatures", strs(r.Payers))
	if m, ok := member(r.Inputs, r.Payers[0]); ok {
		if k, ok := param(m.Params, "keyid"); ok && k.Kind == sfString {
			d.Set("keyid", k.Str)
		}
		if c, ok := param(m.Params, "created"); ok && c.Kind == sfInteger {
			d.Set("created", strconv.FormatInt(c.Int, 10))
		}
		if e, ok := param(m.Params, "expires"); ok && e.Kind == sfInteger {
			d.Set("expires", strconv.FormatInt(e.Int, 10))
		}
	}
	return rails.Inspection{Pairing: VisaTAPID, Kind: "http-message-signature", Grant: cardGrant(tapNetwork, ""),
		H: r.H, WhereH: tapWhereH, Details: d}, nil
}

func strs(s []string) []jsonv.Value {
	out := make([]jsonv.Value, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// TAPParams are the signature parameters an agent's RFC 9421 signer writes.
type TAPParams struct {
	Label     string // "sig2"
	KeyID     string
	Created   int64
	Expires   int64
	Nonce     string
	Authority string // the @authority of the request signed
	Path      string // its @path
}

// SignatureParams is the inner list an agent-payer-auth signature
// covering @authority, @path and lcp-hash declares, serialized.
func (p TAPParams) SignatureParams() string {
	list := []sfItem{{Bare: sfBare{Kind: sfString, Str: "@authority"}}, {Bare: sfBare{Kind: sfString, Str: "@path"}},
		{Bare: sfBare{Kind: sfString, Str: TAPField}}}
	return string(appendInnerList(nil, list, p.params()))
}

func (p TAPParams) params() []sfParam {
	return []sfParam{
		{Key: "created", Value: sfBare{Kind: sfInteger, Int: p.Created}},
		{Key: "keyid", Value: sfBare{Kind: sfString, Str: p.KeyID}},
		{Key: "alg", Value: sfBare{Kind: sfString, Str: "ed25519"}},
		{Key: "expires", Value: sfBare{Kind: sfInteger, Int: p.Expires}},
		{Key: "nonce", Value: sfBare{Kind: sfString, Str: p.Nonce}},
		{Key: "tag", Value: sfBare{Kind: sfString, Str: PayerTag}},
	}
}

// SignatureBase is RFC 9421 section 2.5's signature base for one
// signature: each covered component's line, then @signature-params, joined
// by LF. components maps a component name to its value (@authority, @path
// and HTTP field names in lower case).
func SignatureBase(list []string, components map[string]string, signatureParams string) (string, bool) {
	var b []byte
	for _, c := range list {
		v, ok := components[c]
		if !ok || c == "@signature-params" {
			return "", false
		}
		b = appendBare(b, sfBare{Kind: sfString, Str: c})
		b = append(b, ": "...)
		b = append(b, v...)
		b = append(b, '\n')
	}
	b = append(b, `"@signature-params": `...)
	b = append(b, signatureParams...)
	return string(b), true
}

// SignTAP is the agent's side for the tap-field request: the lcp-hash
// field set to h and an agent-payer-auth Ed25519 signature over
// @authority, @path and lcp-hash, as the payment {signatureInput,
// signature, lcpHash}.
func SignTAP(key ed25519.PrivateKey, p TAPParams, h string) (*jsonv.Object, error) {
	v, ok := normalHash(h)
	if !ok {
		return nil, refuse(CodeLegalContextMalformed)
	}
	sp := p.SignatureParams()
	base, _ := SignatureBase([]string{"@authority", "@path", TAPField},
		map[string]string{"@authority": p.Authority, "@path": p.Path, TAPField: v}, sp)
	sig := ed25519.Sign(key, []byte(base))
	return jsonv.Obj("signatureInput", p.Label+"="+sp,
		"signature", p.Label+"=:"+base64.StdEncoding.EncodeToString(sig)+":",
		"lcpHash", []jsonv.Value{v}), nil
}

// VerifyTAP is the seller's TAP recognition step for the payer signatures
// of a request to authority and path: each agent-payer-auth signature
// present must declare alg ed25519, be unexpired at now, and verify under
// pub over the signature base its Signature-Input declares. ok is false
// otherwise; H is what ReadTAP reads.
func VerifyTAP(presented jsonv.Value, authority, path string, pub ed25519.PublicKey, now int64) (string, bool) {
	r, err := ReadTAP(presented)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return "", false
	}
	components := map[string]string{"@authority": authority, "@path": path, TAPField: r.Line}
	verified := 0
	for _, label := range r.Payers {
		sm, has := member(r.Signatures, label)
		if !has {
			continue
		}
		m, _ := member(r.Inputs, label)
		alg, _ := param(m.Params, "alg")
		exp, hasExp := param(m.Params, "expires")
		if alg.Kind != sfString || alg.Str != "ed25519" || !hasExp || exp.Kind != sfInteger || exp.Int < now {
			return "", false
		}
		list := make([]string, len(m.List))
		for i, it := range m.List {
			list[i] = it.Bare.Str
		}
		base, ok := SignatureBase(list, components, string(appendInnerList(nil, m.List, m.Params)))
		sig, err := base64.StdEncoding.DecodeString(sm.Item.Bare.Str)
		if !ok || err != nil || !ed25519.Verify(pub, []byte(base), sig) {
			return "", false
		}
		verified++
	}
	return r.H, verified > 0
}
