package card

// card/mastercard-vi/immediate. Where H goes: the merchant's checkout JWT
// carries it as its payload's legalContext.value; the user's Verifiable
// Intent L2 mandate references (in delegate_payload) a mandate.checkout.1
// whose checkout_hash is that JWT's base64url SHA-256, and a referenced
// mandate.payment.1's transaction_id equals it.

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

const viImmediateWhereH = "l2: the checkout_jwt of the one mandate.checkout.1 the user's L2 references carries H as legalContext.value; checkout_hash (and the payment mandate's transaction_id) is that JWT's digest"

// VIImmediate is card/mastercard-vi/immediate: the seller shows its checkout
// JWT; the user's wallet signs L2 over the checkout mandate built here and
// answers {l2}. The payment network verifies the user's signature; the
// seller (and Bound) checks the digests.
type VIImmediate struct{}

var (
	_ rails.Pairing    = VIImmediate{}
	_ rails.Summarizer = VIImmediate{}
	_ rails.Inspector  = VIImmediate{}
)

func (VIImmediate) ID() string { return VIImmediateID }

func (VIImmediate) Pattern() rails.Pattern { return noProof("id-reuse") }

func (VIImmediate) Read(doc jsonv.Value) (rails.Read, error) { return readCheckoutShown(doc) }

func (VIImmediate) Choose(read rails.Read, account string, _ *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	return chooseDoc(read, account)
}

func (VIImmediate) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return viBuild(choice, h)
}

func (VIImmediate) Request(u rails.Unsigned) (rails.Request, error) { return viRequest(u) }

func (VIImmediate) Complete(_ rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	return viComplete(answer, "l2")
}

// ReadImmediate is Bound's check: L2 read as a kb-sd-jwt layer, then its one
// checkout mandate. No signature is verified (the network does that).
func ReadImmediate(presented jsonv.Value) (*Mandate, error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return nil, refuse(CodeVIMalformed)
	}
	l2, _ := o.Get("l2")
	user, err := readLayer(l2, TypUser)
	if err != nil {
		return nil, err
	}
	return checkoutMandate(user)
}

func (VIImmediate) Bound(presented jsonv.Value) (string, error) {
	m, err := ReadImmediate(presented)
	if err != nil {
		return "", err
	}
	return m.H, nil
}

func (VIImmediate) Summarize(req rails.Request) (rails.Grant, error) { return viSummarize(req) }

// Inspect states the disclosed payment mandate's payee, currency and
// amount (in its minor units), and where H sits.
func (VIImmediate) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	m, err := ReadImmediate(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: VIImmediateID, Kind: "mandate", Grant: paymentGrant(m, ""), H: m.H,
		WhereH: viImmediateWhereH, Details: viDetails(m)}, nil
}

func viDetails(m *Mandate) *jsonv.Object {
	d := jsonv.Obj("checkoutHash", m.Digest, "legalContextUrl", m.Link)
	if p, err := CheckoutPayload(m.CheckoutJWT); err == nil {
		if c, ok := p.GetString("checkout"); ok {
			d.Set("checkout", c)
		}
	}
	if m.Payment != nil {
		if pi, ok := m.Payment.GetObject("payment_instrument"); ok {
			t, _ := pi.GetString("type")
			d.Set("instrument", t)
		}
	}
	return d
}
