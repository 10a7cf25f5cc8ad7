package evm

// The settlement side of this package's pairings: reading, from the receipt
// of the transaction that settled a payment, whether it settled and whether
// it carried H (x402/exact/eip155/eip3009), and the reference a seller
// records for an mpp/charge/evm/authorization credential so that the chain
// can be read later. On chain, both pairings' payments show as the token's
// AuthorizationUsed(authorizer, nonce) log: for x402 exact the nonce is H
// itself, for the MPP authorization it is keccak256(id ‖ realm).

import (
	"strconv"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Refusal codes of the recovery read.
const (
	CodeWrongReader        = "evm/wrong-reader"
	CodeUnreadable         = "evm/unreadable"
	CodeNotFound           = "evm/not-found"
	CodeReverted           = "evm/reverted"
	CodeNoAuthorizationUse = "evm/no-authorization-use"
	CodeAmbiguous          = "evm/ambiguous"
)

// exactRef is an x402 exact settlement reference, {network, asset,
// transaction, h?}.
type exactRef struct {
	network, asset, transaction string
}

func exactRefOf(ref *jsonv.Object) (exactRef, bool) {
	var x exactRef
	var ok1, ok2, ok3 bool
	x.network, ok1 = ref.GetString("network")
	x.asset, ok2 = ref.GetString("asset")
	x.transaction, ok3 = ref.GetString("transaction")
	return x, ok1 && ok2 && ok3 && IsAddress(x.asset) && isWord32(x.transaction)
}

// authorizationNonce is the nonce topic of an AuthorizationUsed log emitted
// by asset with exactly three topics; ok is false for any other log.
func authorizationNonce(l Log, asset string) (string, bool) {
	if l.Raw == nil || !SameAddress(l.Address, asset) || len(l.Topics) != 3 {
		return "", false
	}
	if !SameBytes(l.Topics[0], TopicAuthorizationUsed.Hex()) {
		return "", false
	}
	return l.Topics[2], true
}

// Status reads ref {network, asset, transaction, h}: settled when the
// receipt succeeded and holds an AuthorizationUsed log from asset whose
// nonce (topic 2) is h, at the highest finality reached; no such log is
// failed authorization-not-used, so a log planted by another contract does
// not count. A failed read, a reader of another network, or a ref that is
// not one is pending unreadable, never failed. At most three reads.
func (ExactEIP3009) Status(ref *jsonv.Object, r Reader) Status {
	x, ok := exactRefOf(ref)
	hText, _ := ref.GetString("h")
	h, err := atr.ParseHash(hText)
	if !ok || err != nil {
		return pending(WhyUnreadable)
	}
	receipt, s := readSucceeded(x.network, x.transaction, r)
	if receipt == nil {
		return s
	}
	for _, l := range receipt.Logs {
		if nonce, ok := authorizationNonce(l, x.asset); ok && SameBytes(nonce, h.String()) {
			return SettledAt(receipt.BlockNumber, r)
		}
	}
	return failed(WhyAuthorizationNotUsed)
}

// Recover reads H from a settlement transaction alone, ref {network, asset,
// transaction}: the one distinct nonce among the AuthorizationUsed logs asset
// emitted in it, "0x" and 64 lowercase hex. None is evm/no-authorization-use,
// two is evm/ambiguous; a reader of another network evm/wrong-reader, a
// failed or unreadable read evm/unreadable, no receipt evm/not-found, a
// revert evm/reverted, and a ref that is not one evm/field-malformed. One
// read.
func (ExactEIP3009) Recover(ref *jsonv.Object, r Reader) (string, error) {
	x, ok := exactRefOf(ref)
	if !ok {
		return "", rails.Refuse(CodeFieldMalformed)
	}
	receipt, f := ReadReceipt(x.network, x.transaction, r)
	switch f {
	case ReadWrongNetwork:
		return "", rails.Refuse(CodeWrongReader)
	case ReadFailed, ReadMalformed:
		return "", rails.Refuse(CodeUnreadable)
	case ReadNoReceipt:
		return "", rails.Refuse(CodeNotFound)
	case ReadReverted:
		return "", rails.Refuse(CodeReverted)
	}
	var found []atr.Hash
	for _, l := range receipt.Logs {
		nonce, ok := authorizationNonce(l, x.asset)
		if !ok {
			continue
		}
		h, err := atr.ParseHash(nonce)
		if err != nil {
			return "", rails.Refuse(CodeUnreadable)
		}
		if !containsHash(found, h) {
			found = append(found, h)
		}
	}
	switch len(found) {
	case 0:
		return "", rails.Refuse(CodeNoAuthorizationUse)
	case 1:
		return found[0].String(), nil
	}
	return "", rails.Refuse(CodeAmbiguous)
}

func containsHash(list []atr.Hash, h atr.Hash) bool {
	for _, x := range list {
		if x == h {
			return true
		}
	}
	return false
}

// Reference is what a seller records at claim for an authorization
// credential, once it reads back (Bound): {network, settleBy (validBefore),
// bindingLog (the currency's AuthorizationUsed with the nonce in topic 2),
// transferLog (the currency's Transfer whose from, to and value hash to the
// signed transfer's digest), search (the filter that finds the transaction)}.
// A payload whose from, to, value or validBefore does not read is
// mpp/credential-malformed.
func (p MPPAuthorization) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	if _, err := p.Bound(presented); err != nil {
		return nil, err
	}
	e, err := mpp.Echoed(presented, MPPAuthorizationID)
	if err != nil {
		return nil, err
	}
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	from, okFrom := e.Payload.GetString("from")
	to, okTo := e.Payload.GetString("to")
	value, okValue := mpp.Uint256(mpp.String(e.Payload, "value"))
	validBefore, okBefore := mpp.Uint256(mpp.String(e.Payload, "validBefore"))
	if !okFrom || !okTo || !okValue || !okBefore {
		return nil, malformed
	}
	digest, err := TransferDigest(TransferFields{From: from, To: to, Value: value})
	if err != nil {
		return nil, malformed
	}
	currency := mpp.String(e.Checked.Request, "currency")
	nonceHash := mpp.ChallengeHash(mpp.String(e.Challenge, "id"), mpp.String(e.Challenge, "realm"))
	nonce := hex0x(nonceHash[:])
	topic := TopicAuthorizationUsed.Hex()
	return jsonv.Obj(
		"network", "eip155:"+strconv.FormatInt(mpp.ChargeChain(e.Checked), 10),
		"settleBy", validBefore.String(),
		"bindingLog", jsonv.Obj("address", currency, "topic0", topic, "index", 2, "value", nonce),
		"transferLog", jsonv.Obj("address", currency, "topic0", TopicTransfer.Hex(), "identity", "from,to,value", "digest", hex0x(digest[:])),
		"search", jsonv.Obj("address", currency, "topics", []jsonv.Value{topic, nil, nonce}),
	), nil
}

// Status reads a Reference (with the settling transaction added) with
// RefStatus.
func (MPPAuthorization) Status(ref *jsonv.Object, r Reader) Status {
	s, _ := RefStatus(ref, r)
	return s
}
