package mcpserver

// Approval in the multi round-trip form (docs/mcp.md, "Approval by the
// human"): a call of protocol 2026-07-28 over streamable HTTP has no stream
// for a server request, so the question is the call's result: an
// input_required result carrying the elicitation/create request and, as
// requestState, a sealed digest of the payment asked about. The client asks
// the human and calls the tool again with the answer; the call runs again
// from the start (fetch, compare, policy), and the payment it reaches is
// signed only when the answer is accept and the sealed digest is that
// payment's: a payment that changed between the rounds is asked about
// again. Nothing is signed in a round that asks.
//
// A call signs its payments in one run, so a second question after a first
// payment was signed cannot be a new round (it would run the call, and sign
// the first payment, again): that payment is refused, with
// DetailApprovalUnanswered, and nothing more is signed.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
)

// labelApproval seals the payment a round asked the human about.
const labelApproval label = "approval"

// approvalInput is the key of the question in inputRequests and of its
// answer in inputResponses.
const approvalInput = "termsgate/approve"

// rounds is one call's multi round-trip exchange: what the client answered
// to the previous round, and the question this round asks, if any.
type rounds struct {
	responses mcp.InputResponses
	state     string
	pending   *mcp.CallToolResult
}

type roundsKey struct{}

func roundsOf(ctx context.Context) *rounds {
	r, _ := ctx.Value(roundsKey{}).(*rounds)
	return r
}

// asking reports whether this round already asks a question.
func (r *rounds) asking() bool { return r != nil && r.pending != nil }

// approvalDigest names what the human approves: the payment's terms, its
// asset, amount (and, in a channel, what was signed before), payer and
// payee, and whether it is the agreement payment. Not its deadline, which a
// new round builds afresh.
func approvalDigest(sum pay.Summary, agreement bool) string {
	amount, signedBefore, period := "", "", int64(sum.Period)
	if sum.Amount != nil {
		amount = sum.Amount.String()
	}
	if sum.ChannelSigned != nil {
		signedBefore = sum.ChannelSigned.String()
	}
	o := jsonv.Obj("pairing", sum.Pairing, "h", sum.H.String(), "unbound", sum.Unbound, "network", sum.Network,
		"asset", sum.Asset, "amount", amount, "signedBefore", signedBefore, "period", period,
		"payer", sum.Payer, "payee", sum.Payee, "agreement", agreement)
	d := sha256.Sum256(jsonv.Canonical(o))
	return hex.EncodeToString(d[:])
}

// askByRound approves sum with the answer the client brought for it, or
// makes this round's result the question. earlier: a payment was already
// signed in this run.
func (s *Server) askByRound(ctx context.Context, msg string, sum pay.Summary, agreement, earlier bool) error {
	r := roundsOf(ctx)
	what := paymentWhat(sum)
	if r == nil {
		return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailApprovalUnanswered + ": " + what + " (the call carries no round to ask in)"}
	}
	digest := approvalDigest(sum, agreement)
	if _, has := r.responses[approvalInput]; has && s.answersFor(r.state) == digest {
		res := server.ElicitationResponse(r.responses, approvalInput)
		if res == nil {
			return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailApprovalUnanswered + ": " + what + " (the answer is not an elicitation result)"}
		}
		return answered(res, what)
	}
	if earlier {
		return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailApprovalUnanswered + ": " + what +
			" (this client is asked by calling again, which would sign this call's earlier payment again; call again to be asked about this one)"}
	}
	step(ctx, "Asking the human to approve the payment")
	state := jsonv.Marshal(s.seal.seal(labelApproval, jsonv.Obj("payment", digest)))
	r.pending = server.NewInputRequestBuilder(string(state)).Elicit(approvalInput, mcp.ElicitationParams{
		Mode:            mcp.ElicitationModeForm,
		Message:         msg,
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	}).ToolResult()
	return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailApprovalUnanswered + ": " + what + " (put to the human; the answer comes with the next round of the call)"}
}

// answersFor is the payment digest a round's requestState names, if it is
// one this server sealed; "" otherwise.
func (s *Server) answersFor(state string) string {
	if state == "" || len(state) > 1024 {
		return ""
	}
	v, err := jsonv.Parse([]byte(state))
	if err != nil {
		return ""
	}
	members, d := s.seal.open(labelApproval, v)
	if d != nil {
		return ""
	}
	digest, _ := members.GetString("payment")
	return digest
}
