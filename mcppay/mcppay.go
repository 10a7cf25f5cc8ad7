// Package mcppay pays paid MCP tools through the gate. A tool call answered
// with "payment required" is paid as pay.Transport pays an HTTP 402 (the
// seller's terms fetched and their SHA-256 compared with the advertised H,
// H bound into the payment, the spend policy asked, the payment journaled)
// and retried once with the payment; any other answer passes unchanged.
//
// Two MCP transports of payment are read (docs/mcp.md, "Paying paid MCP
// tools"):
//
//   - x402's: the answer is a tool result with isError and the
//     PaymentRequired document in structuredContent (or as the JSON of
//     content[0].text), or a JSON-RPC error 402 carrying it in data; the
//     retry carries the payment payload in params._meta["x402/payment"];
//     the settlement comes back in result._meta["x402/payment-response"].
//   - MPP's: a JSON-RPC error -32042 whose data.challenges are MPP
//     challenges with their request as JSON; the retry carries the
//     credential, echoing the chosen challenge unchanged, in
//     params._meta["org.paymentauth/credential"]; the receipt comes back in
//     result._meta["org.paymentauth/receipt"].
//
// Where H goes is the pairing's, as over HTTP: the x402 document's
// legalContext extension and the MPP challenge's opaque and id name it, and
// the pairing binds it into what is signed.
//
// Payer is the transport-neutral core; Client wraps an mcp-go client
// session, and Proxy is the stdio MCP server `termsgate proxy` runs in
// front of a paid server.
package mcppay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The _meta keys and JSON-RPC error codes of the two transports.
const (
	MetaX402Payment   = "x402/payment"
	MetaX402Response  = "x402/payment-response"
	MetaMPPCredential = "org.paymentauth/credential"
	MetaMPPReceipt    = "org.paymentauth/receipt"

	CodeX402PaymentRequired = 402
	CodeMPPPaymentRequired  = -32042
)

// MetaDecline is the _meta key of a decline's JSON on the tool error the
// Proxy answers with, for a client that reads _meta rather than the text.
const MetaDecline = "termsgate/decline"

// Details of mcppay's own declines.
const (
	// DetailRequiredUnreadable: the tool's answer asks for payment (by its
	// error code, or an isError result naming x402Version and accepts) but
	// what it carries is not one bounded, strict JSON document of the
	// transport's shape. Code offer-unreadable; nothing fetched or signed.
	DetailRequiredUnreadable = "mcp/payment-required-unreadable"
	// DetailParamsUnreadable: the call's own params are no JSON object
	// with an object _meta, so the payment has nowhere to go. Code
	// offer-unreadable; nothing fetched or signed.
	DetailParamsUnreadable = "mcp/params-unreadable"
	// DetailRefused: the server answered the paid retry by asking for
	// payment again. No second payment is signed; the one made is in the
	// decline's moved. Code PaymentRefused.
	DetailRefused = "mcp/payment-refused"
	// DetailSendFailed: the paid retry could not be sent or got no answer.
	// The payment may have reached the server: it is in moved, journaled
	// unanswered, and presented again by the next call of the same tool.
	// Code PaymentRefused.
	DetailSendFailed = "mcp/payment-unanswered"
)

// PaymentRefused is the code of a decline after signing: the payment was
// made (the decline's Moved holds it) and the server did not accept it.
const PaymentRefused gate.Code = "payment-refused"

// Answer is a JSON-RPC answer to tools/call: a Result, or an Error.
type Answer struct {
	Result json.RawMessage
	Error  *RPCError
}

// RPCError is a JSON-RPC error object, its data kept as sent.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Outcome is what the Payer did for one call: nothing (both nil), a payment
// (Paid, completed with the server's answer), or a decline (Declined, and
// Paid too when a payment was made before it).
type Outcome struct {
	Paid     *pay.Result
	Declined *gate.Decline
}

// Payer pays the payment-required answers of tool calls.
type Payer struct {
	// Transport is the gate, the signer, the spend policy, the hooks and
	// the journal, exactly as for HTTP. Its Base, AllowHTTP and body
	// bounds are not used.
	Transport *pay.Transport
	// Server names the paid server in the journal's targets,
	// mcp://Server/tools/NAME; "" means "upstream".
	Server string
}

// Required is a tool answer's request for payment.
type Required struct {
	Protocol string      // pay.ProtocolX402 or pay.ProtocolMPP
	Doc      jsonv.Value // what the gate reads
	// challenges are MPP's challenges as the server sent them: the
	// credential echoes the chosen one unchanged.
	challenges []*jsonv.Object
}

// ReadRequired reads an answer: nil, nil when it asks for no payment; an
// error (a *gate.Decline, offer-unreadable) when it asks for one in a form
// that cannot be read within the bounds.
func ReadRequired(a Answer) (*Required, error) {
	if a.Error != nil {
		switch a.Error.Code {
		case CodeX402PaymentRequired:
			doc, err := strictObject(a.Error.Data, MaxRequiredBytes, MaxDepth)
			if err != nil || !isX402Required(doc) {
				return nil, unreadable(err)
			}
			return &Required{Protocol: pay.ProtocolX402, Doc: doc}, nil
		case CodeMPPPaymentRequired:
			return readMPP(a.Error.Data)
		}
		return nil, nil
	}
	if len(a.Result) == 0 {
		return nil, nil
	}
	// Only the members that matter are looked at first; the whole result
	// may be a large tool output that asks for nothing.
	var head struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(a.Result, &head) != nil || !head.IsError {
		return nil, nil
	}
	if len(head.StructuredContent) > 0 && looksX402(head.StructuredContent) {
		doc, err := strictObject(head.StructuredContent, MaxRequiredBytes, MaxDepth)
		if err != nil || !isX402Required(doc) {
			return nil, unreadable(err)
		}
		return &Required{Protocol: pay.ProtocolX402, Doc: doc}, nil
	}
	if len(head.Content) > 0 && head.Content[0].Type == "text" && looksX402([]byte(head.Content[0].Text)) {
		doc, err := strictObject([]byte(head.Content[0].Text), MaxRequiredBytes, MaxDepth)
		if err != nil || !isX402Required(doc) {
			return nil, unreadable(err)
		}
		return &Required{Protocol: pay.ProtocolX402, Doc: doc}, nil
	}
	return nil, nil
}

// looksX402 is the cheap test before the strict read: an error result that
// is a PaymentRequired names both members. A tool's own error text that
// does not is passed to the agent as it came.
func looksX402(b []byte) bool {
	s := string(b)
	return strings.Contains(s, `"x402Version"`) && strings.Contains(s, `"accepts"`)
}

// isX402Required: x402Version a number and accepts an array.
func isX402Required(doc *jsonv.Object) bool {
	v, _ := doc.Get("x402Version")
	_, num := jsonv.AsNumber(v)
	a, _ := doc.Get("accepts")
	_, arr := jsonv.AsArray(a)
	return num && arr
}

func unreadable(err error) error {
	return &gate.Decline{Code: gate.OfferUnreadable, Detail: DetailRequiredUnreadable, Err: err}
}

// challengeParams are the members of an MPP challenge kept for the gate;
// header is HTTP's own and has no meaning here.
var challengeParams = []string{"id", "realm", "method", "intent", "request", "expires", "digest", "description", "opaque"}

// readMPP reads data.challenges and writes each in the form the gate reads
// from a WWW-Authenticate header: request and opaque as unpadded base64url
// of their canonical JSON (the form MPP's challenge binding hashes).
func readMPP(data json.RawMessage) (*Required, error) {
	o, err := strictObject(data, MaxRequiredBytes, MaxDepth)
	if err != nil {
		return nil, unreadable(err)
	}
	list, _ := o.Get("challenges")
	items, ok := jsonv.AsArray(list)
	if !ok || len(items) == 0 || len(items) > mpp.MaxChallenges {
		return nil, unreadable(errors.New("data.challenges is not a list of 1 to 32 challenges"))
	}
	r := &Required{Protocol: pay.ProtocolMPP}
	doc := make([]jsonv.Value, 0, len(items))
	for i, item := range items {
		c, ok := jsonv.AsObject(item)
		if !ok {
			return nil, unreadable(fmt.Errorf("challenge %d is not an object", i))
		}
		h := &jsonv.Object{}
		for _, k := range challengeParams {
			v, has := c.Get(k)
			if !has {
				continue
			}
			if obj, ok := jsonv.AsObject(v); ok && (k == "request" || k == "opaque") {
				v = mpp.EncodeObject(obj)
			}
			h.Set(k, v)
		}
		r.challenges = append(r.challenges, c)
		doc = append(doc, h)
	}
	r.Doc = doc
	return r, nil
}

// target is the journal's key for a tool of the server.
func (p *Payer) target(tool string) string {
	server := p.Server
	if server == "" {
		server = "upstream"
	}
	return "mcp://" + url.PathEscape(server) + "/tools/" + url.PathEscape(tool)
}

// Send sends params (a tools/call's, with the payment in _meta) and
// returns the server's answer.
type Send func(ctx context.Context, params json.RawMessage) (Answer, error)

// Settle answers first, the server's answer to params, a tools/call of
// tool: when it asks for payment the Payer pays and sends params again,
// once, with the payment (send), and returns that answer. An answer that
// asks for nothing is returned as it came, with a zero Outcome. A decline
// is returned as the Outcome and as a tool error Answer (DeclineResult)
// to give the agent in place of the server's.
func (p *Payer) Settle(ctx context.Context, tool string, params json.RawMessage, first Answer, send Send) (Answer, Outcome) {
	req, err := ReadRequired(first)
	if req == nil && err == nil {
		return first, Outcome{}
	}
	if err != nil {
		return p.declined(asDecline(err), nil)
	}
	call, err := strictObject(params, MaxMessageBytes, jsonv.MaxDepth)
	if err != nil {
		return p.declined(&gate.Decline{Code: gate.OfferUnreadable, Detail: DetailParamsUnreadable, Err: err}, nil)
	}
	meta := &jsonv.Object{}
	if m, has := call.Get("_meta"); has {
		if meta, err = metaObject(m); err != nil {
			return p.declined(&gate.Decline{Code: gate.OfferUnreadable, Detail: DetailParamsUnreadable, Err: err}, nil)
		}
	}
	pending, err := p.Transport.PayOffer(ctx, pay.Offered{Target: p.target(tool), Protocol: req.Protocol, Doc: req.Doc})
	if err != nil {
		return p.declined(asDecline(err), nil)
	}
	res := pending.Result
	key, value, err := paymentMeta(req, res)
	if err != nil {
		// Signed, but not sendable: kept for the agent, never re-signed.
		pending.Unsent(ctx)
		return p.declined(movedDecline(res, DetailSendFailed, err), res)
	}
	meta = meta.Clone()
	meta.Set(key, value)
	call = call.Clone()
	call.Set("_meta", meta)
	answer, err := send(ctx, json.RawMessage(jsonv.Marshal(call)))
	if err != nil {
		pending.Unsent(ctx)
		return p.declined(movedDecline(res, DetailSendFailed, err), res)
	}
	if again, _ := ReadRequired(answer); again != nil || answer.Error != nil && (answer.Error.Code == CodeX402PaymentRequired || answer.Error.Code == CodeMPPPaymentRequired) {
		pending.Answered(ctx, 402)
		readSettlement(res, answer)
		return p.declined(movedDecline(res, DetailRefused, refusalOf(answer)), res)
	}
	status := 200
	if answer.Error != nil {
		status = 500 // answered, not paid for: the payment is the server's to settle or drop
	}
	pending.Answered(ctx, status)
	readSettlement(res, answer)
	return answer, Outcome{Paid: res}
}

func metaObject(v jsonv.Value) (*jsonv.Object, error) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, errors.New("params._meta is not an object")
	}
	return o, nil
}

// paymentMeta is the _meta member that carries the payment: x402's payload
// as signed, or MPP's credential with the chosen challenge echoed exactly
// as the server wrote it.
func paymentMeta(req *Required, res *pay.Result) (string, jsonv.Value, error) {
	if req.Protocol == pay.ProtocolX402 {
		return MetaX402Payment, res.Signed, nil
	}
	cred, ok := jsonv.AsObject(res.Signed)
	if !ok {
		return "", nil, errors.New("the MPP payment is no credential")
	}
	echoed, _ := cred.GetObject("challenge")
	doc, _ := jsonv.AsArray(req.Doc)
	for i, c := range doc {
		if jsonv.Equal(c, echoed) {
			out := jsonv.Obj("challenge", req.challenges[i].Clone())
			if s, has := cred.Get("source"); has {
				out.Set("source", s)
			}
			payload, _ := cred.Get("payload")
			out.Set("payload", payload)
			return MetaMPPCredential, out, nil
		}
	}
	return "", nil, errors.New("the credential echoes no challenge the server sent")
}

// readSettlement reads the answer's _meta settlement into res, bounded; a
// settlement that cannot be read is SettlementErr, never a reason to drop
// the answer.
func readSettlement(res *pay.Result, a Answer) {
	if len(a.Result) == 0 {
		return
	}
	var head struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(a.Result, &head) != nil || len(head.Meta) == 0 {
		return
	}
	meta, err := strictObject(head.Meta, MaxMetaBytes, MaxDepth)
	if err != nil {
		res.SettlementErr = fmt.Errorf("mcppay: result._meta: %w", err)
		return
	}
	key := MetaX402Response
	if res.Protocol == pay.ProtocolMPP {
		key = MetaMPPReceipt
	}
	v, has := meta.Get(key)
	if !has {
		return
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		res.SettlementErr = fmt.Errorf("mcppay: _meta[%q] is not an object", key)
		return
	}
	s := &pay.Settlement{Raw: o}
	if res.Protocol == pay.ProtocolMPP {
		status, _ := o.GetString("status")
		s.Success = status == "success"
		s.Transaction, _ = o.GetString("reference")
	} else {
		ok, _ := o.Get("success")
		s.Success, _ = ok.(bool)
		s.Transaction, _ = o.GetString("transaction")
		s.Network, _ = o.GetString("network")
		s.Payer, _ = o.GetString("payer")
		s.ErrorReason, _ = o.GetString("errorReason")
	}
	res.Settlement = s
}

// refusalOf is what the server said when it asked for payment again.
func refusalOf(a Answer) error {
	if a.Error != nil {
		return fmt.Errorf("the server answered the paid call with error %d: %s", a.Error.Code, clip(a.Error.Message))
	}
	var head struct {
		StructuredContent struct {
			Error string `json:"error"`
		} `json:"structuredContent"`
	}
	_ = json.Unmarshal(a.Result, &head)
	if head.StructuredContent.Error != "" {
		return fmt.Errorf("the server asked for payment again: %s", clip(head.StructuredContent.Error))
	}
	return errors.New("the server asked for payment again")
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func movedDecline(res *pay.Result, detail string, err error) *gate.Decline {
	return &gate.Decline{Code: PaymentRefused, Detail: detail, Err: err,
		Moved: &gate.Moved{Signed: res.Signed, Bytes: res.ATR, H: res.H}}
}

func asDecline(err error) *gate.Decline {
	var d *gate.Decline
	if errors.As(err, &d) {
		return d
	}
	return &gate.Decline{Code: gate.NoPayableOption, Detail: "mcp/not-paid", Err: err}
}

func (p *Payer) declined(d *gate.Decline, paid *pay.Result) (Answer, Outcome) {
	return Answer{Result: DeclineResult(d)}, Outcome{Paid: paid, Declined: d}
}

// DeclineResult is the tool error an agent gets for a decline: isError, one
// text block that is the decline's JSON ({decline: {code, detail}, cause?,
// moved?}, as the termsgate MCP server writes it), and the same object in
// _meta["termsgate/decline"]. It has no structuredContent: the paid tool's
// output schema, which a client may check structuredContent against, is
// not the decline's.
func DeclineResult(d *gate.Decline) json.RawMessage {
	j := d.JSON()
	text := jsonv.Marshal(j)
	out := jsonv.Obj(
		"content", []jsonv.Value{jsonv.Obj("type", "text", "text", string(text))},
		"isError", true,
		"_meta", jsonv.Obj(MetaDecline, j),
	)
	return jsonv.Marshal(out)
}

// paysItself reports params whose _meta already carries a payment: the
// caller pays, and the Payer adds nothing.
func paysItself(params json.RawMessage) bool {
	var head struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &head) != nil {
		return false
	}
	_, x := head.Meta[MetaX402Payment]
	_, m := head.Meta[MetaMPPCredential]
	return x || m
}
