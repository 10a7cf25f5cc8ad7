package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

func hint(b bool) *bool { return &b }

// The annotations of docs/protocol.md, "The MCP server". "Read-only" is the gate's view:
// confirm fetches (open world) but signs and sends nothing.
var (
	readOnlyClosed = mcp.ToolAnnotation{ReadOnlyHint: hint(true), OpenWorldHint: hint(false)}
	readOnlyOpen   = mcp.ToolAnnotation{ReadOnlyHint: hint(true), OpenWorldHint: hint(true)}
	pays           = mcp.ToolAnnotation{ReadOnlyHint: hint(false), DestructiveHint: hint(false), IdempotentHint: hint(false), OpenWorldHint: hint(true)}
)

// toolSet is the tools of this configuration, in the order an agent uses
// them (docs/protocol.md, "The MCP server").
func (s *Server) toolSet() []toolDef {
	tools := []toolDef{
		define[readArgs, readOut]("atr_read", "Read an offer",
			"Report what a seller's payment document advertises for one pairing: the ATR hash as written, the ATR link, the agreement URL if any, and the options. Fetches nothing, checks nothing, signs nothing: an advertised hash is not a confirmation. Use atr_confirm before any payment.",
			readOnlyClosed, s.read),
		define[confirmArgs, confirmOut]("atr_confirm", "Confirm the ATR before paying",
			"Use before approving any payment. Fetches the seller's terms (the ATR) from the offer's link, compares SHA-256 of the exact bytes with the advertised hash, and only then returns the bytes (atr), chosen, and the request to sign, built with that hash. Sign exactly request, then call atr_finish. On a mismatch or any other decline the result is an error and there is nothing to sign. chosen is opaque: pass it back unchanged, mac included. When chosen.agreement is set there is no request until you pay that agreement (atr_agree) and call atr_confirm again with its receipt.",
			readOnlyOpen, s.confirm),
		define[finishArgs, finishOut]("atr_finish", "Finish a payment signed elsewhere",
			"After signing atr_confirm's request: rebuilds the payment from chosen and the ATR bytes, joins your signature, and releases the payment only if what was signed carries the ATR's hash. Send the seller only signed. A result with next is a multi-step payment: sign next and call again with every answer so far, in order, as a list.",
			readOnlyClosed, s.finish),
		define[checkArgs, checkOut]("atr_check", "Check a held payment",
			"Re-check that a payment you hold carries the hash of the ATR bytes you kept (put landed back when atr_finish returned it). Returns atrHash, or a signed-not-bound decline.",
			readOnlyClosed, s.check),
	}
	tools = append(tools, s.channelTools()...)
	if s.signer != nil {
		tools = append(tools, define[transactArgs, transactOut]("atr_transact", "Confirm and pay with the host's wallet",
			"Confirms the offer as atr_confirm does and, only when the ATR's hash matched, signs with this server's wallet and finishes. It may instead return approve (an agreement payment: amount in atomic units, asset, payee payTo, network) and sign nothing: approve it as you would any payment, then call again with approved set to it, unchanged. Never call again to re-sign a payment that is settling; present the one you have.",
			pays, s.transact))
	}
	if s.payer() != nil {
		tools = append(tools, define[agreeArgs, agreeOut]("atr_agree", "Pay the agreement for chosen",
			"Pays the agreement payment for chosen's agreement URL (the URL is taken from chosen, never from an argument). Without approved it returns approve and signs nothing; with approved, unchanged, it pays and returns the receipt to pass to atr_confirm. chosen must be exactly as atr_confirm returned it.",
			pays, s.agree))
	}
	if s.signer != nil {
		tools = append(tools, s.channelWithinTool())
	}
	return tools
}

func (s *Server) read(_ context.Context, a *readArgs) (*jsonv.Object, error) {
	doc, err := documentOf("atr_read", a.Pairing, a.Document, a.Header)
	if err != nil {
		return nil, err
	}
	o, err := s.gate.Read(doc, a.Pairing)
	if err != nil {
		return nil, err
	}
	return o.JSON(), nil
}

// inputs passes an absent inputs argument as no JSON at all, never as a
// typed nil inside an interface.
func inputs(o *jsonv.Object) jsonv.Value {
	if o == nil {
		return nil
	}
	return o
}

const detailBadReceipt = "The agreement receipt is not a recorded agreement for this ATR hash."

func (s *Server) confirm(ctx context.Context, a *confirmArgs) (*jsonv.Object, error) {
	doc, err := documentOf("atr_confirm", a.Pairing, a.Document, a.Header)
	if err != nil {
		return nil, err
	}
	step(ctx, "Fetching the ATR and comparing its hash with the advertised one")
	in, err := s.inputsFor(ctx, a.Pairing, doc, a.Account, a.Inputs)
	if err != nil {
		return nil, err
	}
	c, err := s.gate.Confirm(ctx, doc, a.Pairing, a.Account, in)
	if err != nil {
		return nil, err
	}
	out := c.JSON()
	if c.Request != nil && (c.Chosen.Agreement == "" || a.Receipt != nil) {
		rail, _ := s.gate.Pairings.Lookup(a.Pairing)
		ps := gate.PaymentSummary{Pairing: a.Pairing, H: c.H, Request: c.Request, Chosen: c.Chosen, Rail: rail}
		if sum, err := pay.Summarize(ps); err == nil {
			out.Set("summary", sum.JSON())
		}
	}
	if s.policy != nil {
		out.Set("limits", s.policy.JSON())
	}
	out.Set("chosen", s.seal.seal(labelChosen, c.Chosen.JSON()))
	if c.Chosen.Agreement != "" {
		// No request without the agreement's receipt: the payment itself
		// proves nothing publicly. The receipt is not fetched to be checked;
		// its transaction is the public proof.
		if a.Receipt == nil {
			out.Delete("request")
		} else if !recordedFor(*a.Receipt, c.H) {
			return nil, &gate.Decline{Code: gate.AgreementFailed, Detail: detailBadReceipt}
		}
	}
	return out, nil
}

// recordedFor reports whether v is {atrHash: h, agreed: true, network:
// string, transaction: string}.
func recordedFor(v jsonv.Value, h atr.Hash) bool {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return false
	}
	hash, ok1 := o.GetString("atrHash")
	agreed, _ := o.Get("agreed")
	_, ok2 := o.GetString("network")
	_, ok3 := o.GetString("transaction")
	return ok1 && ok2 && ok3 && agreed == true && atr.EqualText(hash, h)
}

func (s *Server) finish(_ context.Context, a *finishArgs) (*jsonv.Object, error) {
	// The mac is removed, not verified: finish rebuilds everything from the
	// choice and the bytes and trusts nothing else in chosen.
	members := a.Chosen.Clone()
	members.Delete("mac")
	chosen, err := gate.ParseChosen(members)
	if err != nil {
		return nil, err
	}
	f, err := s.gate.Finish(a.ATR, a.Pairing, chosen, a.Signature)
	if err != nil {
		return nil, err
	}
	out := f.JSON()
	setHeader(out, a.Pairing, f.Signed)
	if mac := s.openingMac(a.Pairing, f.Signed); mac != "" {
		out.Set("mac", mac)
	}
	return out, nil
}

func (s *Server) check(_ context.Context, a *checkArgs) (*jsonv.Object, error) {
	h, err := s.gate.Check(a.ATR, a.Pairing, a.Presented)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("atrHash", h.String()), nil
}

func (s *Server) transact(ctx context.Context, a *transactArgs) (*jsonv.Object, error) {
	doc, err := documentOf("atr_transact", a.Pairing, a.Document, a.Header)
	if err != nil {
		return nil, err
	}
	// The first report comes before anything slow (the inputs from a chain's
	// node, the fetch), so that the agent hears at once that the call runs.
	step(ctx, "Fetching the ATR and comparing its hash; the wallet signs only after it matched")
	in, err := s.inputsFor(ctx, a.Pairing, doc, s.signer.Account(), a.Inputs)
	if err != nil {
		return nil, err
	}
	opts := &gate.TransactOptions{Inputs: in, AgreementSigner: s.agreementSigner}
	if a.Approved != nil {
		// Read before anything is fetched: a malformed approval is the
		// agent's mistake, not the seller's.
		ap, err := gate.ParseAgreementPayment(a.Approved, rails.Namespace(a.Pairing))
		if err != nil {
			return nil, err
		}
		opts.Approved = ap
	}
	g := *s.gate
	rec := &recording{inner: s.gate.Policy, approval: s.approvalFor(doc, a.Pairing)}
	rec.approval.offer = func(ctx context.Context) (*pay.Summary, error) {
		return s.offerSummary(ctx, doc, a.Pairing, in)
	}
	g.Policy = rec
	t, err := g.Transact(ctx, doc, a.Pairing, s.signer, opts)
	if err == nil && t.Approve != nil && opts.Approved == nil && s.canElicit(ctx) {
		// The human approves the agreement payment (asked by rec before it
		// is signed) in place of the agent's approve round trip.
		opts.Approved = t.Approve
		rec.approval.asked = 0
		t, err = g.Transact(ctx, doc, a.Pairing, s.signer, opts)
	}
	if err != nil {
		return nil, err
	}
	out := t.JSON()
	if t.Approve == nil && t.Signed != nil {
		setHeader(out, a.Pairing, t.Signed)
		if rec.summary != nil {
			out.Set("summary", rec.summary.JSON())
		}
	}
	if s.policy != nil {
		out.Set("limits", s.policy.JSON())
	}
	if mac := s.openingMac(a.Pairing, t.Signed); mac != "" && t.Approve == nil {
		out.Set("mac", mac)
	}
	return out, nil
}

const detailNoAgreementURL = "The chosen payment names no agreement URL."

func (s *Server) agree(ctx context.Context, a *agreeArgs) (*jsonv.Object, error) {
	// The seal first: nothing is fetched or signed for a chosen this server
	// did not return, unchanged.
	members, d := s.seal.open(labelChosen, a.Chosen)
	if d != nil {
		return nil, d
	}
	url, ok := members.GetString("agreement")
	if !ok {
		return nil, &gate.Decline{Code: gate.OfferUnreadable, Detail: detailNoAgreementURL}
	}
	pairing, _ := members.GetString("pairing")
	opts := &gate.AgreeOptions{Inputs: inputs(a.Inputs)}
	if a.Approved != nil {
		ap, err := gate.ParseAgreementPayment(a.Approved, rails.Namespace(pairing))
		if err != nil {
			return nil, err
		}
		opts.Approved = ap
	}
	step(ctx, "Running the agreement exchange")
	g := *s.gate
	rec := &recording{inner: s.gate.Policy, approval: &approval{srv: s, agreement: url, agreementFirst: true}}
	g.Policy = rec
	r, err := g.Agree(ctx, a.ATR, url, s.payer(), opts)
	if err == nil && r.Approve != nil && opts.Approved == nil && s.canElicit(ctx) {
		// As atr_transact: the human approves the payment before it is
		// signed, in place of the agent's round trip.
		opts.Approved = r.Approve
		rec.approval.asked = 0
		r, err = g.Agree(ctx, a.ATR, url, s.payer(), opts)
	}
	if err != nil {
		return nil, err
	}
	if r.Approve == nil && r.Receipt == nil {
		return nil, &gate.Decline{Code: gate.AgreementFailed, Detail: "The agreement exchange gave neither a payment to approve nor a receipt."}
	}
	return r.JSON(), nil
}

// offerSummary is the offer payment atr_transact signs after the
// agreement payment, as gate.Confirm builds it for the signer's account (it
// fetches and compares; it never calls a signer); nil when there is nothing
// to sign.
func (s *Server) offerSummary(ctx context.Context, doc jsonv.Value, pairing string, in jsonv.Value) (*pay.Summary, error) {
	c, err := s.gate.Confirm(ctx, doc, pairing, s.signer.Account(), in)
	if err != nil || c.Request == nil {
		return nil, err
	}
	rail, _ := s.gate.Pairings.Lookup(pairing)
	sum, err := pay.Summarize(gate.PaymentSummary{Pairing: pairing, H: c.H, Request: c.Request, Chosen: c.Chosen, Rail: rail})
	if err != nil {
		return nil, err
	}
	return &sum, nil
}

// approvalFor is what atr_transact shows the human for doc: the terms'
// link, the agreement URL, and whether an agreement payment comes first (a
// pairing whose payment is no public proof). An unreadable doc gives no
// link; the gate declines it before anything is asked.
func (s *Server) approvalFor(doc jsonv.Value, pairing string) *approval {
	a := &approval{srv: s}
	if o, err := s.gate.Read(doc, pairing); err == nil {
		a.link, a.agreementFirst = o.Link, !o.PublicProof
		if !o.PublicProof {
			a.agreement = o.Agreement
		}
	}
	return a
}

// documentOf is the seller's document from the document argument, or from
// the header text as the seller sent it: x402's PAYMENT-REQUIRED value, or
// MPP's WWW-Authenticate value. Exactly one of the two is given.
func documentOf(tool, pairing string, doc jsonv.Value, header string) (jsonv.Value, error) {
	switch {
	case doc != nil && header != "":
		return nil, argErrorf("%s: give document or header, not both. Nothing was done.", tool)
	case doc != nil:
		return doc, nil
	case header == "":
		return nil, argErrorf("%s: missing argument \"document\" (or \"header\", the seller's header value as sent). Nothing was done.", tool)
	}
	switch ns := rails.Namespace(pairing); ns {
	case "x402":
		d, err := rails.Guard("x402.DecodeHeader", tool+"'s header", func() (*jsonv.Object, error) { return x402.DecodeHeader(header) })
		if err != nil {
			return nil, &gate.Decline{Code: gate.OfferUnreadable, Detail: pay.DetailRequiredUnreadable, Err: err}
		}
		return d, nil
	case "mpp":
		list, err := rails.Guard("mpp.ParseChallenges", tool+"'s header", func() ([]jsonv.Value, error) { return mpp.ParseChallenges([]string{header}) })
		if err != nil {
			return nil, &gate.Decline{Code: gate.OfferUnreadable, Detail: mpp.CodeHeaderMalformed, Err: err}
		}
		return list, nil
	default:
		return nil, argErrorf("%s: the pairing %s takes no header; give document. Nothing was done.", tool, pairing)
	}
}

// setHeader adds {header: {name, value}} for a payment of x402 or MPP: what
// to retry the seller's request with.
func setHeader(out *jsonv.Object, pairing string, signed jsonv.Value) {
	if signed == nil {
		return
	}
	switch rails.Namespace(pairing) {
	case "x402":
		out.Set("header", jsonv.Obj("name", pay.HeaderSignature, "value", x402.EncodeHeader(signed)))
	case "mpp":
		if cred, ok := jsonv.AsObject(signed); ok && cred != nil {
			name, value := mpp.Header(cred)
			out.Set("header", jsonv.Obj("name", name, "value", value))
		}
	}
}

// recording is one atr_transact's policy: it keeps the summary of what the
// wallet is asked to sign (the last request the gate asked about: the main
// payment, after any agreement payment) and passes every question and
// settlement to the server's policy.
//
// With an approval, a payment the policy allowed is then put to the human
// when it must be (elicit.go); a refusal releases what the policy reserved.
type recording struct {
	inner    gate.Policy
	summary  *pay.Summary
	approval *approval
}

func (r *recording) Allow(ctx context.Context, ps gate.PaymentSummary) error {
	sum, err := pay.Summarize(ps)
	if err != nil {
		return err
	}
	r.summary = &sum
	if r.inner != nil {
		if err := r.inner.Allow(ctx, ps); err != nil {
			return err
		}
	}
	if r.approval == nil {
		return nil
	}
	if err := r.approval.approve(ctx, sum); err != nil {
		r.Release(ctx, ps)
		return err
	}
	return nil
}

func (r *recording) Commit(ctx context.Context, ps gate.PaymentSummary) {
	if res, ok := r.inner.(gate.Reserver); ok {
		res.Commit(ctx, ps)
	}
}

func (r *recording) Release(ctx context.Context, ps gate.PaymentSummary) {
	if res, ok := r.inner.(gate.Reserver); ok {
		res.Release(ctx, ps)
	}
}
