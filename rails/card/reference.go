package card

import (
	"math/big"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// This file reads a card processor's record of a charge as a seller reports
// it, and masks card numbers and tokens wherever card data is shown.

// MaskCard shows a card number or token by its last four characters only:
// "•••• 4242". Anything of four characters or fewer is shown as "••••".
func MaskCard(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= 4 {
		return "••••"
	}
	return "•••• " + s[len(s)-4:]
}

// shown are the card-data members Details may show, each when it is a
// short string; panLastFour only when it is four digits. Every other member
// (a card number, a network token, an encrypted payload, a cryptogram, a
// seller's own names) is left out, so that nothing card-like is shown by a
// name nobody thought of.
var shown = []string{"network", "brand", "scheme", "panLastFour", "last4", "reference", "processor", "status"}

func lastFour(s string) bool {
	if len(s) != 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// masked returns the members of o that Details may show, in o's order.
func masked(o *jsonv.Object) *jsonv.Object {
	out := jsonv.Obj()
	for _, m := range o.Members() {
		s, ok := m.Value.(string)
		if !ok || len(s) > 128 {
			continue
		}
		for _, k := range shown {
			if m.Key != k {
				continue
			}
			if k == "panLastFour" || k == "last4" {
				if lastFour(s) {
					out.Set(m.Key, "•••• "+s)
				}
			} else if !digitRun(s) {
				out.Set(m.Key, s)
			}
		}
	}
	return out
}

// digitRun reports whether s holds a run of 8 or more digits (spaces and
// dashes between them allowed): what a card number looks like.
func digitRun(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			n++
			if n >= 8 {
				return true
			}
		case c == ' ' || c == '-':
		default:
			n = 0
		}
	}
	return false
}

// InspectReference reads a processor's record {reference:
// "lcp:sha256:<H>", amount (minor units, decimal string), currency,
// merchant, network (visa, mastercard, …), and card data the record may
// hold, masked}. Its H is the seller's report, advisory.
func InspectReference(pairing string, record jsonv.Value) (rails.Inspection, error) {
	o, ok := jsonv.AsObject(record)
	if !ok {
		return rails.Inspection{}, refuse(CodeNoSignedPlace)
	}
	ref, _ := o.GetString("reference")
	rest, ok := strings.CutPrefix(ref, "lcp:sha256:")
	h, okH := normalHash(rest)
	if !ok || !okH {
		return rails.Inspection{}, refuse(CodeNoLegalContext)
	}
	amount, _ := o.GetString("amount")
	n, okA := new(big.Int).SetString(amount, 10)
	cur, _ := o.GetString("currency")
	network, _ := o.GetString("network")
	merchant, _ := o.GetString("merchant")
	if !rails.IsDecimal(amount) || !okA || cur == "" || network == "" || merchant == "" || len(network) > 32 {
		return rails.Inspection{}, refuse(CodeOptionMalformed)
	}
	g := rails.Grant{Network: "card:" + strings.ToLower(network), Asset: cur, Decimals: -1, Amount: n, Payee: merchant}
	if p, ok := o.GetString("payer"); ok {
		g.Payer = p
	}
	return rails.Inspection{Pairing: pairing, Kind: "processor-record", Grant: g, H: h,
		WhereH:  "the processor reference the seller placed (lcp:sha256:<H>): the seller's report, advisory; nothing the buyer signed carries H",
		Details: masked(o)}, nil
}
