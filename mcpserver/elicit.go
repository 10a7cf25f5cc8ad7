package mcpserver

// Approval by elicitation (docs/mcp.md, "Approval by the human"): when the
// client declared the elicitation capability, an agreement payment, and any
// payment above Config.ConfirmAbove or ConfirmAboveUSD, is put to the human
// with elicitation/create after the spend policy allowed it and before the
// signer is called. Only "accept" lets it be signed; decline, cancel, no
// answer in time or an answer that cannot be read sign nothing. A client
// without the capability keeps the approve round trip of atr_transact and
// atr_agree unchanged, and is never asked.

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/pay"
)

// The details of a payment the human did not approve, after the code
// no-payable-option; what follows the colon names the payment.
const (
	DetailHumanDeclined      = "mcp/human-declined"      // the human answered decline
	DetailHumanCancelled     = "mcp/human-cancelled"     // the human dismissed the question (cancel)
	DetailApprovalUnanswered = "mcp/approval-unanswered" // no readable answer in time: nothing is signed on doubt
)

// DefaultElicitationTimeout is how long the server waits for the human's
// answer when Config.ElicitationTimeout is zero.
const DefaultElicitationTimeout = 5 * time.Minute

// How the human is asked on the connection of a call.
type elicitMode int

const (
	elicitNone    elicitMode = iota // the client declared no elicitation: the approve round trip
	elicitRequest                   // a server-initiated elicitation/create, answered on the connection
	elicitRounds                    // the multi round-trip form: the call's result asks, the client calls again
)

// elicitMode is how the client of ctx's call can be asked, if at all:
//
//   - over stdio (ServeStdio's session, which matches the client's answers
//     to its requests by id), the server-initiated elicitation/create of the
//     2025 protocols, whatever version the client's calls name
//     (server.WithLegacyServerInitiatedRequests);
//   - over streamable HTTP, a call of a 2025 protocol version: the same
//     request, which mcp-go writes to the call's own POST response, turned
//     into an SSE stream, and whose answer the client POSTs back;
//   - over streamable HTTP, a call of protocol 2026-07-28 (which declares
//     its capabilities in its own _meta and has no stream for a server
//     request): the multi round-trip form (rounds.go).
//
// A client that does not answer is a refusal once the timeout passes, never
// a payment.
func (s *Server) elicitMode(ctx context.Context) elicitMode {
	sess := server.ClientSessionFromContext(ctx)
	if st, ok := sess.(*stdioSession); ok {
		if st.GetClientCapabilities().Elicitation != nil {
			return elicitRequest
		}
		return elicitNone
	}
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		if info.ClientCapabilities != nil && info.ClientCapabilities.Elicitation != nil {
			return elicitRounds
		}
		return elicitNone
	}
	ci, ok := sess.(server.SessionWithClientInfo)
	if _, asks := sess.(server.SessionWithElicitation); !ok || !asks || ci.GetClientCapabilities().Elicitation == nil {
		return elicitNone
	}
	return elicitRequest
}

// canElicit reports whether the human can be asked on ctx's call at all.
func (s *Server) canElicit(ctx context.Context) bool { return s.elicitMode(ctx) != elicitNone }

// aboveConfirm reports whether the payment must be put to the human for its
// size: above ConfirmAbove in the asset's atomic units, or above
// ConfirmAboveUSD in dollars. An asset the USD table cannot value is put
// to the human when ConfirmAboveUSD is set: its worth is in doubt.
func (s *Server) aboveConfirm(sum pay.Summary) bool {
	amount := sum.Adds()
	if s.confirmAbove != nil && amount.Cmp(s.confirmAbove) > 0 {
		return true
	}
	if s.confirmAboveUSD != nil {
		c, ok := pay.LookupUSD(sum.Network, sum.Asset)
		if !ok || c.Decimals < 0 {
			return true
		}
		usd := new(big.Rat).SetFrac(amount, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(c.Decimals)), nil))
		return usd.Cmp(s.confirmAboveUSD) > 0
	}
	return false
}

// approval is what one tool call puts to the human: the terms' link (or
// the agreement URL), and whether the next payment asked about is an
// agreement payment.
type approval struct {
	srv       *Server
	link      string
	agreement string // the agreement URL, when the payment is part of one
	// agreementFirst: the first payment asked about is the agreement
	// payment (the gate pays it before the offer's own).
	agreementFirst bool
	asked          int
	// offer, when set, builds the offer payment that follows the agreement
	// payment (gate.Confirm: no signer is called), so that the multi
	// round-trip form can ask about both in one round (rounds.go). Nil
	// when nothing follows the agreement payment (atr_agree) or the call
	// builds no payment to sign.
	offer func(ctx context.Context) (*pay.Summary, error)
}

// approve is called for each payment the policy allowed, before it is
// signed. A nil error lets it be signed.
func (a *approval) approve(ctx context.Context, sum pay.Summary) error {
	isAgreement := a.agreementFirst && a.asked == 0
	a.asked++
	mode := a.srv.elicitMode(ctx)
	if mode == elicitNone {
		return nil
	}
	if mode == elicitRounds && roundsOf(ctx).asking() {
		// A question is out: nothing more is signed in this round.
		return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailApprovalUnanswered + ": " + paymentWhat(sum) + " (another payment of this call awaits the human's answer)"}
	}
	if !isAgreement && !a.srv.aboveConfirm(sum) {
		return nil
	}
	if mode == elicitRounds {
		return a.srv.askByRound(ctx, a, sum, isAgreement, a.asked > 1)
	}
	return a.srv.elicit(ctx, approvalMessage(sum, isAgreement, a.link, a.agreement, ""), sum)
}

// paymentWhat names a payment in a refusal's detail.
func paymentWhat(sum pay.Summary) string {
	return fmt.Sprintf("%s of %s %s to %s", sum.Adds(), sum.Network, sum.Asset, sum.Payee)
}

// What an agreement payment's question and its offer payment's say when
// the multi round-trip form asks them together (rounds.go).
const (
	pairedAgreement = "Asked together with the offer's own payment: the agreement is paid only if both are accepted."
	pairedOffer     = "Asked together with the agreement payment, which is paid first: declining either signs neither."
)

// approvalMessage is the question the human reads: what is paid, to whom,
// the terms' hash and where the terms are; paired, when set, says which
// other question it is asked with.
func approvalMessage(sum pay.Summary, agreement bool, link, agreementURL, paired string) string {
	var b strings.Builder
	if agreement && paired != "" {
		b.WriteString("Approve the agreement payment (it records your acceptance of the seller's terms)?\n")
	} else if agreement {
		b.WriteString("Approve the agreement payment (it records your acceptance of the seller's terms; the offer's own payment is asked about separately if it needs approval)?\n")
	} else {
		b.WriteString("Approve this payment?\n")
	}
	name := sum.AssetName
	if name == "" {
		name = "token"
	}
	amount := "?"
	if sum.Amount != nil {
		amount = sum.Amount.String()
	}
	units := ""
	if u := sum.Units(); u != "" {
		units = " (" + u + " " + name + ")"
	}
	fmt.Fprintf(&b, "Pay: %s atomic units of %s %s%s on %s\n", amount, name, sum.Asset, units, sum.Network)
	if sum.ChannelSigned != nil {
		fmt.Fprintf(&b, "In a channel: that is the cumulative total; this voucher adds %s atomic units to the %s signed before\n", sum.Adds(), sum.ChannelSigned)
	}
	fmt.Fprintf(&b, "To: %s\n", sum.Payee)
	if sum.Payer != "" {
		fmt.Fprintf(&b, "From: %s\n", sum.Payer)
	}
	if sum.Unbound {
		b.WriteString("Terms: NONE (the offer publishes no terms; the payment binds none)\n")
	} else {
		fmt.Fprintf(&b, "Terms hash (H): %s\n", sum.H)
	}
	if link != "" {
		fmt.Fprintf(&b, "Terms: %s\n", link)
	}
	if agreementURL != "" {
		fmt.Fprintf(&b, "Agreement URL: %s\n", agreementURL)
	}
	if !sum.PayableUntil.IsZero() {
		fmt.Fprintf(&b, "Payable until: %s\n", sum.PayableUntil.UTC().Format(time.RFC3339))
	}
	if paired != "" {
		b.WriteString(paired + "\n")
	}
	b.WriteString("Accept to sign it; decline or cancel signs nothing.")
	return b.String()
}

// elicit asks the human and waits, at most the elicitation timeout. The
// form asks for nothing: the answer's action is the approval.
func (s *Server) elicit(ctx context.Context, msg string, sum pay.Summary) error {
	step(ctx, "Asking the human to approve the payment")
	ctx, cancel := context.WithTimeout(ctx, s.elicitTimeout)
	defer cancel()
	res, err := s.mcp.RequestElicitation(ctx, mcp.ElicitationRequest{
		Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
		Params: mcp.ElicitationParams{
			Mode:            mcp.ElicitationModeForm,
			Message:         msg,
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		},
	})
	what := paymentWhat(sum)
	if err != nil {
		why := err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			why = "no answer within " + s.elicitTimeout.String()
		}
		return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailApprovalUnanswered + ": " + what + " (" + why + ")", Err: err}
	}
	return answered(res, what)
}

// answered is the human's answer as the gate takes it: only accept lets
// the payment be signed.
func answered(res *mcp.ElicitationResult, what string) error {
	switch res.Action {
	case mcp.ElicitationResponseActionAccept:
		return nil
	case mcp.ElicitationResponseActionDecline:
		return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailHumanDeclined + ": " + what + " (the human declined the payment)"}
	case mcp.ElicitationResponseActionCancel:
		return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailHumanCancelled + ": " + what + " (the human cancelled the question)"}
	default:
		return &gate.Decline{Code: gate.NoPayableOption, Detail: fmt.Sprintf("%s: %s (the answer's action %q is none of accept, decline, cancel)", DetailApprovalUnanswered, what, res.Action)}
	}
}
