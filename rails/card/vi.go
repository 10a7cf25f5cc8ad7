package card

// What the two Mastercard Verifiable Intent pairings share: the merchant's
// checkout JWT that carries H, the checkout mandate the buyer's side signs
// over its digest, and the reading of the SD-JWT layers (L1 the issuer's
// card credential, L2 the user's mandate, L3b the agent's) through
// rails/sdjwt. The pairings' own files say where H goes.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"math/big"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/memo"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/sdjwt"
)

// Verifiable Intent names.
const (
	KindVI          = "vi-checkout-mandate"
	CheckoutVct     = "mandate.checkout.1"
	PaymentVct      = "mandate.payment.1"
	OpenCheckoutVct = "mandate.checkout.open.1"
	TypUser         = "kb-sd-jwt"    // L2 in Immediate mode, L3b
	TypUserDelegate = "kb-sd-jwt+kb" // L2 in Autonomous mode
	viNetwork       = "card:mastercard"
)

// CheckoutPayload reads a checkout JWT's payload: a string of at most
// MaxCheckoutJWT characters, three dot-separated visible-ASCII segments
// whose second is base64url of a JSON object (within jsonv's depth), with
// a legalContext member. The merchant's signature is not checked here.
func CheckoutPayload(doc jsonv.Value) (*jsonv.Object, error) {
	s, ok := jsonv.AsString(doc)
	if !ok {
		return nil, refuse(CodeVIMalformed)
	}
	if len(s) > MaxCheckoutJWT {
		return nil, refuse(CodeTooLarge)
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 || !visibleASCII(s) {
		return nil, refuse(CodeVIMalformed)
	}
	for _, p := range parts {
		if p == "" {
			return nil, refuse(CodeVIMalformed)
		}
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, refuse(CodeVIMalformed)
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		if errors.Is(err, jsonv.ErrTooDeep) {
			return nil, refuse(CodeTooLarge)
		}
		return nil, refuse(CodeVIMalformed)
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, refuse(CodeVIMalformed)
	}
	if !o.Has("legalContext") {
		return nil, refuse(CodeNoLegalContext)
	}
	return o, nil
}

// ReadCheckout is the legal context of a checkout JWT.
func ReadCheckout(doc jsonv.Value) (Shown, error) {
	c, err := readCheckout(doc)
	return c.shown, err
}

// checkoutRead is what the VI pairings take from a checkout JWT whose
// payload reads (CheckoutPayload): its legal context, or the code refusing
// it, its digest (checkout_hash) and its payload's iss.
type checkoutRead struct {
	shown     Shown
	shownCode string // ReadLegalContext's refusal, "" when the legal context reads
	digest    string
	iss       string
}

// checkoutReads keeps checkout JWTs whose payload read, by their exact
// text. One payment reads its checkout JWT five times (the seller's
// document, the build, the signer's summary, Finish's build and the
// read-back); the reading is a function of the text alone, so each later
// read is the first one's answer. Only plain values are kept (nothing a
// caller could change), never a payload that did not read, and at its size
// the memo starts again empty.
var checkoutReads = memo.New[string, checkoutRead](checkoutMemoSize)

const checkoutMemoSize = 64

// readCheckoutPayload is CheckoutPayload's refusal, or what checkoutRead
// keeps of the JWT, remembered in checkoutReads.
func readCheckoutPayload(doc jsonv.Value) (checkoutRead, error) {
	s, ok := jsonv.AsString(doc)
	if ok && len(s) <= MaxCheckoutJWT {
		if c, ok := checkoutReads.Get(s); ok {
			return c, nil
		}
	}
	p, err := CheckoutPayload(doc)
	if err != nil {
		return checkoutRead{}, err
	}
	c := checkoutRead{digest: sdjwt.Digest(s)}
	c.iss, _ = p.GetString("iss")
	if c.shown, err = ReadLegalContext(p); err != nil {
		c.shownCode = CodeLegalContextMalformed
		if r, ok := err.(*rails.Refusal); ok { // ReadLegalContext refuses only so
			c.shownCode = r.Code
		}
	}
	checkoutReads.Put(s, c)
	return c, nil
}

// readCheckout is readCheckoutPayload whose legal context also reads.
func readCheckout(doc jsonv.Value) (checkoutRead, error) {
	c, err := readCheckoutPayload(doc)
	if err == nil && c.shownCode != "" {
		return checkoutRead{}, refuse(c.shownCode)
	}
	return c, err
}

func readCheckoutShown(doc jsonv.Value) (rails.Read, error) {
	s, err := ReadCheckout(doc)
	if err != nil {
		return rails.Read{}, err
	}
	return rails.Read{H: s.H, Link: s.Link, Agreement: s.Agreement, Required: doc, Options: []jsonv.Value{doc}}, nil
}

// VIBuild is the checkout mandate over the checkout JWT doc, which must
// carry h: {checkoutMandate: {vct, checkout_jwt, checkout_hash},
// transactionId}, checkout_hash and transactionId both the JWT's digest
// (base64url SHA-256).
func VIBuild(doc jsonv.Value, h string) (*jsonv.Object, error) {
	c, err := readCheckout(doc)
	if err != nil {
		return nil, err
	}
	want, ok := normalHash(h)
	if !ok || want != c.shown.H {
		return nil, refuse(CodeVILegalContextConflict)
	}
	jwt, _ := jsonv.AsString(doc)
	d := c.digest
	return jsonv.Obj("checkoutMandate", jsonv.Obj("vct", CheckoutVct, "checkout_jwt", jwt, "checkout_hash", d),
		"transactionId", d), nil
}

// sdCode maps the SD-JWT reader's codes to the card ones.
func sdCode(err error) error {
	switch sdjwt.Code(err) {
	case sdjwt.Unreferenced:
		return refuse(CodeVIUnreferenced)
	case sdjwt.TooLarge:
		return refuse(CodeTooLarge)
	}
	return refuse(CodeVIMalformed)
}

// readLayer reads one L2 or L3b layer: a JWS, one to MaxVIDisclosures
// disclosures and an empty last part, header alg ES256 and typ, payload
// _sd_alg sha-256 and a delegate_payload array of {"...": string}.
func readLayer(v jsonv.Value, typ string) (*sdjwt.Presentation, error) {
	s, ok := jsonv.AsString(v)
	if !ok {
		return nil, refuse(CodeVIMalformed)
	}
	if len(s) > MaxVILayer {
		return nil, refuse(CodeTooLarge)
	}
	n := strings.Count(s, "~")
	if n < 2 || !strings.HasSuffix(s, "~") {
		return nil, refuse(CodeVIMalformed)
	}
	if n-1 > MaxVIDisclosures {
		return nil, refuse(CodeTooLarge)
	}
	p, err := sdjwt.Parse(s)
	if err != nil {
		return nil, sdCode(err)
	}
	if alg, _ := p.Issuer.Header.GetString("alg"); alg != "ES256" {
		return nil, refuse(CodeVITyp)
	}
	if t, _ := p.Issuer.Header.GetString("typ"); t != typ {
		return nil, refuse(CodeVITyp)
	}
	if a, _ := p.Issuer.Payload.GetString("_sd_alg"); a != "sha-256" {
		return nil, refuse(CodeVIMalformed)
	}
	dv, _ := p.Issuer.Payload.Get("delegate_payload")
	list, ok := jsonv.AsArray(dv)
	if !ok {
		return nil, refuse(CodeVIMalformed)
	}
	for _, e := range list {
		o, ok := jsonv.AsObject(e)
		if !ok || o.Len() != 1 {
			return nil, refuse(CodeVIMalformed)
		}
		if _, ok := o.GetString("..."); !ok {
			return nil, refuse(CodeVIMalformed)
		}
	}
	return p, nil
}

// mandates are the objects a layer's delegate_payload resolves to: only
// the disclosures its signed payload references.
func mandates(p *sdjwt.Presentation) []*jsonv.Object {
	v, _ := p.Claims.Get("delegate_payload")
	list, _ := jsonv.AsArray(v)
	var out []*jsonv.Object
	for _, e := range list {
		if o, ok := jsonv.AsObject(e); ok {
			out = append(out, o)
		}
	}
	return out
}

// Mandate is what a layer's one checkout mandate says.
type Mandate struct {
	H           string
	Link        string
	CheckoutJWT string
	Digest      string
	Payment     *jsonv.Object // the referenced mandate.payment.1, nil when none is disclosed
}

// checkoutMandate is the layer's one referenced mandate.checkout.1 after
// its checks: its checkout_jwt carries a legal context, checkout_hash is
// that JWT's digest, and every referenced mandate.payment.1's
// transaction_id equals it.
func checkoutMandate(p *sdjwt.Presentation) (*Mandate, error) {
	all := mandates(p)
	var checkouts []*jsonv.Object
	for _, m := range all {
		if vct, _ := m.GetString("vct"); vct == CheckoutVct {
			checkouts = append(checkouts, m)
		}
	}
	if len(checkouts) != 1 {
		return nil, refuse(CodeVINoCheckoutMandate)
	}
	cj, _ := checkouts[0].Get("checkout_jwt")
	c, err := readCheckout(cj)
	if err != nil {
		return nil, err
	}
	jwt, _ := jsonv.AsString(cj)
	d := c.digest
	if ch, _ := checkouts[0].GetString("checkout_hash"); ch != d {
		return nil, refuse(CodeVICheckoutHashMismatch)
	}
	out := &Mandate{H: c.shown.H, Link: c.shown.Link, CheckoutJWT: jwt, Digest: d}
	for _, m := range all {
		if vct, _ := m.GetString("vct"); vct == PaymentVct {
			if id, _ := m.GetString("transaction_id"); id != d {
				return nil, refuse(CodeVITransactionIDMismatch)
			}
			out.Payment = m
		}
	}
	return out, nil
}

// jwkOf is cnf.jwk when it is an EC P-256 public JWK with string x and y.
func jwkOf(cnf jsonv.Value) (*jsonv.Object, bool) {
	c, ok := jsonv.AsObject(cnf)
	if !ok {
		return nil, false
	}
	k, ok := c.GetObject("jwk")
	if !ok {
		return nil, false
	}
	kty, _ := k.GetString("kty")
	crv, _ := k.GetString("crv")
	_, okX := k.GetString("x")
	_, okY := k.GetString("y")
	return k, kty == "EC" && crv == "P-256" && okX && okY
}

// PublicKeyOf reads an EC P-256 JWK's point; false when it is not one.
func PublicKeyOf(jwk *jsonv.Object) (*ecdsa.PublicKey, bool) {
	xs, _ := jwk.GetString("x")
	ys, _ := jwk.GetString("y")
	x, err1 := base64.RawURLEncoding.DecodeString(xs)
	y, err2 := base64.RawURLEncoding.DecodeString(ys)
	if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
		return nil, false
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		return nil, false
	}
	return pub, true
}

// verifyES256 checks a layer's JWS under jwk: a key that is no P-256 point
// is card/vi-key-malformed, any other failure card/vi-signature-invalid.
func verifyES256(j *sdjwt.JWT, jwk *jsonv.Object) error {
	sum := sha256.Sum256([]byte(j.Signed))
	xs, _ := jwk.GetString("x")
	ys, _ := jwk.GetString("y")
	key := es256Key(sum, j.Signature, xs, ys)
	if _, ok := verifiedES256.Get(key); ok {
		return nil
	}
	pub, ok := PublicKeyOf(jwk)
	if !ok {
		return refuse(CodeVIKeyMalformed)
	}
	if len(j.Signature) != 64 {
		return refuse(CodeVISignatureInvalid)
	}
	r := new(big.Int).SetBytes(j.Signature[:32])
	s := new(big.Int).SetBytes(j.Signature[32:])
	if !ecdsa.Verify(pub, sum[:], r, s) {
		return refuse(CodeVISignatureInvalid)
	}
	verifiedES256.Put(key, struct{}{})
	return nil
}

// verifiedES256 remembers signatures that verified, by what was signed, the
// signature and the key's text. An autonomous payment presents the user's
// layer unchanged from one payment to the next, and verifying the same bytes
// under the same key always gives the same answer, so each payment's
// read-back verifies only the layer it signed anew. Only successes are kept
// (so a key found here is one PublicKeyOf read), and the memo is bounded: at
// its size it starts again empty.
var verifiedES256 = memo.New[[32]byte, struct{}](es256MemoSize)

const es256MemoSize = 256

// es256Key names one verification: SHA-256 over the signed bytes' digest,
// the signature and the JWK's x and y as written, each after its length so
// that no two different triples run together the same.
func es256Key(signed [32]byte, sig []byte, x, y string) [32]byte {
	h := sha256.New()
	h.Write(signed[:])
	var n [24]byte
	binary.BigEndian.PutUint64(n[0:], uint64(len(sig)))
	binary.BigEndian.PutUint64(n[8:], uint64(len(x)))
	binary.BigEndian.PutUint64(n[16:], uint64(len(y)))
	h.Write(n[:])
	h.Write(sig)
	io.WriteString(h, x)
	io.WriteString(h, y)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// viUnsigned is a built checkout mandate.
type viUnsigned struct{ request *jsonv.Object }

func viBuild(choice jsonv.Value, h atr.Hash) (rails.Unsigned, error) {
	doc, err := docOf(choice)
	if err != nil {
		return nil, err
	}
	m, err := VIBuild(doc, h.String())
	if err != nil {
		return nil, err
	}
	req := jsonv.Obj("kind", KindVI)
	for _, mem := range m.Members() {
		req.Set(mem.Key, mem.Value)
	}
	return &viUnsigned{request: req}, nil
}

func viRequest(u rails.Unsigned) (rails.Request, error) {
	b, ok := u.(*viUnsigned)
	if !ok {
		return nil, refuse(CodeChoiceMalformed)
	}
	return b.request.Clone(), nil
}

// viComplete takes the answer's named layers, each a non-empty string.
func viComplete(answer jsonv.Value, keys ...string) (rails.Completion, error) {
	o, ok := jsonv.AsObject(answer)
	if !ok {
		return rails.Completion{}, refuse(CodeSignatureMalformed)
	}
	out := jsonv.Obj()
	for _, k := range keys {
		s, ok := o.GetString(k)
		if !ok || s == "" {
			return rails.Completion{}, refuse(CodeSignatureMalformed)
		}
		out.Set(k, s)
	}
	return rails.Completion{Signed: out}, nil
}

// viSummarize reads a vi-checkout-mandate request: the checkout the
// mandate names, on Mastercard's network; its payee is the checkout JWT's
// issuer. No amount or asset is in the checkout mandate, so a spend policy
// finds the summary incomplete and refuses.
func viSummarize(req rails.Request) (rails.Grant, error) {
	if k, _ := req.GetString("kind"); k != KindVI {
		return rails.Grant{}, refuse(CodeChoiceMalformed)
	}
	m, ok := req.GetObject("checkoutMandate")
	if !ok {
		return rails.Grant{}, refuse(CodeVIMalformed)
	}
	cj, _ := m.Get("checkout_jwt")
	c, err := readCheckoutPayload(cj)
	if err != nil {
		return rails.Grant{}, err
	}
	if ch, _ := m.GetString("checkout_hash"); ch != c.digest {
		return rails.Grant{}, refuse(CodeVICheckoutHashMismatch)
	}
	return cardGrant(viNetwork, c.iss), nil
}

// paymentGrant is what a disclosed mandate.payment.1 states: the payee's
// id, the currency and the amount in its minor units.
func paymentGrant(m *Mandate, payer string) rails.Grant {
	g := cardGrant(viNetwork, "")
	g.Payer = payer
	if c, err := readCheckoutPayload(m.CheckoutJWT); err == nil {
		g.Payee = c.iss
	}
	if m.Payment == nil {
		return g
	}
	if pe, ok := m.Payment.GetObject("payee"); ok {
		if id, ok := pe.GetString("id"); ok {
			g.Payee = id
		}
	}
	if pa, ok := m.Payment.GetObject("payment_amount"); ok {
		cur, _ := pa.GetString("currency")
		av, _ := pa.Get("amount")
		if n, ok := jsonv.AsSafeInt(av); ok && n >= 0 && cur != "" {
			g.Asset, g.Amount = cur, big.NewInt(n)
			g.Decimals = rails.KnownDecimals(viNetwork, cur)
		}
	}
	return g
}
