package mpp

import (
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// This file reads challenges that publish no terms, for an unbound payment
// the payer opted into (docs/protocol.md, "Unbound payments"). Such a
// challenge's id is the seller's own (MPP recommends an HMAC it keeps), not
// one derived from H, and its opaque holds none of the LCP keys.

// CodeLegalContextPresent refuses to read, as a list without terms, one in
// which a challenge carries an LCP key: terms advertised are paid bound (and
// checked) or not at all.
const CodeLegalContextPresent = "mpp/legal-context-present"

// ReadPlain reads a challenge list that publishes no terms: Options are the
// challenges of challenge shape with a non-empty id, in document order; H,
// Link and Agreement stay empty. A challenge whose opaque carries an LCP key
// refuses the whole list (mpp/legal-context-present); none kept is
// mpp/no-payable-option.
func ReadPlain(doc jsonv.Value) (rails.Read, error) {
	list, ok := jsonv.AsArray(doc)
	if !ok || len(list) > MaxChallenges {
		return rails.Read{}, refuse(CodeChallengeMalformed)
	}
	var kept []jsonv.Value
	for _, v := range list {
		c, ok := IsChallengeShape(v)
		if !ok {
			continue
		}
		if opaque, has := c.GetString("opaque"); has {
			if m, ok := DecodeStringMap(opaque); ok {
				for _, k := range lcpKeys {
					if m.Has(k) {
						return rails.Read{}, refuse(CodeLegalContextPresent)
					}
				}
			}
		}
		if id, _ := c.GetString("id"); id == "" {
			continue
		}
		kept = append(kept, c)
	}
	if len(kept) == 0 {
		return rails.Read{}, refuse(CodeNoPayableOption)
	}
	return rails.Read{Required: doc, Options: kept}, nil
}

// PlainOfferFor is OfferFor for a challenge that publishes no terms: the
// challenge checked as issued (an LCP key in it is mpp/carrier-taken),
// offering pairing (mpp/not-this-pairing), with a non-empty id
// (mpp/challenge-malformed), and from an address (mpp/input-malformed).
func PlainOfferFor(choice jsonv.Value, pairing string) (*Offer, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, refuse(CodeInputMalformed)
	}
	challenge, ok := c.GetObject("challenge")
	if !ok {
		return nil, refuse(CodeInputMalformed)
	}
	checked, err := CheckChallenge(challenge, false)
	if err != nil {
		return nil, err
	}
	if !checked.Offers(pairing) {
		return nil, refuse(CodeNotThisPairing)
	}
	if id, _ := challenge.GetString("id"); id == "" {
		return nil, refuse(CodeChallengeMalformed)
	}
	from, _ := c.GetString("from")
	if !IsAddress(from) {
		return nil, refuse(CodeInputMalformed)
	}
	return &Offer{Checked: checked, Choice: c, From: from}, nil
}

// PlainEchoed reads a credential answering a challenge that publishes no
// terms: its shape and budget (mpp/credential-malformed), then the echoed
// challenge checked as issued and offering pairing. Bound.H stays zero.
func PlainEchoed(presented jsonv.Value, pairing string) (*Bound, error) {
	cred, challenge, payload, ok := credentialShape(presented)
	if !ok || !credentialWithin(cred) {
		return nil, refuse(CodeCredentialMalformed)
	}
	checked, err := CheckChallenge(challenge, false)
	if err != nil {
		return nil, err
	}
	if !checked.Offers(pairing) {
		return nil, refuse(CodeNotThisPairing)
	}
	return &Bound{Credential: cred, Challenge: challenge, Payload: payload, Checked: checked}, nil
}
