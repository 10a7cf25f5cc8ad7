package card

// The signing side of Verifiable Intent, for the buyer's wallet and agent
// (signer.VIWallet, signer.VIAgent), the demo's issuer and the tests: ES256
// compact JWS (r‖s, RFC 7518 section 3.4) and the layers' SD-JWT form, each
// mandate an array-element disclosure [salt, mandate] referenced from
// delegate_payload and listed in _sd. Members are written in the order
// given (compact JSON).

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/sdjwt"
)

// JWK is an EC P-256 public key as a JWK, with kid when not "".
func JWK(pub *ecdsa.PublicKey, kid string) (*jsonv.Object, error) {
	b, err := pub.Bytes()
	if err != nil || len(b) != 65 {
		return nil, errors.New("card: not a P-256 public key")
	}
	k := jsonv.Obj("kty", "EC", "crv", "P-256", "x", b64(b[1:33]), "y", b64(b[33:]))
	if kid != "" {
		k.Set("kid", kid)
	}
	return k, nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// SignJWS is the compact ES256 JWS of header and payload under key.
func SignJWS(key *ecdsa.PrivateKey, header, payload *jsonv.Object) (string, error) {
	signed := b64(jsonv.Marshal(header)) + "." + b64(jsonv.Marshal(payload))
	sum := sha256.Sum256([]byte(signed))
	r, s, err := ecdsa.Sign(rand.Reader, key, sum[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signed + "." + b64(sig), nil
}

// ElementDisclosure is the disclosure [salt, value] of an array element,
// with a fresh 16-byte salt.
func ElementDisclosure(value jsonv.Value) (string, error) {
	var salt [16]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return "", err
	}
	return b64(jsonv.Marshal([]jsonv.Value{b64(salt[:]), value})), nil
}

// Layer is one L2 or L3 layer: claims, then _sd_alg, _sd (the mandates'
// digests) and delegate_payload ({"...": digest} per mandate), signed under
// key with header, followed by the mandates' disclosures and a final tilde.
func Layer(key *ecdsa.PrivateKey, header, claims *jsonv.Object, mandates ...*jsonv.Object) (string, error) {
	payload := claims.Clone()
	disclosures := make([]string, len(mandates))
	sd := make([]jsonv.Value, len(mandates))
	refs := make([]jsonv.Value, len(mandates))
	for i, m := range mandates {
		d, err := ElementDisclosure(m)
		if err != nil {
			return "", err
		}
		disclosures[i] = d
		sd[i] = sdjwt.Digest(d)
		refs[i] = jsonv.Obj("...", sdjwt.Digest(d))
	}
	payload.Set("_sd_alg", "sha-256")
	payload.Set("_sd", sd)
	payload.Set("delegate_payload", refs)
	jws, err := SignJWS(key, header, payload)
	if err != nil {
		return "", err
	}
	out := jws + "~"
	for _, d := range disclosures {
		out += d + "~"
	}
	return out, nil
}

// IssueL1 is an issuer's card credential (L1) for the holder sub, binding
// the holder's key in cnf.jwk; no disclosures. panLastFour and scheme are
// what the issuer states of the card.
func IssueL1(issuer *ecdsa.PrivateKey, iss, sub string, holder *ecdsa.PublicKey, iat, exp int64, panLastFour, scheme string) (string, error) {
	jwk, err := JWK(holder, "")
	if err != nil {
		return "", err
	}
	payload := jsonv.Obj("iss", iss, "sub", sub, "iat", iat, "exp", exp, "vct", "https://credentials.mastercard.com/card",
		"cnf", jsonv.Obj("jwk", jwk), "pan_last_four", panLastFour, "scheme", scheme, "_sd_alg", "sha-256", "_sd", []jsonv.Value{})
	jws, err := SignJWS(issuer, jsonv.Obj("alg", "ES256", "typ", "sd+jwt", "kid", "issuer-1"), payload)
	if err != nil {
		return "", err
	}
	return jws + "~", nil
}

// LayerClaims are a layer's own claims: nonce, aud, iat, exp, and sd_hash
// naming the layer below.
func LayerClaims(nonce, aud string, iat, exp int64, below string) *jsonv.Object {
	return jsonv.Obj("nonce", nonce, "aud", aud, "iat", iat, "exp", exp, "sd_hash", sdjwt.Digest(below))
}

// PaymentMandate is the mandate.payment.1 that goes with a checkout
// mandate: its transaction_id is the checkout hash.
func PaymentMandate(instrument, payee *jsonv.Object, currency string, amount int64, checkoutHash string) *jsonv.Object {
	return jsonv.Obj("vct", PaymentVct, "payment_instrument", instrument,
		"payment_amount", jsonv.Obj("currency", currency, "amount", amount), "payee", payee, "transaction_id", checkoutHash)
}

// OpenCheckoutMandate is the user's delegation to the agent's key, limited
// to the merchants allowed.
func OpenCheckoutMandate(agent *ecdsa.PublicKey, kid string, allowed ...*jsonv.Object) (*jsonv.Object, error) {
	jwk, err := JWK(agent, kid)
	if err != nil {
		return nil, err
	}
	list := make([]jsonv.Value, len(allowed))
	for i, a := range allowed {
		list[i] = a
	}
	return jsonv.Obj("vct", OpenCheckoutVct, "cnf", jsonv.Obj("jwk", jwk),
		"constraints", []jsonv.Value{jsonv.Obj("type", "mandate.checkout.allowed_merchants", "allowed", list)}), nil
}

// CheckoutMandateOf is the checkout mandate of a vi-checkout-mandate
// request, checked: its checkout_hash is its checkout_jwt's digest.
func CheckoutMandateOf(req *jsonv.Object) (*jsonv.Object, error) {
	if _, err := viSummarize(req); err != nil {
		return nil, err
	}
	m, _ := req.GetObject("checkoutMandate")
	return m.Clone(), nil
}

// VerifyJWS checks a compact JWS's ES256 signature (r‖s) under pub: what a
// network checks of an issuer's L1, and of each layer under the key the
// layer below binds.
func VerifyJWS(j *sdjwt.JWT, pub *ecdsa.PublicKey) bool {
	jwk, err := JWK(pub, "")
	return err == nil && verifyES256(j, jwk) == nil
}
