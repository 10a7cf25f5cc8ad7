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
	"slices"

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
	b, err := appendJWS(nil, key, jsonv.Marshal(header), jsonv.Marshal(payload))
	return string(b), err
}

var enc = base64.RawURLEncoding

// appendJWS appends the compact ES256 JWS of the header and payload JSON
// to dst, written straight into the one buffer.
func appendJWS(dst []byte, key *ecdsa.PrivateKey, header, payload []byte) ([]byte, error) {
	start := len(dst)
	dst = slices.Grow(dst, enc.EncodedLen(len(header))+enc.EncodedLen(len(payload))+2+enc.EncodedLen(64))
	dst = enc.AppendEncode(dst, header)
	dst = append(dst, '.')
	dst = enc.AppendEncode(dst, payload)
	sum := sha256.Sum256(dst[start:])
	r, s, err := ecdsa.Sign(rand.Reader, key, sum[:])
	if err != nil {
		return nil, err
	}
	var sig [64]byte
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	dst = append(dst, '.')
	return enc.AppendEncode(dst, sig[:]), nil
}

// ElementDisclosure is the disclosure [salt, value] of an array element,
// with a fresh 16-byte salt.
func ElementDisclosure(value jsonv.Value) (string, error) {
	var salt [16]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return "", err
	}
	return elementDisclosure(salt, value), nil
}

func elementDisclosure(salt [16]byte, value jsonv.Value) string {
	return b64(jsonv.Marshal([]jsonv.Value{b64(salt[:]), value}))
}

// Layer is one L2 or L3 layer: claims, then _sd_alg, _sd (the mandates'
// digests) and delegate_payload ({"...": digest} per mandate), signed under
// key with header, followed by the mandates' disclosures and a final tilde.
func Layer(key *ecdsa.PrivateKey, header, claims *jsonv.Object, mandates ...*jsonv.Object) (string, error) {
	disclosures := make([]string, len(mandates))
	for i, m := range mandates {
		var salt [16]byte
		if _, err := rand.Read(salt[:]); err != nil {
			return "", err
		}
		disclosures[i] = elementDisclosure(salt, m)
	}
	return layer(key, header, claims, disclosures)
}

// layer is Layer with the disclosures made: the JWS, each disclosure and
// its tilde written into one buffer.
func layer(key *ecdsa.PrivateKey, header, claims *jsonv.Object, disclosures []string) (string, error) {
	digests := make([]string, len(disclosures))
	size := 1
	for i, d := range disclosures {
		digests[i] = sdjwt.Digest(d)
		size += len(d) + 1
	}
	payload := layerPayload(claims, digests)
	h := jsonv.Marshal(header)
	out := make([]byte, 0, enc.EncodedLen(len(h))+enc.EncodedLen(len(payload))+2+enc.EncodedLen(64)+size)
	out, err := appendJWS(out, key, h, payload)
	if err != nil {
		return "", err
	}
	out = append(out, '~')
	for _, d := range disclosures {
		out = append(out, d...)
		out = append(out, '~')
	}
	return string(out), nil
}

// layerPayload is the JSON of claims with _sd_alg, _sd and
// delegate_payload set as jsonv's Set would (at the end, or in the place
// of a member of the same name): written after claims' own members when
// claims has none of the three, which is how LayerClaims makes them.
func layerPayload(claims *jsonv.Object, digests []string) []byte {
	if claims == nil || claims.Has("_sd_alg") || claims.Has("_sd") || claims.Has("delegate_payload") {
		payload := claims.Clone()
		if payload == nil {
			payload = jsonv.Obj()
		}
		sd := make([]jsonv.Value, len(digests))
		refs := make([]jsonv.Value, len(digests))
		for i, d := range digests {
			sd[i], refs[i] = d, jsonv.Obj("...", d)
		}
		payload.Set("_sd_alg", "sha-256")
		payload.Set("_sd", sd)
		payload.Set("delegate_payload", refs)
		return jsonv.Marshal(payload)
	}
	b := jsonv.AppendMarshal(make([]byte, 0, 256+100*len(digests)), claims)
	b = b[:len(b)-1] // its closing brace
	if claims.Len() > 0 {
		b = append(b, ',')
	}
	b = append(b, `"_sd_alg":"sha-256","_sd":[`...)
	for i, d := range digests {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonv.AppendString(b, d)
	}
	b = append(b, `],"delegate_payload":[`...)
	for i, d := range digests {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"...":`...)
		b = jsonv.AppendString(b, d)
		b = append(b, '}')
	}
	return append(b, "]}"...)
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
