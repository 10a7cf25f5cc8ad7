package mcpserver

// Approval in the multi round-trip form (docs/mcp.md, "Approval by the
// human"): a call of protocol 2026-07-28 over streamable HTTP has no stream
// for a server request, so the question is the call's result: an
// input_required result carrying the elicitation/create requests and, as
// requestState, the sealed digests of the payments asked about. The client
// asks the human and calls the tool again with the answers; the call runs
// again from the start (fetch, compare, policy), and a payment it reaches is
// signed only when its own answer is accept and the sealed digest is that
// payment's: a payment that changed between the rounds is asked about
// again. Nothing is signed in a round that asks.
//
// A call signs its payments in one run, so a question after a first payment
// was signed cannot be a new round (it would run the call, and sign the
// first payment, again). atr_transact therefore asks about its offer
// payment in the same round as the agreement payment when the offer needs a
// question too (gate.Confirm builds it without a signer), and the next
// round pays the agreement only when both answers are accept and both
// payments are still the ones asked about. A question that still comes
// after a signature (the offer changed in between) is refused, with
// DetailApprovalUnanswered, and nothing more is signed.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
)

// labelApproval seals the payments a round asked the human about.
const labelApproval label = "approval"

// approvalInput is the key of the question in inputRequests and of its
// answer in inputResponses; approvalOfferInput is the key of the offer
// payment's question when it is asked with the agreement payment's.
const (
	approvalInput      = "termsgate/approve"
	approvalOfferInput = "termsgate/approve-offer"
)

// maxState bounds the requestState read back: two digests, a time and a
// mac take under 400 bytes.
const maxState = 1024

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

// question is one payment put to the human in a round.
type question struct {
	key    string // its key in inputRequests and inputResponses
	digest string // approvalDigest
	msg    string
	what   string // paymentWhat
}

// askByRound approves sum with the answer the client brought for it, or
// makes this round's result the question. When sum is the agreement
// payment of atr_transact and the offer payment needs a question too, both
// are asked in the one round and both answers are read before the
// agreement is paid. earlier: a payment was already signed in this run.
func (s *Server) askByRound(ctx context.Context, a *approval, sum pay.Summary, agreement, earlier bool) error {
	q := question{key: approvalInput, digest: approvalDigest(sum, agreement), what: paymentWhat(sum),
		msg: approvalMessage(sum, agreement, a.link, a.agreement, "")}
	r := roundsOf(ctx)
	if r == nil {
		return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailApprovalUnanswered + ": " + q.what + " (the call carries no round to ask in)"}
	}
	qs := []question{q}
	if agreement && !earlier && a.offer != nil && s.confirms() {
		offer, err := a.offer(ctx)
		if err != nil {
			// The offer's payment cannot be built: paying the agreement
			// would buy nothing. Nothing is signed.
			return err
		}
		if offer != nil && s.aboveConfirm(*offer) {
			qs[0].msg = approvalMessage(sum, true, a.link, a.agreement, pairedAgreement)
			qs = append(qs, question{key: approvalOfferInput, digest: approvalDigest(*offer, false),
				msg: approvalMessage(*offer, false, a.link, "", pairedOffer), what: paymentWhat(*offer)})
		}
	}
	asked := s.askedIn(r.state)
	if allAnswered(asked, r.responses, qs, earlier) {
		// Every payment of the question is answered, in its own entry: the
		// first refusal in payment order ends the call, so a declined offer
		// leaves its agreement unpaid.
		for i, q := range qs {
			if err := answerOf(r.responses, keyOf(asked, q.digest), q.what); err != nil {
				if i > 0 {
					return withAgreementUnpaid(err, qs[0].what)
				}
				return err
			}
		}
		return nil
	}
	if earlier {
		return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailApprovalUnanswered + ": " + q.what +
			" (this client is asked by calling again, which would sign this call's earlier payment again; call again to be asked about this one)"}
	}
	step(ctx, "Asking the human to approve the payment")
	digests := &jsonv.Object{}
	b := server.NewInputRequestBuilder("")
	for _, q := range qs {
		digests.Set(q.key, q.digest)
		b.Elicit(q.key, mcp.ElicitationParams{
			Mode:            mcp.ElicitationModeForm,
			Message:         q.msg,
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		})
	}
	until := s.now().Add(s.elicitTimeout).Unix()
	state := jsonv.Marshal(s.seal.seal(labelApproval, jsonv.Obj("payments", digests, "until", until)))
	r.pending = b.RequestState(string(state)).ToolResult()
	return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailApprovalUnanswered + ": " + q.what + " (put to the human; the answer comes with the next round of the call)"}
}

// allAnswered reports whether the previous round asked about exactly the
// payments of qs (for a payment reached after a signature, about it among
// others) and the client brought an answer for each.
func allAnswered(asked map[string]string, responses mcp.InputResponses, qs []question, earlier bool) bool {
	if asked == nil || !earlier && len(asked) != len(qs) {
		return false
	}
	for _, q := range qs {
		k := keyOf(asked, q.digest)
		if k == "" {
			return false
		}
		if _, has := responses[k]; !has {
			return false
		}
	}
	return true
}

// keyOf is the key the previous round asked about the payment of digest
// under; "" if it did not.
func keyOf(asked map[string]string, digest string) string {
	for k, d := range asked {
		if d == digest {
			return k
		}
	}
	return ""
}

// answerOf is the answer under key as the gate takes it.
func answerOf(responses mcp.InputResponses, key, what string) error {
	res := server.ElicitationResponse(responses, key)
	if res == nil {
		return &gate.Decline{Code: gate.NoPayableOption, Detail: DetailApprovalUnanswered + ": " + what + " (the answer is not an elicitation result)"}
	}
	return answered(res, what)
}

// withAgreementUnpaid adds to the offer payment's refusal that its
// agreement payment, asked about with it, is not paid either.
func withAgreementUnpaid(err error, agreementWhat string) error {
	var d *gate.Decline
	if errors.As(err, &d) {
		c := *d
		c.Detail += "; the agreement payment asked about with it (" + agreementWhat + ") is not paid either"
		return &c
	}
	return err
}

// askedIn is what a round's requestState names, if it is one this server
// sealed and it has not run out: the payments' digests by their keys; nil
// otherwise.
func (s *Server) askedIn(state string) map[string]string {
	if state == "" || len(state) > maxState {
		return nil
	}
	v, err := jsonv.Parse([]byte(state))
	if err != nil {
		return nil
	}
	members, d := s.seal.open(labelApproval, v)
	if d != nil {
		return nil
	}
	u, _ := members.Get("until")
	until, ok := jsonv.AsSafeInt(u)
	if !ok || s.now().Unix() > until {
		return nil
	}
	payments, ok := members.GetObject("payments")
	if !ok || payments.Len() == 0 || payments.Len() > 2 {
		return nil
	}
	asked := make(map[string]string, payments.Len())
	for _, k := range payments.Keys() {
		d, ok := payments.GetString(k)
		if !ok {
			return nil
		}
		asked[k] = d
	}
	return asked
}

// confirms reports whether a payment other than an agreement payment can
// need the human's approval: --confirm-above or --confirm-above-usd is set.
func (s *Server) confirms() bool { return s.confirmAbove != nil || s.confirmAboveUSD != nil }

// now is the server's clock: the gate's, the wall clock when none is set.
func (s *Server) now() time.Time {
	if s.gate.Now != nil {
		return s.gate.Now()
	}
	return time.Now()
}
