package evm

import (
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// AuthCaptureEIP3009 is x402/auth-capture/eip155/eip3009. Where H goes: the
// salt of the commerce-payments escrow's PaymentInfo is H (payload.salt),
// or, when the option names a receiver authorizer or a policy, a
// commitment to H (payload.saltNonce) with them; the nonce of the EIP-3009
// ReceiveWithAuthorization the payer signs (to the escrow's collector) is
// that PaymentInfo's hash with the payer zero, so the signature commits to
// H. The escrow's PaymentAuthorized event carries the payment hash
// (docs/auth-capture.md).
type AuthCaptureEIP3009 struct{}

// AuthCaptureEIP3009ID is the pairing id.
const AuthCaptureEIP3009ID = "x402/auth-capture/eip155/eip3009"

var (
	_ rails.Pairing    = AuthCaptureEIP3009{}
	_ rails.Summarizer = AuthCaptureEIP3009{}
)

var authCaptureEIP3009 = authCapture{id: AuthCaptureEIP3009ID, method: "eip3009"}

func (AuthCaptureEIP3009) ID() string { return AuthCaptureEIP3009ID }

func (AuthCaptureEIP3009) Pattern() rails.Pattern {
	return rails.Pattern{Name: "id-reuse", PublicProof: true}
}

func (AuthCaptureEIP3009) Read(doc jsonv.Value) (rails.Read, error) {
	return authCaptureEIP3009.read(doc)
}

func (AuthCaptureEIP3009) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	return chooseEVM(read, account, now)
}

// Build signs a ReceiveWithAuthorization of the option's amount from the
// payer to the escrow's EIP-3009 collector, valid until now +
// maxTimeoutSeconds (the pre-approval expiry), whose nonce is the payment
// hash.
func (AuthCaptureEIP3009) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	b, err := authCaptureEIP3009.built(choice, h)
	if err != nil {
		return nil, err
	}
	amount, _ := b.c.accepted.GetString("amount")
	collector := b.t.deployment.EIP3009Collector
	authorization := jsonv.Obj("from", b.c.from, "to", collector, "value", amount,
		"validAfter", "0", "validBefore", strconv.FormatInt(b.c.deadline, 10), "nonce", b.nonce.String())
	td := tokenAuthorization(b.t.tokenName, b.t.tokenVersion, b.t.chainID, b.t.token, receiveTypes, "ReceiveWithAuthorization", authorization)
	salts := b.salts
	return &signedUnsigned{required: b.c.required, accepted: b.c.accepted, typedData: td, request: b.request(td),
		payload: func(sig string) *jsonv.Object {
			p := jsonv.Obj("signature", sig, "authorization", authorization.Clone())
			for i := 0; i+1 < len(salts); i += 2 {
				p.Set(salts[i].(string), salts[i+1])
			}
			return p
		}}, nil
}

func (AuthCaptureEIP3009) Request(u rails.Unsigned) (rails.Request, error) {
	return permit2RequestOf(u)
}

func (AuthCaptureEIP3009) Complete(u rails.Unsigned, answer jsonv.Value, chosen rails.Chosen) (rails.Completion, error) {
	return completeSigned(u, answer, chosen)
}

// Bound reads H back: the salt (or the saltNonce it commits to), once the
// authorization's nonce is the payment hash over it.
func (AuthCaptureEIP3009) Bound(presented jsonv.Value) (string, error) {
	return authCaptureEIP3009.bound(presented)
}

// Summarize states what the authorization lets be captured: at most the
// payment info's maxAmount of the token, to its receiver, collectable until
// the pre-approval expiry. The request must be exactly a
// ReceiveWithAuthorization to the escrow's collector whose nonce is the
// hash of the payment info it carries.
func (AuthCaptureEIP3009) Summarize(req rails.Request) (rails.Grant, error) {
	g, err := SummarizeTransfer(withoutEscrow(req, "ReceiveWithAuthorization"))
	if err != nil {
		return rails.Grant{}, err
	}
	td, _ := req.GetObject("typedData")
	msg, _ := td.GetObject("message")
	nonce, _ := msg.GetString("nonce")
	before, _ := msg.GetString("validBefore")
	return summarizeEscrow(req, g.Network, g.Asset, g.Amount.String(), nonce, before, g.Payee, false)
}

// withoutEscrow is req without its escrow member, its primary type read as
// TransferWithAuthorization's (the two share their fields), for
// SummarizeTransfer's strict reading.
func withoutEscrow(req rails.Request, primary string) rails.Request {
	if req == nil {
		return nil
	}
	td, ok := req.GetObject("typedData")
	if !ok || req.Len() != 3 || !req.Has("escrow") {
		return jsonv.Obj()
	}
	if pt, _ := td.GetString("primaryType"); pt != primary {
		return jsonv.Obj()
	}
	types, _ := td.GetObject("types")
	if types == nil || types.Len() != 2 || !types.Has(primary) {
		return jsonv.Obj()
	}
	t := td.Clone()
	t.Set("primaryType", "TransferWithAuthorization")
	renamed := jsonv.Obj()
	for _, m := range types.Members() {
		k := m.Key
		if strings.EqualFold(k, primary) {
			k = "TransferWithAuthorization"
		}
		renamed.Set(k, m.Value)
	}
	t.Set("types", renamed)
	return jsonv.Obj("kind", "eip712", "typedData", t)
}

// Reference is what a seller records at claim (docs/auth-capture.md).
func (AuthCaptureEIP3009) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	return authCaptureEIP3009.reference(presented)
}

// Status reads a reference with a transaction (RefStatus): the escrow's
// event with the payment hash, and the transfer to the collector.
func (AuthCaptureEIP3009) Status(ref *jsonv.Object, r Reader) Status {
	s, _ := RefStatus(ref, r)
	return s
}

// Inspect states what a signed payment grants and where H sits.
func (AuthCaptureEIP3009) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	return authCaptureEIP3009.inspect(payment)
}
