package mpp

import "github.com/termsgate/termsgate/jsonv"

// PairingNearIntents is MPP's NEAR Intents charge (docs/nearintents.md),
// built by rails/near.
const PairingNearIntents = "mpp/charge/nearintents"

func init() { methodChecks["charge/nearintents"] = nearIntentsCharge }

// nearIntentsCharge: credentialTypes exactly ["hash"] where present
// (mpp/credential-types); amount, amountOut and minAmountIn decimals below
// 2^256; currency, recipient, destinationAsset, destinationRecipient and
// refundTo strings of 1 to 256 characters; originNetwork and
// destinationNetwork CAIP-2; externalId a string and depositMemo a string
// or null where present (mpp/request-malformed).
func nearIntentsCharge(r, d *jsonv.Object) ([]string, error) {
	if types, has := d.Get("credentialTypes"); has {
		list, ok := jsonv.AsArray(types)
		if !ok || len(list) != 1 || list[0] != "hash" {
			return nil, refuse(CodeCredentialTypes)
		}
	}
	bad := refuse(CodeRequestMalformed)
	if !isDecimalAt(r, "amount") || !isDecimalAt(d, "amountOut") || !isDecimalAt(d, "minAmountIn") {
		return nil, bad
	}
	for _, v := range []jsonv.Value{member(r, "currency"), member(r, "recipient"), member(d, "destinationAsset"),
		member(d, "destinationRecipient"), member(d, "refundTo")} {
		if s, ok := v.(string); !ok || s == "" || len(s) > 256 {
			return nil, bad
		}
	}
	if !caip2.MatchString(String(d, "originNetwork")) || !caip2.MatchString(String(d, "destinationNetwork")) {
		return nil, bad
	}
	if x, has := r.Get("externalId"); has {
		if _, ok := x.(string); !ok {
			return nil, bad
		}
	}
	if m, has := d.Get("depositMemo"); has && m != nil {
		if _, ok := m.(string); !ok {
			return nil, bad
		}
	}
	return []string{PairingNearIntents}, nil
}
