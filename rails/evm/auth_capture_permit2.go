package evm

import (
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// AuthCapturePermit2 is x402/auth-capture/eip155/permit2. Where H goes: as
// for x402/auth-capture/eip155/eip3009, the escrow PaymentInfo's salt is H
// (or commits to it, payload.saltNonce); the nonce of the Permit2
// PermitTransferFrom the payer signs (spender the escrow's Permit2
// collector, no witness) is that PaymentInfo's hash with the payer zero,
// as a uint256 (docs/auth-capture.md).
type AuthCapturePermit2 struct{}

// AuthCapturePermit2ID is the pairing id.
const AuthCapturePermit2ID = "x402/auth-capture/eip155/permit2"

var (
	_ rails.Pairing    = AuthCapturePermit2{}
	_ rails.Summarizer = AuthCapturePermit2{}
)

var authCapturePermit2 = authCapture{id: AuthCapturePermit2ID, method: "permit2"}

func (AuthCapturePermit2) ID() string { return AuthCapturePermit2ID }

func (AuthCapturePermit2) Pattern() rails.Pattern {
	return rails.Pattern{Name: "id-reuse", PublicProof: true}
}

func (AuthCapturePermit2) Read(doc jsonv.Value) (rails.Read, error) {
	return authCapturePermit2.read(doc)
}

func (AuthCapturePermit2) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseEVM(read, account, now)
}

// Build signs a PermitTransferFrom of the option's amount to the escrow's
// Permit2 collector, until now + maxTimeoutSeconds, whose nonce is the
// payment hash.
func (AuthCapturePermit2) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	b, err := authCapturePermit2.built(choice, h)
	if err != nil {
		return nil, err
	}
	amount, _ := b.c.accepted.GetString("amount")
	deadline := strconv.FormatInt(b.c.deadline, 10)
	collector := b.t.deployment.Permit2Collector
	nonce := NonceDecimal(b.nonce)
	td, err := Permit2Permit{ChainID: b.t.chainID, Permitted: []Permit2Token{{Token: b.t.token, Amount: amount}},
		Spender: collector, Nonce: nonce, Deadline: deadline}.TypedData()
	if err != nil {
		return nil, rails.Refuse("x402/option-malformed")
	}
	authorization := jsonv.Obj("permitted", jsonv.Obj("token", b.t.token, "amount", amount),
		"from", b.c.from, "spender", collector, "nonce", nonce, "deadline", deadline)
	salts := b.salts
	return &signedUnsigned{required: b.c.required, accepted: b.c.accepted, typedData: td, request: b.request(td),
		payload: func(sig string) *jsonv.Object {
			p := jsonv.Obj("signature", sig, "permit2Authorization", authorization.Clone())
			for i := 0; i+1 < len(salts); i += 2 {
				p.Set(salts[i].(string), salts[i+1])
			}
			return p
		}}, nil
}

func (AuthCapturePermit2) Request(u rails.Unsigned) (rails.Request, error) {
	return permit2RequestOf(u)
}

func (AuthCapturePermit2) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	return completeSigned(u, answer, chosen)
}

// Bound reads H back as AuthCaptureEIP3009's does, from the Permit2
// authorization's nonce.
func (AuthCapturePermit2) Bound(presented jsonv.Value) (string, error) {
	return authCapturePermit2.bound(presented)
}

// Summarize states what the permit lets be captured: at most maxAmount of
// the token, to the payment info's receiver, until the deadline. The
// request must be exactly a PermitTransferFrom to the escrow's Permit2
// collector whose nonce is the hash of the payment info it carries.
func (AuthCapturePermit2) Summarize(req rails.Request) (rails.Grant, error) {
	r, err := readPermit2Request(req, Permit2Permit{Permitted: []Permit2Token{{}}}, "escrow")
	if err != nil {
		return rails.Grant{}, err
	}
	if !strings.EqualFold(r.contract, Permit2Address) {
		return rails.Grant{}, rails.Refuse(CodeRequestUnreadable)
	}
	g := r.grant()
	return summarizeEscrow(req, g.Network, g.Asset, g.Amount.String(), r.nonce, r.deadline, r.spender, true)
}

// Reference is what a seller records at claim (docs/auth-capture.md).
func (AuthCapturePermit2) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	return authCapturePermit2.reference(presented)
}

// Status reads a reference with a transaction (RefStatus): the escrow's
// event with the payment hash.
func (AuthCapturePermit2) Status(ref *jsonv.Object, r Reader) Status {
	s, _ := RefStatus(ref, r)
	return s
}

// Inspect states what a signed payment grants and where H sits.
func (AuthCapturePermit2) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	return authCapturePermit2.inspect(payment)
}
