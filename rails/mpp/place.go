package mpp

import (
	"crypto/sha256"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// This file is the seller's side of the read, for termsgate's own sellers
// (the demo, tests) and for checking the vectors' placed challenges.

// boundParams are the challenge members MPP's binding covers, in order.
var boundParams = []string{"realm", "method", "intent", "request", "expires", "digest", "header", "opaque"}

// Place returns a copy of doc in which the challenge whose bound members
// equal option's (opaque compared by its seller keys) carries the id derived
// from h and an opaque of the seller's keys plus legalContext,
// legalContextUrl and, when agreement is not empty,
// legalContextAgreementUrl, written as base64url of canonical JSON. A Tempo
// subscription's id is bare, and a list may place only one
// (mpp/witness-taken).
func Place(doc []jsonv.Value, h atr.Hash, link string, option *jsonv.Object, agreement string) ([]jsonv.Value, error) {
	if len(doc) > MaxChallenges {
		return nil, refuse(CodeChallengeMalformed)
	}
	for _, c := range doc {
		if _, ok := IsChallengeShape(c); !ok {
			return nil, refuse(CodeChallengeMalformed)
		}
	}
	if err := linkRefusal(link); err != nil {
		return nil, err
	}
	if agreement != "" {
		if err := linkRefusal(agreement); err != nil {
			return nil, err
		}
	}
	if _, err := CheckChallenge(option, false); err != nil {
		return nil, err
	}
	at := -1
	for i, c := range doc {
		if o, _ := jsonv.AsObject(c); sameBound(o, option) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, refuse(CodeNotThisPairing)
	}
	target, _ := jsonv.AsObject(doc[at])
	subscription := IsSubscription(option)
	if subscription {
		for j, c := range doc {
			if o, _ := jsonv.AsObject(c); j != at && IsSubscription(o) {
				return nil, refuse(CodeWitnessTaken)
			}
		}
	}
	present := &jsonv.Object{}
	if opaque, has := target.GetString("opaque"); has {
		m, ok := DecodeStringMap(opaque)
		if !ok {
			return nil, refuse(CodeOpaqueMalformed)
		}
		present = m
	}
	lcp := jsonv.Obj(KeyLegalContext, LegalContextValue(h), KeyLegalContextURL, link)
	if agreement != "" {
		lcp.Set(KeyLegalContextAgreement, agreement)
	}
	for _, k := range lcpKeys {
		had, has := present.GetString(k)
		if !has {
			continue
		}
		same := false
		if k == KeyLegalContext {
			old, ok := ParseLegalContext(had)
			same = ok && old.Equal(h)
		} else {
			want, _ := lcp.GetString(k)
			same = had == want
		}
		if !same {
			return nil, refuse(CodeLegalContextConflict)
		}
	}
	merged := sellerMap(present)
	for _, m := range lcp.Members() {
		merged.Set(m.Key, m.Value)
	}
	text := jsonv.Canonical(merged)
	if len(text) > MaxDecoded {
		return nil, refuse(CodeOpaqueMalformed)
	}
	id := BareID(h)
	if !subscription {
		id, _ = ChallengeID(h, at)
	}
	out := make([]jsonv.Value, len(doc))
	for i, c := range doc {
		o, _ := jsonv.AsObject(c)
		out[i] = o.Clone()
	}
	placed := target.Clone()
	placed.Set("id", id)
	placed.Set("opaque", EncodeB64URL(text))
	out[at] = placed
	return out, nil
}

func linkRefusal(link string) error {
	switch atr.CheckLink(link) {
	case atr.LinkOK:
		return nil
	case atr.LinkOtherScheme:
		return refuse(CodeLinkNotHTTPS)
	}
	return refuse(CodeLegalContextMalformed)
}

// sameBound compares the bound members, opaque by its seller keys.
func sameBound(a, b *jsonv.Object) bool {
	for _, k := range boundParams {
		if k == "opaque" {
			continue
		}
		x, hasX := a.Get(k)
		y, hasY := b.Get(k)
		if hasX != hasY || x != y {
			return false
		}
	}
	oa, hasA := a.GetString("opaque")
	ob, hasB := b.GetString("opaque")
	if !hasA && !hasB {
		return true
	}
	ma, mb := &jsonv.Object{}, &jsonv.Object{}
	var ok bool
	if hasA {
		if ma, ok = DecodeStringMap(oa); !ok {
			return false
		}
	}
	if hasB {
		if mb, ok = DecodeStringMap(ob); !ok {
			return false
		}
	}
	return string(jsonv.Canonical(sellerMap(ma))) == string(jsonv.Canonical(sellerMap(mb)))
}

// sellerMap is an opaque map without the LCP keys.
func sellerMap(m *jsonv.Object) *jsonv.Object {
	out := &jsonv.Object{}
	for _, mem := range m.Members() {
		if !contains(lcpKeys, mem.Key) {
			out.Set(mem.Key, mem.Value)
		}
	}
	return out
}

// IssuedDigest is SHA-256 of the canonical JSON of what the seller issued:
// realm, method and intent, the decoded request (its string when it does not
// decode), expires, digest and header where present, and opaque decoded
// without the LCP keys (left out when that empties it; its string when it
// does not decode). Neither the id nor the description is covered.
func IssuedDigest(v jsonv.Value) (atr.Hash, error) {
	c, ok := IsChallengeShape(v)
	if !ok {
		return atr.Hash{}, refuse(CodeChallengeMalformed)
	}
	out := jsonv.Obj("realm", String(c, "realm"), "method", String(c, "method"), "intent", String(c, "intent"))
	reqText := String(c, "request")
	if req, ok := DecodeObject(reqText); ok {
		out.Set("request", req) // no carrier to strip: EVM and Tempo carry H outside request
	} else {
		out.Set("request", reqText)
	}
	for _, k := range []string{"expires", "digest", "header"} {
		if s, has := c.GetString(k); has {
			out.Set(k, s)
		}
	}
	if opaque, has := c.GetString("opaque"); has {
		if m, ok := DecodeStringMap(opaque); !ok {
			out.Set("opaque", opaque)
		} else if seller := sellerMap(m); seller.Len() > 0 {
			out.Set("opaque", seller)
		}
	}
	return atr.Hash(sha256.Sum256(jsonv.Canonical(out))), nil
}

// Problem is the MPP problem type and HTTP status a seller answers a refused
// credential with (docs/protocol.md, "MPP"; vector MV10).
func Problem(code string) (status int, problemType string) {
	const base = "https://paymentauth.org/problems/"
	switch code {
	case CodeCredentialMalformed, CodeRequestMalformed, CodeOpaqueMalformed:
		return 402, base + "malformed-credential"
	case CodeIDNotOurs, "claim/unknown", "claim/in-progress", "claim/paid", "claim/not-this-request":
		return 402, base + "invalid-challenge"
	case "claim/lapsed":
		return 402, base + "payment-expired"
	case "claim/store-unavailable":
		return 500, base + "internal-payment-error"
	}
	return 402, base + "verification-failed"
}
