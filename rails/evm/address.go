package evm

import (
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// CodeAddressChecksum refuses an EVM address written in mixed case whose
// case is not its EIP-55 checksum: a typo or a changed digit the checksum
// exists to catch. The refusal's code goes on to name the field, as in
// "evm/address-checksum: payTo".
const CodeAddressChecksum = "evm/address-checksum"

// CheckAddresses refuses (CodeAddressChecksum, naming the field) the first
// of the addresses that is an EVM address whose mixed case is no EIP-55
// checksum; pairs are field, address, field, address, … . A value that is
// no address at all is left to the caller's own shape checks.
//
// Every EVM pairing calls it in Read or Choose, before anything is signed,
// on each address the seller sent (payTo, asset, a contract, a recipient)
// and each address the signer's account names (docs/adding-a-pairing.md).
func CheckAddresses(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if a := pairs[i+1]; IsAddress(a) && !CheckedAddress(a) {
			return rails.Refuse(CodeAddressChecksum + ": " + pairs[i])
		}
	}
	return nil
}

// CheckAddressesIn is CheckAddresses over every string in v, an object or
// an array walked in order, each named by its path below field
// ("payTo", "extra.escrow", "request.methodDetails.splits[0].recipient"): a
// seller's option or request, where any member may be an address the
// payment goes to or through.
func CheckAddressesIn(field string, v jsonv.Value) error {
	if allChecked(v, 0) {
		return nil // the usual case: no field name is written
	}
	return checkAddressesIn(field, v)
}

// allChecked reports whether every string in v (to a depth past which
// checkAddressesIn's walk, the one that names the field, decides) is no
// address or a checked one.
func allChecked(v jsonv.Value, depth int) bool {
	if depth > maxCheckDepth {
		return false
	}
	switch x := v.(type) {
	case string:
		return !IsAddress(x) || CheckedAddress(x)
	case *jsonv.Object:
		for _, m := range x.Members() {
			if !allChecked(m.Value, depth+1) {
				return false
			}
		}
	case []jsonv.Value:
		for _, e := range x {
			if !allChecked(e, depth+1) {
				return false
			}
		}
	}
	return true
}

// maxCheckDepth is where allChecked hands a deeply nested value to the
// naming walk (which walks it all, as before).
const maxCheckDepth = 64

func checkAddressesIn(field string, v jsonv.Value) error {
	switch x := v.(type) {
	case string:
		return CheckAddresses(field, x)
	case *jsonv.Object:
		for _, m := range x.Members() {
			if err := checkAddressesIn(joinField(field, m.Key), m.Value); err != nil {
				return err
			}
		}
	case []jsonv.Value:
		for i, e := range x {
			if err := checkAddressesIn(field+"["+strconv.Itoa(i)+"]", e); err != nil {
				return err
			}
		}
	}
	return nil
}

func joinField(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// CheckMPPAddresses is the check for an MPP EVM pairing's Choose: every
// address in the challenge's decoded request ("request.recipient",
// "request.currency", "request.methodDetails.…") and the account's from.
// A request that does not decode is left to the pairing's build, which
// refuses it.
func CheckMPPAddresses(challenge *jsonv.Object, from string) error {
	if err := CheckAddresses("from", from); err != nil {
		return err
	}
	s, _ := challenge.GetString("request")
	if request, ok := mpp.DecodeObject(s); ok {
		return CheckAddressesIn("request", request)
	}
	return nil
}
