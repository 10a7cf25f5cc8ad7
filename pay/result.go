package pay

import (
	"context"
	"errors"
	"net/http"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Result is one payment the Transport signed and sent: the terms it agreed
// to and what the seller answered. Keep ATR with H: they are the proof of
// what was agreed.
type Result struct {
	URL      string // the URL that answered 402 and received the payment
	Protocol string // ProtocolX402 or ProtocolMPP: which of the 402's offers was paid
	Pairing  string
	Summary  Summary
	ATR      []byte   // the ATR bytes, exactly as fetched
	H        atr.Hash // SHA-256 of ATR, bound into the payment
	// Unbound is set for a payment to an offer that published no terms,
	// made because the Policy allows it (PolicyConfig.AllowUnbound): ATR is
	// nil, H zero, and the payment carries Nonce (a random EIP-3009 nonce
	// on x402, the challenge hash on MPP) instead of H.
	Unbound bool
	Nonce   string

	Signed jsonv.Value // the payment, as sent (x402: the payment payload; MPP: the credential)
	// HeaderName is the request header the payment was sent in:
	// PAYMENT-SIGNATURE for x402; for MPP Authorization, or
	// Payment-Authorization when the challenge asked for it.
	HeaderName string
	Header     string // the value sent in HeaderName
	// PaymentID is the x402 payment identifier written into the payment
	// when the seller advertises the payment-identifier extension, else "".
	PaymentID string
	// Again is set when this payment was not signed for this request but
	// taken from the Transport's Journal: signed earlier, never answered,
	// and now presented again.
	Again bool

	// StatusCode is the status of the seller's answer to the payment.
	StatusCode int
	// Settlement is the decoded PAYMENT-RESPONSE (x402) or Payment-Receipt
	// (MPP); nil when the seller sent none or one that does not decode (then
	// SettlementErr says why).
	Settlement    *Settlement
	SettlementErr error
	// Verified is what the chain showed of the payment, read through
	// Transport.Verify after a 2xx answer; nil without a Verifier (verify.go).
	Verified *Verification

	origin string // of URL, for CheckRedirect
}

// Accepted reports whether the seller answered the payment with a 2xx.
func (r *Result) Accepted() bool { return r != nil && r.StatusCode >= 200 && r.StatusCode <= 299 }

// Settlement is a PAYMENT-RESPONSE: {success, transaction, network, payer}
// or {success: false, errorReason, network}; or an MPP Payment-Receipt
// {status, method, reference, timestamp}, read as Success (status
// "success") and Transaction (reference), Network and Payer left empty (a
// receipt names the method, not the chain). It is the seller's claim; the
// public proof is the transaction on chain.
type Settlement struct {
	Success     bool
	Transaction string
	Network     string
	Payer       string
	ErrorReason string
	Raw         *jsonv.Object // the whole decoded document
}

func readSettlement(header string) (*Settlement, error) {
	o, err := x402.DecodeHeader(header)
	if err != nil {
		return nil, err
	}
	s := &Settlement{Raw: o}
	s.Success, _ = mustGet(o, "success").(bool)
	s.Transaction, _ = o.GetString("transaction")
	s.Network, _ = o.GetString("network")
	s.Payer, _ = o.GetString("payer")
	s.ErrorReason, _ = o.GetString("errorReason")
	return s, nil
}

// errReceiptUnreadable: a Payment-Receipt that is not strict base64url of
// one JSON object.
var errReceiptUnreadable = errors.New("pay: the Payment-Receipt is not base64url of a JSON object")

// readReceipt reads an MPP Payment-Receipt with the bounds of a challenge's
// request (mpp.DecodeObject).
func readReceipt(header string) (*Settlement, error) {
	o, ok := mpp.DecodeObject(header)
	if !ok {
		return nil, errReceiptUnreadable
	}
	s := &Settlement{Raw: o}
	status, _ := o.GetString("status")
	s.Success = status == "success"
	s.Transaction, _ = o.GetString("reference")
	return s, nil
}

func mustGet(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }

// paymentID reads extensions["payment-identifier"].info.id of a payment.
func paymentID(signed jsonv.Value) string {
	o, _ := jsonv.AsObject(signed)
	ext, _ := o.GetObject("extensions")
	pi, _ := ext.GetObject("payment-identifier")
	info, _ := pi.GetObject("info")
	id, _ := info.GetString("id")
	return id
}

type resultKey struct{}

// withResult returns resp with r attached to its Request's context, where
// ResultOf finds it, also from a response reached by following redirects.
func withResult(resp *http.Response, req *http.Request, r *Result) {
	resp.Request = req.WithContext(context.WithValue(req.Context(), resultKey{}, r))
}

// maxRedirectWalk bounds the walk back through a redirect chain; net/http
// stops at 10 redirects.
const maxRedirectWalk = 32

// ResultOf returns the payment made for resp, or nil when none was: the
// Transport attaches its Result to the response of the paid request, and
// ResultOf also finds it from a response reached by following a same-origin
// redirect after paying. The Result is the same value the AfterSign hook
// saw, completed with the seller's answer.
func ResultOf(resp *http.Response) *Result {
	for i := 0; resp != nil && resp.Request != nil && i < maxRedirectWalk; i++ {
		if r, ok := resp.Request.Context().Value(resultKey{}).(*Result); ok {
			return r
		}
		resp = resp.Request.Response
	}
	return nil
}
