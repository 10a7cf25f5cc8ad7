package pay

import (
	"net/http"
	"strings"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The protocols a 402 can ask to be paid in: Result.Protocol, and the
// namespace of the pairings that pay it.
const (
	ProtocolX402 = "x402"
	ProtocolMPP  = "mpp"
)

// The MPP headers. The credential goes in the header its challenge names:
// Authorization, or mpp.PaymentAuthorization when the challenge carries
// header="Payment-Authorization".
const (
	HeaderAuthenticate = "WWW-Authenticate"
	HeaderReceipt      = "Payment-Receipt"
)

// offer is one protocol's request for payment in a 402.
type offer struct {
	protocol string
	doc      jsonv.Value                        // what the gate reads: the PAYMENT-REQUIRED object, or the challenge list
	bad      *gate.Decline                      // the header is there but cannot be read
	inputs   func(pairing string) *jsonv.Object // the buyer inputs for this offer, set by choose
	unbound  bool                               // it publishes no terms and the Policy allows paying it (unbound.go)
	chose    *gate.Choice                       // the read and choice that picked the pairing, handed to Transact
}

// offersOf lists what a 402's headers ask for, in the order the transport
// prefers them: x402 (PAYMENT-REQUIRED), then MPP (WWW-Authenticate: Payment).
// An empty list means the 402 asks for nothing the transport pays. The
// offers are appended to out.
//
// WWW-Authenticate is parsed only when one of its values mentions
// "payment": a 402 with only other schemes' challenges (even malformed ones)
// is no MPP offer and is returned as it came, as before MPP was paid.
//
// With shared, a PAYMENT-REQUIRED equal to the last one decoded is answered
// with the same document (required_memo.go): the caller passes it only when
// nothing but the pairings will see the document.
func offersOf(h http.Header, out []offer, shared bool) []offer {
	if required := h.Values(HeaderRequired); len(required) > 0 {
		o := offer{protocol: ProtocolX402}
		if len(required) == 1 {
			if doc, err := guarded(func() (*jsonv.Object, error) { return decodeRequired(required[0], shared) }); err == nil {
				o.doc = doc
			}
		}
		if o.doc == nil {
			o.bad = &gate.Decline{Code: gate.OfferUnreadable, Detail: DetailRequiredUnreadable}
		}
		out = append(out, o)
	}
	if mentionsPayment(h.Values(HeaderAuthenticate)) {
		doc, err := guarded(func() ([]jsonv.Value, error) { return mpp.ChallengesFromHeader(h) })
		switch {
		case err != nil:
			out = append(out, offer{protocol: ProtocolMPP,
				bad: &gate.Decline{Code: gate.OfferUnreadable, Detail: code(err, mpp.CodeHeaderMalformed)}})
		case len(doc) > 0:
			out = append(out, offer{protocol: ProtocolMPP, doc: doc})
		}
	}
	return out
}

// mentionsPayment reports whether a value contains "payment" in any case: a
// cheap test that no Payment challenge can pass without.
func mentionsPayment(values []string) bool {
	const word = "payment"
	for _, v := range values {
		for i := 0; i+len(word) <= len(v); i++ {
			if strings.EqualFold(v[i:i+len(word)], word) {
				return true
			}
		}
	}
	return false
}

// paysItself reports a request that already carries a payment: an x402
// PAYMENT-SIGNATURE, an MPP Payment-Authorization, or an Authorization whose
// scheme is Payment. The caller pays; the transport adds nothing.
func paysItself(h http.Header) bool {
	if h.Get(HeaderSignature) != "" || h.Get(mpp.PaymentAuthorization) != "" {
		return true
	}
	for _, v := range h.Values("Authorization") {
		if scheme, _, _ := strings.Cut(strings.TrimSpace(v), " "); strings.EqualFold(scheme, "payment") {
			return true
		}
	}
	return false
}

// credentialHeader is the header an MPP credential for the chosen challenge
// goes in. mpp.Header decides, given only the challenge's header parameter
// (its decision reads nothing else, and the whole challenge need not be
// encoded for it), so that the check before signing and the header sent
// after cannot disagree.
func credentialHeader(chosen rails.Chosen) string {
	choice, _ := jsonv.AsObject(chosen.Choice)
	challenge, _ := choice.GetObject("challenge")
	only := &jsonv.Object{}
	if h, ok := challenge.GetString("header"); ok {
		only.Set("header", h)
	}
	name, _ := mpp.Header(jsonv.Obj("challenge", only))
	return name
}
