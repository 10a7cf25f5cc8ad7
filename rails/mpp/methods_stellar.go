package mpp

import (
	"github.com/termsgate/termsgate/jsonv"
)

// PairingStellarCharge is the Stellar charge's pairing (docs/stellar.md).
const PairingStellarCharge = "mpp/charge/stellar"

func init() { methodChecks["charge/stellar"] = stellarCharge }

// stellarCharge: a network of the two, a decimal amount below 2^256 (leading
// zeros and 0 pass here), a C… currency, a G… or M… recipient (shape only;
// the build checks strkeys) and feePayer a boolean where present. Every
// failure is stellar/option-malformed.
func stellarCharge(r, d *jsonv.Object) ([]string, error) {
	bad := refuse(CodeStellarOptionMalformed)
	if n, _ := d.GetString("network"); n != "stellar:pubnet" && n != "stellar:testnet" {
		return nil, bad
	}
	if !isDecimalAt(r, "amount") {
		return nil, bad
	}
	if c, _ := r.GetString("currency"); !strkeyShaped(c, 'C', 55) {
		return nil, bad
	}
	if to, _ := r.GetString("recipient"); !strkeyShaped(to, 'G', 55) && !strkeyShaped(to, 'M', 68) {
		return nil, bad
	}
	if fp, has := d.Get("feePayer"); has {
		if _, ok := fp.(bool); !ok {
			return nil, bad
		}
	}
	return []string{PairingStellarCharge}, nil
}

// strkeyShaped is prefix and n characters of base32's upper-case alphabet.
func strkeyShaped(s string, prefix byte, n int) bool {
	if len(s) != n+1 || s[0] != prefix {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}
