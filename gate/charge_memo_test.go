package gate

import (
	"errors"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
)

// challengeCharge's memo answers only for the same opaque, request and
// hash: after a charge is read, another amount, another hash, an opaque
// naming other terms, an opaque that is no string and no opaque at all are
// each read anew, and changing a returned amount changes no later one.
func TestChallengeChargeMemo(t *testing.T) {
	h, other := atr.Sum([]byte("abc")), atr.Sum([]byte("abd"))
	challenge := func(amount string, opaque jsonv.Value) *jsonv.Object {
		c := jsonv.Obj("id", "x", "request", mpp.EncodeObject(jsonv.Obj("amount", amount)))
		if opaque != nil {
			c.Set("opaque", opaque)
		}
		return c
	}
	naming := func(h atr.Hash) string {
		return mpp.EncodeObject(jsonv.Obj(mpp.KeyLegalContext, mpp.LegalContextValue(h)))
	}
	code := func(err error) string {
		var d *Decline
		if errors.As(err, &d) {
			return string(d.Code) + " " + d.Detail
		}
		return ""
	}
	for i, c := range []struct {
		c      *jsonv.Object
		h      atr.Hash
		amount int64
		code   string
	}{
		{challenge("25", naming(h)), h, 25, ""},
		{challenge("25", naming(h)), h, 25, ""},
		{challenge("30", naming(h)), h, 30, ""},
		{challenge("30", naming(h)), other, 0, code(decline(HashMismatch, DetailOtherHash))},
		{challenge("30", naming(other)), h, 0, code(decline(HashMismatch, DetailOtherHash))},
		{challenge("30", naming(h)), h, 30, ""},
		{challenge("30", jsonv.Number(1)), h, 0, code(decline(OfferUnreadable, mpp.CodeOpaqueMalformed))},
		{challenge("30", nil), h, 30, ""},
		{challenge("30", nil), other, 30, ""}, // no opaque: no hash to compare
		{challenge("3x", nil), h, 0, code(decline(OfferUnreadable, mpp.CodeRequestMalformed))},
	} {
		n, err := challengeCharge(c.c, c.h)
		if code(err) != c.code || err == nil && n.Int64() != c.amount {
			t.Fatalf("case %d: %v, %v; want %d %q", i, n, err, c.amount, c.code)
		}
		if n != nil {
			n.SetInt64(-1) // the memo hands out copies
		}
	}
}
