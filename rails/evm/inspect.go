package evm

import (
	"math/big"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

var (
	_ rails.Inspector = ExactEIP3009{}
	_ rails.Inspector = MPPAuthorization{}
	_ rails.Inspector = Batch{}
)

// Inspect states what a signed x402/exact/eip155/eip3009 payment grants:
// the typed data the payer signed is rebuilt from the accepted option and
// the authorization, and read by Summarize, so that inspect and the spend
// policy read one grant. It reads only what Bound accepted.
func (p ExactEIP3009) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	o, _ := jsonv.AsObject(payment)
	accepted, _ := o.GetObject("accepted")
	payload, _ := o.GetObject("payload")
	auth, _ := payload.GetObject("authorization")
	extra, _ := accepted.GetObject("extra")
	name, _ := extra.GetString("name")
	version, _ := extra.GetString("version")
	asset, _ := accepted.GetString("asset")
	network, _ := accepted.GetString("network")
	chain, _ := chainID(network)
	td := TransferWithAuthorization(name, version, chain, asset, auth)
	g, err := p.Summarize(jsonv.Obj("kind", "eip712", "typedData", td))
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{
		Pairing: ExactEIP3009ID, Kind: "payment", Grant: g, H: h,
		WhereH:  "payload.authorization.nonce: the EIP-3009 nonce is H itself; on chain it is topic 2 of the token's AuthorizationUsed log",
		Details: jsonv.Obj("nonce", mpp.String(auth, "nonce")),
	}, nil
}

// Inspect states what a signed mpp/charge/evm/authorization credential
// grants: an EIP-3009 transfer of the payload's value of the request's
// currency to the payload's to, valid in [validAfter, validBefore), whose
// nonce is keccak256(id ‖ realm) and whose challenge id is H. The token's
// EIP-712 name is not in the credential, so no AssetName is stated.
func (p MPPAuthorization) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	e, err := mpp.Echoed(payment, MPPAuthorizationID)
	if err != nil {
		return rails.Inspection{}, err
	}
	network, err := mpp.Network(e.Challenge)
	if err != nil {
		return rails.Inspection{}, err
	}
	asset := mpp.String(e.Checked.Request, "currency")
	value := mpp.String(e.Payload, "value")
	from, to := mpp.String(e.Payload, "from"), mpp.String(e.Payload, "to")
	after, before := mpp.String(e.Payload, "validAfter"), mpp.String(e.Payload, "validBefore")
	if !IsUint256Decimal(value) || !IsAddress(from) || !IsAddress(to) || !IsAddress(asset) ||
		!IsUint256Decimal(after) || !IsUint256Decimal(before) {
		return rails.Inspection{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	amount, _ := new(big.Int).SetString(value, 10)
	return rails.Inspection{
		Pairing: MPPAuthorizationID, Kind: "credential", H: h,
		Grant: rails.Grant{Network: network, Asset: asset, Decimals: rails.KnownDecimals(network, asset),
			Amount: amount, Payer: from, Payee: to, PayableFrom: UnixTime(after), PayableUntil: UnixTime(before)},
		WhereH:  "challenge.id (base64url of H, a dot, the position) and challenge.opaque.legalContext; payload.nonce is keccak256(id ‖ realm)",
		Details: jsonv.Obj("nonce", mpp.String(e.Payload, "nonce"), "challengeId", mpp.String(e.Challenge, "id")),
	}, nil
}
