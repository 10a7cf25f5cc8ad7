package mpp

import (
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// LegalContextPrefix starts the opaque legalContext value: "lcp:sha256:0x…".
const LegalContextPrefix = "lcp:sha256:"

// LegalContextValue is the opaque legalContext an LCP seller writes for h.
func LegalContextValue(h atr.Hash) string { return LegalContextPrefix + h.String() }

// ParseLegalContext reads "lcp:sha256:" and a hash in either case.
func ParseLegalContext(s string) (atr.Hash, bool) {
	rest, ok := strings.CutPrefix(s, LegalContextPrefix)
	if !ok {
		return atr.Hash{}, false
	}
	h, err := atr.ParseHash(rest)
	return h, err == nil
}

// Read is the buyer's reading of a challenge list (docs/protocol.md, "MPP", reading): the
// challenges whose opaque carries an LCP hash and an https link and whose id
// derives from that hash, in document order. They must agree on H, the link
// and the agreement URL (mpp/legal-context-conflict). With none kept, a link
// of another scheme seen on the way is mpp/link-not-https, a malformed one
// mpp/legal-context-malformed, and otherwise mpp/no-legal-context.
//
// Read's Options are the kept challenges; Required is the document itself.
// Which of them a pairing pays is Choose's business.
func Read(doc jsonv.Value) (rails.Read, error) {
	list, ok := jsonv.AsArray(doc)
	if !ok || len(list) > MaxChallenges {
		return rails.Read{}, refuse(CodeChallengeMalformed)
	}
	var (
		h                    atr.Hash
		link, agreement      string
		kept                 []jsonv.Value
		notHTTPS, malformed  bool
		haveH, haveAgreement bool
	)
	for _, v := range list {
		c, ok := IsChallengeShape(v)
		if !ok {
			continue
		}
		opaque, has := c.GetString("opaque")
		if !has {
			continue
		}
		m, ok := DecodeStringMap(opaque)
		if !ok {
			continue
		}
		lcText, has := m.GetString(KeyLegalContext)
		lc, ok := ParseLegalContext(lcText)
		if !has || !ok {
			continue
		}
		fromID, err := HOfChallenge(c)
		if err != nil || !fromID.Equal(lc) {
			continue // an id that is not this hash: not an LCP challenge
		}
		url, hasURL := m.GetString(KeyLegalContextURL)
		switch verdict(url, hasURL) {
		case atr.LinkOtherScheme:
			notHTTPS = true
			continue
		case atr.LinkMalformed:
			malformed = true
			continue
		}
		if haveH && (!h.Equal(lc) || link != url) {
			return rails.Read{}, refuse(CodeLegalContextConflict)
		}
		if a, has := m.GetString(KeyLegalContextAgreement); has {
			switch atr.CheckLink(a) {
			case atr.LinkOtherScheme:
				return rails.Read{}, refuse(CodeLinkNotHTTPS)
			case atr.LinkMalformed:
				return rails.Read{}, refuse(CodeLegalContextMalformed)
			}
			if haveAgreement && agreement != a {
				return rails.Read{}, refuse(CodeLegalContextConflict)
			}
			agreement, haveAgreement = a, true
		}
		h, link, haveH = lc, url, true
		kept = append(kept, c)
	}
	if !haveH {
		switch {
		case notHTTPS:
			return rails.Read{}, refuse(CodeLinkNotHTTPS)
		case malformed:
			return rails.Read{}, refuse(CodeLegalContextMalformed)
		}
		return rails.Read{}, refuse(CodeNoLegalContext)
	}
	return rails.Read{H: h.String(), Link: link, Agreement: agreement, Required: doc, Options: kept}, nil
}

// verdict is the link rule with its 2048-unit bound; an absent link is
// malformed.
func verdict(s string, present bool) atr.LinkVerdict {
	if !present {
		return atr.LinkMalformed
	}
	return atr.CheckLink(s)
}
