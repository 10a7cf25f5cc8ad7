package mpp

// The card method's charge (docs/cards.md, "mpp/charge/card"): the request
// names an amount in the currency's minor units, a currency, and in
// methodDetails the card networks the seller accepts. The card credential
// is the buyer's card network token, encrypted to the seller's key; nothing
// in it carries H, so rails/card's pairing signs nothing.

import "github.com/termsgate/termsgate/jsonv"

// PairingCardCharge is mpp/charge/card.
const PairingCardCharge = "mpp/charge/card"

// MaxCardNetworks bounds methodDetails.acceptedNetworks.
const MaxCardNetworks = 16

func init() { methodChecks["charge/card"] = cardCharge }

func cardCharge(r, d *jsonv.Object) ([]string, error) {
	cur, ok := r.GetString("currency")
	if !isNonZeroDecimalAt(r, "amount") || !ok || cur == "" || len(cur) > 16 {
		return nil, refuse(CodeRequestMalformed)
	}
	if x, has := r.Get("externalId"); has {
		if s, ok := x.(string); !ok || s == "" || len(s) > 256 {
			return nil, refuse(CodeRequestMalformed)
		}
	}
	if v, has := d.Get("acceptedNetworks"); has {
		list, ok := jsonv.AsArray(v)
		if !ok || len(list) == 0 || len(list) > MaxCardNetworks {
			return nil, refuse(CodeRequestMalformed)
		}
		for _, n := range list {
			if s, ok := n.(string); !ok || s == "" || len(s) > 32 {
				return nil, refuse(CodeRequestMalformed)
			}
		}
	}
	return []string{PairingCardCharge}, nil
}
