package evm

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// UptoPermit2 is x402/upto/eip155/permit2. Where H goes: as for
// x402/exact/eip155/permit2, the Permit2 PermitWitnessTransferFrom nonce is
// H as a uint256 (permit2Authorization.nonce, written as 0x hex as the
// vectors fix it); the spender is x402's upto proxy and the witness names
// the payee and the facilitator (extra.facilitatorAddress) that may settle
// any amount up to the signed maximum. The spend policy judges that maximum
// (docs/permit2.md).
type UptoPermit2 struct{}

// UptoPermit2ID is the pairing id.
const UptoPermit2ID = "x402/upto/eip155/permit2"

var (
	_ rails.Pairing    = UptoPermit2{}
	_ rails.Summarizer = UptoPermit2{}
)

var uptoPermit2 = x402Permit2{id: UptoPermit2ID, scheme: "upto", proxy: UptoPermit2Proxy, upto: true,
	witness: []string{"to", "address", "facilitator", "address", "validAfter", "uint256"}}

func (UptoPermit2) ID() string { return UptoPermit2ID }

func (UptoPermit2) Pattern() rails.Pattern {
	return rails.Pattern{Name: "native-field", PublicProof: true}
}

// Read serves upto options on an eip155 chain that name a facilitator.
func (UptoPermit2) Read(doc jsonv.Value) (rails.Read, error) { return uptoPermit2.read(doc) }

func (UptoPermit2) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseEVM(read, account, now)
}

// Build signs for the option's amount as the maximum, until now +
// maxTimeoutSeconds; an option without a facilitator is
// x402/facilitator-missing.
func (UptoPermit2) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return uptoPermit2.build(choice, h)
}

func (UptoPermit2) Request(u rails.Unsigned) (rails.Request, error) { return permit2RequestOf(u) }

func (UptoPermit2) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	return completeSigned(u, answer, chosen)
}

// Bound reads H back: permit2Authorization.nonce, in 0x hex or decimal.
func (UptoPermit2) Bound(presented jsonv.Value) (string, error) {
	got, err := uptoPermit2.presented(presented)
	if err != nil {
		return "", err
	}
	return got.h.String(), nil
}

// Summarize states the authorized maximum: signing lets the facilitator
// move up to permitted.amount of permitted.token to the witness's to, from
// validAfter until the deadline. The policy judges this maximum, not what
// the seller will charge.
func (UptoPermit2) Summarize(req rails.Request) (rails.Grant, error) {
	return uptoPermit2.summarize(req)
}

// Reference is what a seller records at claim: the network, settleBy, the
// token's Transfer from the payer to the payee (of any amount), and the
// authorization Permit2 records.
func (UptoPermit2) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	return uptoPermit2.reference(presented)
}

// Status reads a reference with a transaction: the transfer, then Permit2's
// record of nonce H at its block (Permit2Status).
func (UptoPermit2) Status(ref *jsonv.Object, r Reader) Status { return Permit2Status(ref, r) }

// Inspect states what a signed payment grants (the maximum) and where H
// sits.
func (UptoPermit2) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	return uptoPermit2.inspect(payment)
}
