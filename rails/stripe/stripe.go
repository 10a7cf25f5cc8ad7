// Package stripe holds MPP's Stripe pairings, mpp/charge/stripe and
// mpp/subscription/stripe (docs/stripe.md). The buyer pays with something
// Stripe issued to it, never with a signature: a Shared Payment Token for a
// charge, a reusable PaymentMethod for a subscription. The operator obtains
// it from Stripe and supplies it as a buyer input; the gate checks the
// seller's challenge and the terms, and writes the credential that carries
// it. It never calls Stripe, and tokens are masked in everything it prints
// (Mask).
//
// Nothing Stripe or the buyer signs carries H, so neither payment is a
// public proof: the agreement exchange runs first, and Bound answers
// mpp/no-signed-place once the echoed challenge reads.
package stripe

import (
	"regexp"
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// CodeNoSignedPlace: nothing the buyer or Stripe signs carries H.
const CodeNoSignedPlace = "mpp/no-signed-place"

// Network is the name the grants of these pairings carry: Stripe is no
// chain, and the seller is named by its Business Network profile.
const Network = "stripe"

// The inputs: a charge's Shared Payment Token; a subscription's
// PaymentMethod and, optionally, the seller's Customer for the payer.
// Stripe ids are a prefix, "_" and letters, digits or "_".
var (
	sptPattern      = regexp.MustCompile(`^spt_[A-Za-z0-9_]{1,250}$`)
	pmPattern       = regexp.MustCompile(`^pm_[A-Za-z0-9_]{1,250}$`)
	customerPattern = regexp.MustCompile(`^cus_[A-Za-z0-9_]{1,250}$`)
	networkPattern  = regexp.MustCompile(`^[\x21-\x7e]{1,255}$`)
	currencyPattern = regexp.MustCompile(`^[a-z]{3}$`)
)

// Mask shows a Stripe token by its prefix and last four characters only:
// "spt_…kJlW". What is not a token of that shape is all dots.
func Mask(token string) string {
	prefix, rest, ok := strings.Cut(token, "_")
	if !ok || len(rest) < 8 || len(prefix) > 8 {
		return "…"
	}
	return prefix + "_…" + rest[len(rest)-4:]
}

// metadataPath is where H's LCP string goes in the request.
var metadataPath = []string{"methodDetails", "metadata", mpp.StripeLegalContextKey}

// carrier reads methodDetails.metadata.legal_context of a decoded request.
func carrier(request *jsonv.Object) (string, bool, bool) {
	d, ok := request.GetObject("methodDetails")
	if !ok {
		return "", false, true
	}
	m, ok := d.GetObject("metadata")
	if !ok {
		return "", false, true
	}
	v, has := m.Get(mpp.StripeLegalContextKey)
	if !has {
		return "", false, true
	}
	s, ok := v.(string)
	return s, true, ok
}

// advertise is the seller's side: the offer is one of pairing's intent and
// method (mpp/not-this-pairing); its metadata has room for legal_context
// within Stripe's bounds (mpp/metadata-malformed) and networkId is a
// Stripe id (mpp/request-malformed); it is placed (id, opaque,
// the agreement URL); then legal_context is set to H's LCP string, an
// issued value other than that one being mpp/carrier-occupied. The request
// is written again as base64url of its canonical JSON, at most 8 KiB.
func advertise(pairing string, doc []jsonv.Value, h atr.Hash, link string, offer *jsonv.Object, agreement string) ([]jsonv.Value, error) {
	_, intent, method := splitPairing(pairing)
	if mpp.String(offer, "intent") != intent || mpp.String(offer, "method") != method {
		return nil, rails.Refuse(mpp.CodeNotThisPairing)
	}
	if request, ok := mpp.DecodeObject(mpp.String(offer, "request")); ok {
		// The buyer reads only a challenge naming the seller's profile.
		d, _ := request.GetObject("methodDetails")
		if n, _ := d.GetString("networkId"); !networkPattern.MatchString(n) {
			return nil, rails.Refuse(mpp.CodeRequestMalformed)
		}
		if d, ok := request.GetObject("methodDetails"); ok {
			m, has := d.Get("metadata")
			extra := 1
			if mo, ok := jsonv.AsObject(m); ok && mo.Has(mpp.StripeLegalContextKey) {
				extra = 0
			}
			if err := mpp.StripeMetadataValid(m, has, extra); err != nil {
				return nil, err
			}
		}
	}
	placed, err := mpp.Place(doc, h, link, offer, agreement)
	if err != nil {
		return nil, err
	}
	value := mpp.LegalContextValue(h)
	for i, c := range placed {
		// Place wrote the id of H at the target's position.
		o, _ := jsonv.AsObject(c)
		if id, _ := mpp.ChallengeID(h, i); o == nil || mpp.String(o, "id") != id || !sameIssued(o, offer) {
			continue
		}
		request, ok := mpp.DecodeObject(mpp.String(o, "request"))
		if !ok {
			return nil, rails.Refuse(mpp.CodeRequestMalformed)
		}
		issued, has, isString := carrier(request)
		if has && (!isString || issued != value) {
			return nil, rails.Refuse(CodeCarrierOccupied)
		}
		text := jsonv.Canonical(withMember(request, metadataPath, value))
		if len(text) > mpp.MaxDecoded {
			return nil, rails.Refuse(mpp.CodeRequestMalformed)
		}
		o = o.Clone()
		o.Set("request", mpp.EncodeB64URL(text))
		placed[i] = o
		return placed, nil
	}
	return nil, rails.Refuse(mpp.CodeNotThisPairing)
}

// CodeCarrierOccupied is the issued carrier holding another value.
const CodeCarrierOccupied = mpp.CodeCarrierOccupied

// sameIssued reports that placed is offer as placed: the same realm,
// method, intent, request and expires.
func sameIssued(placed, offer *jsonv.Object) bool {
	for _, k := range []string{"realm", "method", "intent", "request", "expires", "digest", "header"} {
		a, hasA := placed.Get(k)
		b, hasB := offer.Get(k)
		if hasA != hasB || a != b {
			return false
		}
	}
	return true
}

// withMember returns a copy of o with path set to value, making the
// objects on the way.
func withMember(o *jsonv.Object, path []string, value string) *jsonv.Object {
	out := o.Clone()
	if len(path) == 1 {
		out.Set(path[0], value)
		return out
	}
	inner, ok := out.GetObject(path[0])
	if !ok {
		inner = &jsonv.Object{}
	}
	out.Set(path[0], withMember(inner, path[1:], value))
	return out
}

// Unplaced is the challenge with legal_context removed from its request's
// metadata (and the metadata with it when that empties it), the request
// written again as base64url of its canonical JSON: what the seller's
// issued digest is taken over (mpp.IssuedDigest). A challenge without the
// carrier is returned as it is.
func Unplaced(c *jsonv.Object) *jsonv.Object {
	request, ok := mpp.DecodeObject(mpp.String(c, "request"))
	if !ok {
		return c
	}
	if _, has, _ := carrier(request); !has {
		return c
	}
	d, _ := request.GetObject("methodDetails")
	m, _ := d.GetObject("metadata")
	m = m.Clone()
	m.Delete(mpp.StripeLegalContextKey)
	d = d.Clone()
	if m.Len() == 0 {
		d.Delete("metadata")
	} else {
		d.Set("metadata", m)
	}
	request = request.Clone()
	request.Set("methodDetails", d)
	out := c.Clone()
	out.Set("request", mpp.EncodeObject(request))
	return out
}

func splitPairing(id string) (ns, intent, method string) {
	parts := strings.SplitN(id, "/", 3)
	if len(parts) != 3 {
		return "", "", ""
	}
	return parts[0], parts[1], parts[2]
}

// choose takes the first kept challenge that offers pairing, for any
// CAIP-10 account (the payer is Stripe's customer, not a chain account; the
// account pays the agreement). The token inputs are checked when present:
// an input present and not of its form is mpp/input-missing.
func choose(read rails.Read, account string, inputs *jsonv.Object, now int64, pairing string, spec []mpp.Input) (jsonv.Value, error) {
	if _, ok := rails.ParseAccount(account); !ok {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	in, err := mpp.Inputs(inputs, spec...)
	if err != nil {
		return nil, err
	}
	for _, v := range read.Options {
		if !mpp.OffersPlaced(v, pairing) {
			continue
		}
		c, _ := jsonv.AsObject(v)
		choice := jsonv.Obj("challenge", c.Clone(), "now", now)
		for _, m := range in.Members() {
			choice.Set(m.Key, m.Value)
		}
		return choice, nil
	}
	return nil, rails.Refuse(mpp.CodeNoPayableOption)
}

// checked is a challenge of pairing whose id and opaque name h and whose
// carrier holds H's LCP string.
type checked struct {
	*mpp.Checked
	networkID string
}

// checkPlaced runs the checks the build and the read-back share: the
// challenge checked as placed and offering pairing, its id naming h
// (mpp/id-not-ours), legal_context holding h's LCP string
// (mpp/carrier-not-challenge; absent is mpp/no-legal-context), and
// networkId a Stripe id (mpp/request-malformed).
func checkPlaced(challenge *jsonv.Object, pairing string, h atr.Hash) (*checked, error) {
	c, err := mpp.CheckChosen(challenge, pairing, h)
	if err != nil {
		return nil, err
	}
	value, has, _ := carrier(c.Request)
	if !has {
		return nil, rails.Refuse(mpp.CodeNoLegalContext)
	}
	lc, ok := mpp.ParseLegalContext(value)
	if !ok || !lc.Equal(h) {
		return nil, rails.Refuse(CodeCarrierNotChallenge)
	}
	network, _ := c.Details.GetString("networkId")
	if !networkPattern.MatchString(network) {
		return nil, rails.Refuse(mpp.CodeRequestMalformed)
	}
	return &checked{Checked: c, networkID: network}, nil
}

// CodeCarrierNotChallenge: legal_context names another hash than the
// challenge id.
const CodeCarrierNotChallenge = "mpp/carrier-not-challenge"

// unsigned is a built credential: nothing for a signer.
type unsigned struct {
	credential *jsonv.Object
}

// build checks the chosen challenge against h, unexpired at the choice's
// time, and writes the credential {challenge, payload} with payload made
// from the choice's inputs. Without the token input there is nothing the
// gate can write, and the build refuses mpp/no-signed-place: the gate then
// returns no payment, as the reference gates do, for the operator to send
// its own.
func build(choice jsonv.Value, h atr.Hash, pairing string, payload func(c *jsonv.Object) (*jsonv.Object, bool)) (rails.Unsigned, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	challenge, ok := c.GetObject("challenge")
	nv, _ := c.Get("now")
	now, ok2 := jsonv.AsSafeInt(nv)
	if !ok || !ok2 {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	chk, err := checkPlaced(challenge, pairing, h)
	if err != nil {
		return nil, err
	}
	if chk.Expires <= now {
		return nil, rails.Refuse(CodeChallengeExpired)
	}
	p, ok := payload(c)
	if !ok {
		return nil, rails.Refuse(CodeNoSignedPlace)
	}
	return &unsigned{credential: jsonv.Obj("challenge", challenge.Clone(), "payload", p)}, nil
}

// CodeChallengeExpired: the challenge's expires is not after the choice's
// time.
const CodeChallengeExpired = "mpp/challenge-expired"

// request: the credential goes to the seller as it is; nothing is signed.
func request(rails.Unsigned) (rails.Request, error) {
	return nil, rails.Refuse(CodeNoSignedPlace)
}

func complete(u rails.Unsigned) (rails.Completion, error) {
	b, ok := u.(*unsigned)
	if !ok || b == nil {
		return rails.Completion{}, rails.Refuse(mpp.CodeChoiceMalformed)
	}
	return rails.Completion{Signed: b.credential.Clone()}, nil
}

// echoed reads a presented credential of pairing: the shared MPP steps
// (its shape and budget, H from the echoed id, the opaque naming it, the
// challenge checked as placed and offering pairing), then the carrier and
// networkId as the build checks them, and the payload's token.
func echoed(presented jsonv.Value, pairing string, token func(p *jsonv.Object) bool) (*mpp.Bound, *checked, error) {
	e, err := mpp.Echoed(presented, pairing)
	if err != nil {
		return nil, nil, err
	}
	chk, err := checkPlaced(e.Challenge, pairing, e.H)
	if err != nil {
		return nil, nil, err
	}
	if !token(e.Payload) {
		return nil, nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return e, chk, nil
}

// currencyDecimals are ISO 4217 minor units of the currencies Stripe
// charges most; Stripe's amounts are in the smallest unit. Others are
// unknown (-1).
var currencyDecimals = map[string]int{"usd": 2, "eur": 2, "gbp": 2, "cad": 2, "aud": 2, "chf": 2, "jpy": 0, "krw": 0}

func decimalsOf(currency string) int {
	if d, ok := currencyDecimals[currency]; ok {
		return d
	}
	return -1
}

func unix(s int64) time.Time { return time.Unix(s, 0).UTC() }
