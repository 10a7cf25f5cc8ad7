package mpp

// The Hedera method (docs/hedera.md). A charge's accounts, amounts and
// splits are read by rails/hedera, whose codes they carry
// (hedera/option-malformed); here only the network decides that the
// challenge offers the pairing. A session is an escrow channel on
// Hedera's EVM (mpp/session/hedera): its request names the token
// (currency), the payee (recipient) and methodDetails.escrowContract as
// EVM addresses, and methodDetails.chainId the network.

import "github.com/termsgate/termsgate/jsonv"

// PairingHederaCharge is mpp/charge/hedera; PairingHederaSession
// mpp/session/hedera.
const (
	PairingHederaCharge  = "mpp/charge/hedera"
	PairingHederaSession = "mpp/session/hedera"
)

func init() {
	methodChecks["charge/hedera"] = hederaCharge
	methodChecks["session/hedera"] = hederaSession
	railNetworks["session/hedera"] = hederaChargeNetwork
}

func hederaCharge(_, d *jsonv.Object) ([]string, error) {
	if _, err := hederaChargeNetwork(d); err != nil {
		return nil, err
	}
	return []string{PairingHederaCharge}, nil
}

// hederaSession: an opening only (a named channel is a resume:
// mpp/channel-named); the network by chainId (hedera/chain-id-unnamed);
// currency, recipient and escrowContract addresses (mpp/request-malformed).
func hederaSession(r, d *jsonv.Object) ([]string, error) {
	if d.Has("channelId") {
		return nil, refuse(CodeChannelNamed)
	}
	if _, err := hederaChargeNetwork(d); err != nil {
		return nil, err
	}
	if !isAddressAt(r, "currency") || !isAddressAt(r, "recipient") || !isAddressAt(d, "escrowContract") {
		return nil, refuse(CodeRequestMalformed)
	}
	return []string{PairingHederaSession}, nil
}
