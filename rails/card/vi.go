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
	"errors"
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
	p, err := CheckoutPayload(doc)
	if err != nil {
		return Shown{}, err
	}
	return ReadLegalContext(p)
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
	s, err := ReadCheckout(doc)
	if err != nil {
		return nil, err
	}
	want, ok := normalHash(h)
	if !ok || want != s.H {
		return nil, refuse(CodeVILegalContextConflict)
	}
	jwt, _ := jsonv.AsString(doc)
	d := sdjwt.Digest(jwt)
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
	s, err := ReadCheckout(cj)
	if err != nil {
		return nil, err
	}
	jwt, _ := jsonv.AsString(cj)
	d := sdjwt.Digest(jwt)
	if ch, _ := checkouts[0].GetString("checkout_hash"); ch != d {
		return nil, refuse(CodeVICheckoutHashMismatch)
	}
	out := &Mandate{H: s.H, Link: s.Link, CheckoutJWT: jwt, Digest: d}
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
	pub, ok := PublicKeyOf(jwk)
	if !ok {
		return refuse(CodeVIKeyMalformed)
	}
	if len(j.Signature) != 64 {
		return refuse(CodeVISignatureInvalid)
	}
	sum := sha256.Sum256([]byte(j.Signed))
	key := es256Key(sum, j.Signature, pub)
	if _, ok := verifiedES256.Get(key); ok {
		return nil
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
// signature and the key. An autonomous payment presents the user's layer
// unchanged from one payment to the next, and verifying the same bytes under
// the same key always gives the same answer, so each payment's read-back
// verifies only the layer it signed anew. Only successes are kept, and the
// memo is bounded: at its size it starts again empty.
var verifiedES256 = memo.New[[32]byte, struct{}](es256MemoSize)

const es256MemoSize = 256

// es256Key names one verification: SHA-256 over the signed bytes' digest,
// the signature and the key's uncompressed point.
func es256Key(signed [32]byte, sig []byte, pub *ecdsa.PublicKey) [32]byte {
	h := sha256.New()
	h.Write(signed[:])
	h.Write(sig)
	xy, _ := pub.Bytes() // PublicKeyOf made it: a valid P-256 point
	h.Write(xy)
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
	p, err := CheckoutPayload(cj)
	if err != nil {
		return rails.Grant{}, err
	}
	jwt, _ := jsonv.AsString(cj)
	if ch, _ := m.GetString("checkout_hash"); ch != sdjwt.Digest(jwt) {
		return rails.Grant{}, refuse(CodeVICheckoutHashMismatch)
	}
	iss, _ := p.GetString("iss")
	return cardGrant(viNetwork, iss), nil
}

// paymentGrant is what a disclosed mandate.payment.1 states: the payee's
// id, the currency and the amount in its minor units.
func paymentGrant(m *Mandate, payer string) rails.Grant {
	g := cardGrant(viNetwork, "")
	g.Payer = payer
	if p, err := CheckoutPayload(m.CheckoutJWT); err == nil {
		g.Payee, _ = p.GetString("iss")
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
