package mpp

import (
	"github.com/termsgate/termsgate/jsonv"
)

// Checked is a challenge as CheckChallenge read it.
type Checked struct {
	Challenge *jsonv.Object
	Intent    string
	Method    string
	Request   *jsonv.Object // the decoded request
	Details   *jsonv.Object // request.methodDetails, empty when absent
	Expires   int64         // Unix seconds of expires
	Pairings  []string      // the pairings the challenge offers, in the order offered
}

// IsChallengeShape: an object whose realm, method, intent and request are
// strings, and whose id, expires, digest, description, header and opaque are
// strings where present.
func IsChallengeShape(v jsonv.Value) (*jsonv.Object, bool) {
	c, ok := jsonv.AsObject(v)
	if !ok {
		return nil, false
	}
	for _, k := range []string{"realm", "method", "intent", "request"} {
		if _, ok := c.GetString(k); !ok {
			return nil, false
		}
	}
	for _, k := range []string{"id", "expires", "digest", "description", "header", "opaque"} {
		if x, has := c.Get(k); has {
			if _, ok := x.(string); !ok {
				return nil, false
			}
		}
	}
	return c, true
}

// CheckChallenge runs the challenge check of docs/protocol.md, "MPP", in order: shape
// (mpp/challenge-malformed), an intent and method served
// (mpp/not-this-pairing), expires (mpp/expires-required), request
// (mpp/request-malformed), opaque (mpp/opaque-malformed; and, for a
// challenge as issued, placed false, mpp/carrier-taken when it already holds
// an LCP key), methodDetails an object when present (mpp/request-malformed),
// then the method's own check, which names the pairings offered.
func CheckChallenge(v jsonv.Value, placed bool) (*Checked, error) {
	return checkChallenge(v, placed, nil)
}

// decodedParts are a challenge's request and opaque already decoded from
// that very challenge's text (ChallengeBound), or nil.
type decodedParts struct {
	request, opaque *jsonv.Object
}

// checkChallenge is CheckChallenge, reusing pre's decodings when given.
func checkChallenge(v jsonv.Value, placed bool, pre *decodedParts) (*Checked, error) {
	c, err := readChallenge(v, placed, pre, func(intentMethod string) bool {
		_, ok := methodChecks[intentMethod]
		return ok
	})
	if err != nil {
		return nil, err
	}
	pairings, err := methodChecks[c.Intent+"/"+c.Method](c.Request, c.Details)
	if err != nil {
		return nil, err
	}
	c.Pairings = pairings
	return c, nil
}

// readChallenge is checkChallenge up to the method's own check, for the
// intents and methods served names (others are mpp/not-this-pairing).
func readChallenge(v jsonv.Value, placed bool, pre *decodedParts, served func(intentMethod string) bool) (*Checked, error) {
	c, ok := IsChallengeShape(v)
	if !ok {
		return nil, refuse(CodeChallengeMalformed)
	}
	intent, _ := c.GetString("intent")
	method, _ := c.GetString("method")
	if !served(intent + "/" + method) {
		return nil, refuse(CodeNotThisPairing)
	}
	expiresText, has := c.GetString("expires")
	expires, ok := UnixOf(expiresText)
	if !has || !ok {
		return nil, refuse(CodeExpiresRequired)
	}
	var request *jsonv.Object
	if pre != nil {
		request = pre.request
	} else {
		reqText, _ := c.GetString("request")
		if request, ok = DecodeObject(reqText); !ok {
			return nil, refuse(CodeRequestMalformed)
		}
	}
	if opaque, has := c.GetString("opaque"); has {
		var m *jsonv.Object
		if pre != nil {
			m = pre.opaque
		} else if m, ok = DecodeStringMap(opaque); !ok {
			return nil, refuse(CodeOpaqueMalformed)
		}
		if !placed {
			for _, k := range lcpKeys {
				if m.Has(k) {
					return nil, refuse(CodeCarrierTaken)
				}
			}
		}
	}
	details := &jsonv.Object{}
	if md, has := request.Get("methodDetails"); has {
		if details, ok = jsonv.AsObject(md); !ok {
			return nil, refuse(CodeRequestMalformed)
		}
	}
	return &Checked{Challenge: c, Intent: intent, Method: method, Request: request, Details: details, Expires: expires}, nil
}

// Offers reports whether checked names pairing.
func (c *Checked) Offers(pairing string) bool {
	for _, p := range c.Pairings {
		if p == pairing {
			return true
		}
	}
	return false
}

// PairingsOf checks a challenge as issued and names its pairings.
func PairingsOf(v jsonv.Value) ([]string, error) {
	c, err := CheckChallenge(v, false)
	if err != nil {
		return nil, err
	}
	return c.Pairings, nil
}

// PairingsOfPlaced names the pairings a placed challenge offers: PairingsOf
// over the challenge without its opaque, so that the LCP keys the seller
// placed are not read as a taken carrier. None when it does not check.
func PairingsOfPlaced(v jsonv.Value) []string {
	c, ok := jsonv.AsObject(v)
	if !ok {
		return nil
	}
	issued := c.Clone()
	issued.Delete("opaque")
	p, err := PairingsOf(issued)
	if err != nil {
		return nil
	}
	return p
}

// OffersPlaced reports whether a placed challenge offers pairing.
func OffersPlaced(v jsonv.Value, pairing string) bool {
	for _, p := range PairingsOfPlaced(v) {
		if p == pairing {
			return true
		}
	}
	return false
}

// String returns o[k] when it is a string, else "".
func String(o *jsonv.Object, k string) string {
	s, _ := o.GetString(k)
	return s
}
