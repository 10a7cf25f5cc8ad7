package pay_test

import (
	"testing"

	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/tempo"
)

// TestSettlementNotRead: each EVM-family pairing without a settlement read
// answers not-read with its reason, with a reader for its network or none;
// a pairing nothing knows is no-reader.
func TestSettlementNotRead(t *testing.T) {
	vf := &pay.Verifier{EVM: map[string]evm.Reader{"eip155:8453": fakeReader{network: "eip155:8453"}}}
	for pairing, why := range map[string]string{
		evm.BatchID:          pay.WhyChannel,
		evm.MPPSessionID:     pay.WhyChannel,
		tempo.SessionID:      pay.WhyChannel,
		evm.MPPGatewayID:     pay.WhyGateway,
		tempo.SubscriptionID: pay.WhyRecurring,
	} {
		for _, network := range []string{"eip155:8453", "eip155:4217"} {
			v := vf.Check(&pay.Result{Pairing: pairing, Summary: pay.Summary{Grant: rails.Grant{Network: network}}})
			wantProblems(t, v, pay.ProblemNotRead)
			wantEVMStatus(t, v, pay.StateUnchecked, why)
		}
	}
	v := vf.Check(&pay.Result{Pairing: "x402/unknown/eip155", Summary: pay.Summary{Grant: rails.Grant{Network: "eip155:8453"}}})
	wantProblems(t, v, pay.ProblemNoReader)
}
