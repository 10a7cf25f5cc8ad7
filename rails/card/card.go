// Package card holds the card pairings: Visa's Trusted Agent Protocol
// (card/visa-tap), Mastercard's Verifiable Intent in its two modes
// (card/mastercard-vi/immediate, card/mastercard-vi/autonomous), the plain
// card checkout whose processor reference carries the hash
// (card/seller-reference), and MPP's card charge (mpp/charge/card). Each
// pairing's file says where H goes; docs/cards.md tells the rules.
//
// None of them is a public proof of the terms: a card authorization carries no
// hash anyone can read, so the gate runs the agreement exchange first (an
// EIP-3009 payment carrying H, docs/agreement.md) and only then the card step.
//
// What this package shares between the pairings: the seller's shown legal
// context ({legalContext: {type: sha256, value: H, legalContextUrl}}), the
// refusal codes, the account rule (any CAIP-10 account names the buyer) and
// the choice, which is the seller's document itself.
package card

import (
	"strings"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The pairing ids.
const (
	VisaTAPID         = "card/visa-tap"
	VIImmediateID     = "card/mastercard-vi/immediate"
	VIAutonomousID    = "card/mastercard-vi/autonomous"
	SellerReferenceID = "card/seller-reference"
	MPPChargeID       = "mpp/charge/card"
)

// Caps on what a seller or an agent can make these readers hold.
const (
	MaxCheckoutID    = 128
	MaxLink          = 2048
	MaxTAPField      = 8192 // Signature-Input and Signature, each
	MaxTAPMembers    = 16   // members of either dictionary
	MaxTAPComponents = 32   // items of one inner list
	MaxTAPHashLine   = 256  // the one lcp-hash field line
	MaxVILayer       = 65536
	MaxCheckoutJWT   = 16384
	MaxVIDisclosures = 32
)

// Refusal codes of the card pairings (the vectors' names).
const (
	CodeOptionMalformed         = "card/option-malformed"
	CodeLinkNotHTTPS            = "card/link-not-https"
	CodeLegalContextMalformed   = "card/legal-context-malformed"
	CodeNoLegalContext          = "card/no-legal-context"
	CodeNoSignedPlace           = "card/no-signed-place"
	CodeNoPayableOption         = "card/no-payable-option"
	CodeDocumentMissing         = "card/document-missing"
	CodeChoiceMalformed         = "card/choice-malformed"
	CodeSignatureMalformed      = "card/signature-malformed"
	CodeTooLarge                = "card/too-large"
	CodeTAPInputMalformed       = "card/tap-signature-input-malformed"
	CodeTAPSignatureMalformed   = "card/tap-signature-malformed"
	CodeTAPNoPayer              = "card/tap-no-payer-signature"
	CodeTAPHashNotCovered       = "card/tap-hash-not-covered"
	CodeTAPSignatureMissing     = "card/tap-signature-missing"
	CodeTAPFieldMalformed       = "card/tap-field-malformed"
	CodeTAPFieldMissing         = "card/tap-field-missing"
	CodeTAPFieldRepeated        = "card/tap-field-repeated"
	CodeVIMalformed             = "card/vi-malformed"
	CodeVITyp                   = "card/vi-typ"
	CodeVIUnreferenced          = "card/vi-disclosure-unreferenced"
	CodeVINoCheckoutMandate     = "card/vi-no-checkout-mandate"
	CodeVICheckoutHashMismatch  = "card/vi-checkout-hash-mismatch"
	CodeVITransactionIDMismatch = "card/vi-transaction-id-mismatch"
	CodeVILegalContextConflict  = "card/vi-legal-context-conflict"
	CodeVIKeyMalformed          = "card/vi-key-malformed"
	CodeVIKidMismatch           = "card/vi-kid-mismatch"
	CodeVISignatureInvalid      = "card/vi-signature-invalid"
	CodeVISDHashMismatch        = "card/vi-sd-hash-mismatch"
)

func refuse(code string) error { return rails.Refuse(code) }

// Scheme names of the card options a seller offers at a checkout.
var schemes = map[string][]string{
	"visa-tap":         {VisaTAPID},
	"mastercard-vi":    {VIImmediateID, VIAutonomousID},
	"seller-reference": {SellerReferenceID},
}

// PairingsOf names the pairings a card option {scheme, checkout} can be
// paid through (Verifiable Intent has two); none for anything else.
func PairingsOf(option jsonv.Value) []string {
	if !isOption(option) {
		return nil
	}
	o, _ := jsonv.AsObject(option)
	s, _ := o.GetString("scheme")
	return append([]string(nil), schemes[s]...)
}

func isOption(v jsonv.Value) bool {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return false
	}
	s, _ := o.GetString("scheme")
	c, ok := o.GetString("checkout")
	_, known := schemes[s]
	return known && ok && len(c) >= 1 && len(c) <= MaxCheckoutID && visibleASCII(c)
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// normalHash reads 0x and 64 hex digits in either case, written back in
// lower case.
func normalHash(s string) (string, bool) {
	if len(s) != 66 || s[0] != '0' || s[1] != 'x' {
		return "", false
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return "", false
		}
	}
	return strings.ToLower(s), true
}

// linkRefusal is the https-link rule's refusal for a card link: another
// scheme is card/link-not-https, anything else malformed.
func linkRefusal(link string) error {
	switch atr.CheckLink(link) {
	case atr.LinkOK:
		if len(link) > MaxLink {
			return refuse(CodeLegalContextMalformed)
		}
		return nil
	case atr.LinkOtherScheme:
		return refuse(CodeLinkNotHTTPS)
	}
	return refuse(CodeLegalContextMalformed)
}

// Shown is what a seller's legalContext member says: H, the link and, when
// present, the agreement URL.
type Shown struct {
	H         string
	Link      string
	Agreement string
}

// ReadLegalContext reads o.legalContext: {type: "sha256", value: 0x+64 hex,
// legalContextUrl: an https link of at most 2048 characters, and optionally
// legalContextAgreementUrl, an https link}.
func ReadLegalContext(o *jsonv.Object) (Shown, error) {
	v, ok := o.Get("legalContext")
	if !ok {
		return Shown{}, refuse(CodeNoLegalContext)
	}
	lc, ok := jsonv.AsObject(v)
	if !ok {
		return Shown{}, refuse(CodeLegalContextMalformed)
	}
	typ, _ := lc.GetString("type")
	value, _ := lc.GetString("value")
	h, okH := normalHash(value)
	link, okL := lc.GetString("legalContextUrl")
	if typ != "sha256" || !okH || !okL {
		return Shown{}, refuse(CodeLegalContextMalformed)
	}
	if err := linkRefusal(link); err != nil {
		return Shown{}, err
	}
	out := Shown{H: h, Link: link}
	if a, has := lc.Get("legalContextAgreementUrl"); has {
		s, ok := jsonv.AsString(a)
		if !ok {
			return Shown{}, refuse(CodeLegalContextMalformed)
		}
		if err := linkRefusal(s); err != nil {
			return Shown{}, err
		}
		out.Agreement = s
	}
	return out, nil
}

// readShown reads the JSON a seller shows (TAP and the plain checkout): an
// object with a legalContext member.
func readShown(doc jsonv.Value) (rails.Read, error) {
	o, ok := jsonv.AsObject(doc)
	if !ok || !o.Has("legalContext") {
		return rails.Read{}, refuse(CodeNoLegalContext)
	}
	s, err := ReadLegalContext(o)
	if err != nil {
		return rails.Read{}, err
	}
	return rails.Read{H: s.H, Link: s.Link, Agreement: s.Agreement, Required: doc, Options: []jsonv.Value{doc}}, nil
}

// Values is what a card seller places: the legal context it shows before
// payment and the processor reference lcp:sha256:<H>.
type Values struct {
	LegalContext *jsonv.Object
	Reference    string
}

// Advertise is the seller's side, the same for every card pairing: the
// legal context for offer (a {scheme, checkout} option), with the agreement
// URL after the link when one is given, and the reference to place.
func Advertise(h, link string, offer jsonv.Value, agreement string) (Values, error) {
	if !isOption(offer) {
		return Values{}, refuse(CodeOptionMalformed)
	}
	if err := linkRefusal(link); err != nil {
		return Values{}, err
	}
	if agreement != "" {
		if err := linkRefusal(agreement); err != nil {
			return Values{}, err
		}
	}
	value, ok := normalHash(h)
	if !ok {
		return Values{}, refuse(CodeLegalContextMalformed)
	}
	lc := jsonv.Obj("type", "sha256", "value", value, "legalContextUrl", link)
	if agreement != "" {
		lc.Set("legalContextAgreementUrl", agreement)
	}
	return Values{LegalContext: lc, Reference: "lcp:sha256:" + value}, nil
}

// chooseDoc is every card pairing's Choose: a CAIP-10 account names the
// buyer (any namespace), and the choice is the seller's document itself.
func chooseDoc(read rails.Read, account string) (jsonv.Value, error) {
	if _, ok := rails.ParseAccount(account); !ok {
		return nil, refuse(CodeNoPayableOption)
	}
	if read.Required == nil {
		return nil, refuse(CodeDocumentMissing)
	}
	return jsonv.Obj("doc", jsonv.Clone(read.Required)), nil
}

// docOf is the document kept in a choice.
func docOf(choice jsonv.Value) (jsonv.Value, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, refuse(CodeChoiceMalformed)
	}
	d, ok := c.Get("doc")
	if !ok {
		return nil, refuse(CodeChoiceMalformed)
	}
	return d, nil
}

// Pattern of every card pairing: no public proof.
func noProof(name string) rails.Pattern { return rails.Pattern{Name: name, PublicProof: false} }

// cardGrant is what a card step grants as far as the payment can say: the
// card network, nothing of amount or asset (the card authorization is the
// processor's and names them, not the signed mandate or field).
func cardGrant(network, payee string) rails.Grant {
	return rails.Grant{Network: network, Payee: payee, Decimals: -1}
}

func unixTime(s int64) time.Time {
	if s <= 0 {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}

// Unplaced is a card option as the seller's binding slot holds it: the
// option unchanged, since no card pairing carries H inside the option.
func Unplaced(option *jsonv.Object) *jsonv.Object { return option }

// OptionDigest is SHA-256 of an unplaced option's canonical JSON: what the
// seller's ATR binds each option offered at the checkout by.
func OptionDigest(option *jsonv.Object) atr.Hash { return atr.Sum(jsonv.Canonical(Unplaced(option))) }
