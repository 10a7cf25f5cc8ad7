package tempo

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The Tempo pairings' Inspect: what a signed credential grants, read from
// what Bound accepted. The base is the echoed challenge (network, asset,
// payee, amount as requested, expiry); each pairing adds what its payload
// itself carries.

func inspectBase(pairing string, e *mpp.Bound, h, where string) *jsonv.Object {
	str := func(k string) string { s, _ := e.Checked.Request.GetString(k); return s }
	o := jsonv.Obj("pairing", pairing)
	if n, err := mpp.Network(e.Challenge); err == nil {
		o.Set("network", n)
	}
	o.Set("asset", str("currency"))
	o.Set("payee", str("recipient"))
	if a := str("amount"); a != "" {
		o.Set("amount", a)
	}
	if x, ok := e.Challenge.GetString("expires"); ok {
		o.Set("challengeExpires", x)
	}
	o.Set("h", h)
	o.Set("whereH", where)
	return o
}

// Inspect for mpp/charge/tempo/memo: the signed transaction's sender, its
// transferWithMemo calls (recipient and amount from the calldata), and its
// validity window.
func (p Memo) Inspect(payment jsonv.Value) (*jsonv.Object, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return nil, err
	}
	e, err := mpp.Echoed(payment, MemoID)
	if err != nil {
		return nil, err
	}
	sig, _ := e.Payload.GetString("signature")
	wire, _ := mpp.HexBytes(sig, 0, MaxWireBytes)
	tx, err := DecodeTx(wire)
	if err != nil {
		return nil, err
	}
	o := inspectBase(MemoID, e, h, "challenge.id and challenge.opaque.legalContext; the transaction's transferWithMemo memo binds the challenge (7 bytes of keccak256 of its id)")
	addTx(o, tx)
	return o, nil
}

// addTx writes a decoded transaction's sender, calls and validity.
func addTx(o *jsonv.Object, tx *DecodedTx) {
	if s, err := tx.Sender(); err == nil {
		o.Set("payer", s.Hex())
	}
	calls := make([]jsonv.Value, 0, len(tx.Calls))
	for _, c := range tx.Calls {
		call := jsonv.Obj("to", hex0x(c.To))
		if len(c.Input) == 100 && hex0x(c.Input[:4]) == "0x95777d59" {
			call.Set("transferWithMemo", jsonv.Obj(
				"recipient", common.BytesToAddress(c.Input[4:36]).Hex(),
				"amount", new(big.Int).SetBytes(c.Input[36:68]).String(),
				"memo", hex0x(c.Input[68:100])))
		} else if len(c.Input) == 68 && hex0x(c.Input[:4]) == "0xa9059cbb" {
			call.Set("transfer", jsonv.Obj(
				"recipient", common.BytesToAddress(c.Input[4:36]).Hex(),
				"amount", new(big.Int).SetBytes(c.Input[36:68]).String()))
		} else {
			call.Set("input", hex0x(c.Input))
		}
		calls = append(calls, call)
	}
	o.Set("calls", calls)
	if tx.ChainID != nil {
		o.Set("chainId", tx.ChainID.String())
	}
	if tx.ValidBefore != nil {
		o.Set("validBefore", tx.ValidBefore.String())
	}
}

// Inspect for mpp/charge/tempo/push: the broadcast transaction's hash and
// the TransferWithMemo logs of its receipt (landed).
func (p Push) Inspect(payment jsonv.Value) (*jsonv.Object, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return nil, err
	}
	e, err := mpp.Echoed(payment, PushID)
	if err != nil {
		return nil, err
	}
	o := inspectBase(PushID, e, h, "challenge.id and challenge.opaque.legalContext; topic 3 of the receipt's TransferWithMemo log binds the challenge")
	if tx, ok := e.Payload.GetString("hash"); ok {
		o.Set("transaction", tx)
	}
	landed, _ := e.Credential.GetObject("landed")
	if b, ok := landed.Get("blockNumber"); ok {
		o.Set("blockNumber", jsonv.String(b))
	}
	return o, nil
}

// Inspect for mpp/session/tempo: the channel the opening opens (its id,
// the deposit and the escrow's open call whose salt is H) and the first
// voucher's cumulative amount.
func (p Session) Inspect(payment jsonv.Value) (*jsonv.Object, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return nil, err
	}
	e, err := mpp.Echoed(payment, SessionID)
	if err != nil {
		return nil, err
	}
	o := inspectBase(SessionID, e, h, "the escrow open call's salt, and the challenge's id and opaque.legalContext")
	for _, k := range []string{"action", "channelId", "authorizedSigner", "cumulativeAmount"} {
		if v, ok := e.Payload.GetString(k); ok {
			o.Set(k, v)
		}
	}
	if sig, ok := e.Payload.GetString("transaction"); ok {
		if wire, ok := mpp.HexBytes(sig, 0, MaxWireBytes); ok {
			if tx, err := DecodeTx(wire); err == nil {
				addTx(o, tx)
			}
		}
	}
	return o, nil
}

// Inspect for mpp/subscription/tempo: the key authorization's access key,
// chain, expiry and witness (H).
func (p Subscription) Inspect(payment jsonv.Value) (*jsonv.Object, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return nil, err
	}
	e, err := mpp.Echoed(payment, SubscriptionID)
	if err != nil {
		return nil, err
	}
	o := inspectBase(SubscriptionID, e, h, "the key authorization's witness, and the challenge's bare id and opaque.legalContext")
	for _, k := range []string{"periodUnit", "periodCount", "subscriptionExpires"} {
		if v, ok := e.Checked.Request.GetString(k); ok {
			o.Set(k, v)
		}
	}
	signed, _ := e.Payload.GetString("signature")
	if k, err := DecodeKeyAuthorization(signed); err == nil {
		o.Set("accessKey", common.BytesToAddress(k.KeyID).Hex())
		o.Set("keyAuthorizationDigest", hex0x(k.Digest[:]))
	}
	return o, nil
}

// InspectTx states what a signed Tempo 0x76 transaction grants, on its own:
// its sender, chain, calls (transferWithMemo and transfer decoded) and
// validity. Without the challenge it answered, H cannot be named: the memo
// carries only 7 bytes of the challenge id's hash.
func InspectTx(wire []byte) (*jsonv.Object, error) {
	tx, err := DecodeTx(wire)
	if err != nil {
		return nil, err
	}
	o := jsonv.Obj("kind", "tempo-transaction")
	addTx(o, tx)
	o.Set("whereH", "not in the transaction alone: a transferWithMemo memo binds the MPP challenge (whose id is H) by 7 bytes of keccak256 of the id; an escrow open's salt is H itself")
	return o, nil
}
