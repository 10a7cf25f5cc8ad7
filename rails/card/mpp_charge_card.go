package card

// mpp/charge/card. Where H goes: the seller's MPP challenge id (derived
// from H) and its opaque legalContext, bound by the seller's own server,
// and the request's externalId, lcp:sha256:<H>, the card method's reference
// field. Nothing the buyer's card credential carries names H: confirm-only.

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// MPP card codes.
const (
	CodeMPPNoSignedPlace   = "mpp/no-signed-place"
	CodeMPPCarrierOccupied = "mpp/carrier-occupied"
	mppWhereH              = "the echoed challenge's id and opaque legalContext, and its request's externalId (lcp:sha256:<H>), all the seller's; nothing the card credential carries names H"
)

// MPPCharge is mpp/charge/card: the buyer's gate checks the terms and runs
// the agreement exchange, then the card credential (a network token
// encrypted to the seller's key, made by the card wallet) answers the
// challenge. The gate signs nothing for it.
type MPPCharge struct{}

var (
	_ rails.Pairing    = MPPCharge{}
	_ rails.Summarizer = MPPCharge{}
	_ rails.Inspector  = MPPCharge{}
)

func (MPPCharge) ID() string { return MPPChargeID }

func (MPPCharge) Pattern() rails.Pattern { return noProof("opaque-challenge") }

func (MPPCharge) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// Choose takes the first challenge offering mpp/charge/card; any CAIP-10
// account names the buyer.
func (MPPCharge) Choose(read rails.Read, account string, _ *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	if _, ok := rails.ParseAccount(account); !ok {
		return nil, refuse(mpp.CodeNoPayableOption)
	}
	for _, v := range read.Options {
		if mpp.OffersPlaced(v, MPPChargeID) {
			c, _ := jsonv.AsObject(v)
			return jsonv.Obj("challenge", c.Clone(), "now", now), nil
		}
	}
	return nil, refuse(mpp.CodeNoPayableOption)
}

// Build: nothing the buyer signs has a place for H.
func (MPPCharge) Build(jsonv.Value, []byte, atr.Hash) (rails.Unsigned, error) {
	return nil, refuse(CodeMPPNoSignedPlace)
}

func (MPPCharge) Request(rails.Unsigned) (rails.Request, error) {
	return nil, refuse(CodeMPPNoSignedPlace)
}

func (MPPCharge) Complete(rails.Unsigned, jsonv.Value, rails.Chosen) (rails.Completion, error) {
	return rails.Completion{}, refuse(CodeMPPNoSignedPlace)
}

// Echoed is a card credential's echoed challenge checked as placed and
// offering mpp/charge/card, its request's externalId naming the same H as
// its id.
func Echoed(presented jsonv.Value) (*mpp.Bound, error) {
	e, err := mpp.Echoed(presented, MPPChargeID)
	if err != nil {
		return nil, err
	}
	if x, has := e.Checked.Request.GetString("externalId"); has && x != mpp.LegalContextValue(e.H) {
		return nil, refuse(mpp.CodeOpaqueNotThisHash)
	}
	return e, nil
}

// Bound checks the echoed challenge as this pairing's; nothing the buyer
// signed carries H, so it refuses mpp/no-signed-place.
func (MPPCharge) Bound(presented jsonv.Value) (string, error) {
	if _, err := Echoed(presented); err != nil {
		return "", err
	}
	return "", refuse(CodeMPPNoSignedPlace)
}

// Summarize: there is never a request.
func (MPPCharge) Summarize(rails.Request) (rails.Grant, error) {
	return rails.Grant{}, refuse(CodeMPPNoSignedPlace)
}

// Inspect reads a card credential {challenge, payload}: the charge the
// echoed challenge asks (amount in the currency's minor units, to the
// recipient, on the card network the payload names), H as the challenge
// names it (the seller's, not the buyer's signature), and the payload's
// card data masked.
func (MPPCharge) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	e, err := Echoed(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	r := e.Checked.Request
	amount, ok := mpp.Uint256(mpp.String(r, "amount"))
	if !ok {
		return rails.Inspection{}, refuse(mpp.CodeRequestMalformed)
	}
	network := mpp.String(e.Payload, "network")
	if network == "" {
		if v, ok := e.Checked.Details.Get("acceptedNetworks"); ok {
			if l, _ := jsonv.AsArray(v); len(l) > 0 {
				network, _ = l[0].(string)
			}
		}
	}
	if network == "" || len(network) > 32 {
		return rails.Inspection{}, refuse(mpp.CodeCredentialMalformed)
	}
	g := rails.Grant{Network: "card:" + network, Asset: mpp.String(r, "currency"), Decimals: -1, Amount: amount,
		Payee: mpp.String(r, "recipient"), PayableUntil: unixTime(e.Checked.Expires)}
	d := masked(e.Payload)
	d.Set("realm", mpp.String(e.Challenge, "realm"))
	if x, ok := r.GetString("externalId"); ok {
		d.Set("externalId", x)
	}
	return rails.Inspection{Pairing: MPPChargeID, Kind: "credential", Grant: g, H: e.H.String(), WhereH: mppWhereH, Details: d}, nil
}

// Advertise is the seller's side: offer (one of doc's challenges, as
// issued) gets its request's externalId set to lcp:sha256:<H> (an issued
// externalId holding another value is mpp/carrier-occupied), then MPP's
// placement of the id and opaque.
func (MPPCharge) Advertise(doc []jsonv.Value, h atr.Hash, link string, offer *jsonv.Object, agreement string) ([]jsonv.Value, error) {
	checked, err := mpp.CheckChallenge(offer, false)
	if err != nil {
		return nil, err
	}
	if !checked.Offers(MPPChargeID) {
		return nil, refuse(mpp.CodeNotThisPairing)
	}
	want := mpp.LegalContextValue(h)
	if x, has := checked.Request.Get("externalId"); has && x != want {
		return nil, refuse(CodeMPPCarrierOccupied)
	}
	req := checked.Request.Clone()
	req.Set("externalId", want)
	carried := offer.Clone()
	carried.Set("request", mpp.EncodeObject(req))
	out := make([]jsonv.Value, len(doc))
	for i, v := range doc {
		out[i] = v
		if o, ok := jsonv.AsObject(v); ok && jsonv.Equal(o, offer) {
			out[i] = carried
		}
	}
	return mpp.Place(out, h, link, carried, agreement)
}

// UnplacedChallenge is a challenge without the carrier: its request without
// externalId, re-encoded. The issued digest is taken over it.
func UnplacedChallenge(c *jsonv.Object) *jsonv.Object {
	req, ok := mpp.DecodeObject(mpp.String(c, "request"))
	if !ok || !req.Has("externalId") {
		return c
	}
	req = req.Clone()
	req.Delete("externalId")
	out := c.Clone()
	out.Set("request", mpp.EncodeObject(req))
	return out
}
