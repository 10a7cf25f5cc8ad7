package checkout

import (
	"errors"
	"math/big"
	"strings"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// errNothingSigned is every checkout pairing's Summarize: the gate builds no
// signing request for them (confirm-only), so there is no request whose grant
// a spend policy could read. What the checkout charges is Inspect's, from
// what the payment commits to.
var errNothingSigned = errors.New("checkout: the gate builds no signing request for this pairing (confirm-only)")

// noProof is what every checkout inspection says of the proof.
const noProof = "none public: the agreement payment made before it is the proof"

// minorUnits is ISO 4217's minor units of the currencies a checkout commonly
// states; any other currency's decimals are unknown (-1).
var minorUnits = map[string]int{"USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "CAD": 2, "AUD": 2, "JPY": 0, "KRW": 0}

// currencyDecimals is a currency's minor units, -1 when unknown.
func currencyDecimals(c string) int {
	if d, ok := minorUnits[strings.ToUpper(c)]; ok {
		return d
	}
	return -1
}

// total is a checkout's totals[] entry of type "total": its amount in the
// currency's minor units, nil when there is none or it is no safe
// non-negative integer.
func total(o *jsonv.Object) *big.Int {
	tv, _ := o.Get("totals")
	list, _ := jsonv.AsArray(tv)
	for _, e := range list {
		eo, _ := jsonv.AsObject(e)
		if t, _ := eo.GetString("type"); t != "total" {
			continue
		}
		av, _ := eo.Get("amount")
		if n, ok := jsonv.AsSafeInt(av); ok && n >= 0 {
			return big.NewInt(n)
		}
		return nil
	}
	return nil
}

// checkoutGrant is what a checkout (UCP, ACP) or an AP2 checkout payload
// states it charges: its currency and total. The buyer's approval of this
// checkout is what is granted; no key of the buyer's signed an amount.
func checkoutGrant(o *jsonv.Object) (rails.Grant, error) {
	cur, _ := o.GetString("currency")
	amount := total(o)
	if cur == "" || len(cur) > 16 || amount == nil {
		return rails.Grant{}, rails.Refuse("checkout/total-unstated")
	}
	return rails.Grant{Asset: strings.ToUpper(cur), Decimals: currencyDecimals(cur), Amount: amount}, nil
}

// unixClaim is a JWT NumericDate claim as a time, zero when absent or out of
// range.
func unixClaim(o *jsonv.Object, k string) time.Time {
	v, _ := o.Get(k)
	n, ok := jsonv.AsSafeInt(v)
	if !ok || n <= 0 {
		return time.Time{}
	}
	return time.Unix(n, 0).UTC()
}
