package mpp

// The Hedera method's charge (docs/hedera.md). Its request's accounts,
// amounts and splits are read by rails/hedera, whose codes they carry
// (hedera/option-malformed); here only the network decides that the
// challenge offers the pairing.

import "github.com/termsgate/termsgate/jsonv"

// PairingHederaCharge is mpp/charge/hedera.
const PairingHederaCharge = "mpp/charge/hedera"

func init() { methodChecks["charge/hedera"] = hederaCharge }

func hederaCharge(_, d *jsonv.Object) ([]string, error) {
	if _, err := hederaChargeNetwork(d); err != nil {
		return nil, err
	}
	return []string{PairingHederaCharge}, nil
}
