package evm

import (
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Inspect states what a signed x402/exact/eip155/eip3009 payment grants: an
// EIP-3009 transfer of value of the accepted asset from the payer to payTo,
// valid in [validAfter, validBefore), whose nonce is H. It reads only what
// Bound accepted.
func (p ExactEIP3009) Inspect(payment jsonv.Value) (*jsonv.Object, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return nil, err
	}
	o, _ := jsonv.AsObject(payment)
	accepted, _ := o.GetObject("accepted")
	payload, _ := o.GetObject("payload")
	auth, _ := payload.GetObject("authorization")
	str := func(obj *jsonv.Object, k string) string { s, _ := obj.GetString(k); return s }
	return jsonv.Obj(
		"pairing", ExactEIP3009ID,
		"network", str(accepted, "network"),
		"asset", str(accepted, "asset"),
		"amount", str(auth, "value"),
		"payer", str(auth, "from"),
		"payee", str(auth, "to"),
		"validAfter", str(auth, "validAfter"),
		"validBefore", str(auth, "validBefore"),
		"h", h,
		"whereH", "payload.authorization.nonce: the EIP-3009 nonce is H itself; on chain it is topic 2 of the token's AuthorizationUsed log",
	), nil
}

// Inspect states what a signed mpp/charge/evm/authorization credential
// grants: an EIP-3009 transfer of the request's amount of its currency to its
// recipient, valid until the challenge's expiry, whose nonce is
// keccak256(id ‖ realm) and whose challenge id is H.
func (p MPPAuthorization) Inspect(payment jsonv.Value) (*jsonv.Object, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return nil, err
	}
	e, err := mpp.Echoed(payment, MPPAuthorizationID)
	if err != nil {
		return nil, err
	}
	str := func(obj *jsonv.Object, k string) string { s, _ := obj.GetString(k); return s }
	details, _ := e.Checked.Request.GetObject("methodDetails")
	chain, _ := details.Get("chainId")
	return jsonv.Obj(
		"pairing", MPPAuthorizationID,
		"network", "eip155:"+jsonv.String(chain),
		"asset", str(e.Checked.Request, "currency"),
		"amount", str(e.Payload, "value"),
		"payer", str(e.Payload, "from"),
		"payee", str(e.Payload, "to"),
		"validAfter", str(e.Payload, "validAfter"),
		"validBefore", str(e.Payload, "validBefore"),
		"h", h,
		"whereH", "challenge.id (base64url of H, a dot, the position) and challenge.opaque.legalContext; payload.nonce is keccak256(id ‖ realm)",
	), nil
}
