package evm

// The settling call's input, for the Permit2 pairings. Their receipts carry
// no event naming the nonce: a token Transfer from the payer to the payee,
// and Permit2's nonce bitmap, say that some permit of the payer's moved the
// tokens, not that this payment's did. A second payment from the same payer
// to the same payee (another upto payment, a later exact one) shows the
// same Transfer, and its own nonce is used too. The call's input is where
// the settled permit's nonce is, so a reader that can read transactions
// has the status check it there.

import (
	"bytes"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// TxReader is a Reader that also reads a transaction's call
// (eth_getTransactionByHash): the contract called and the input, "0x" hex.
type TxReader interface {
	Transaction(tx string) (to, input string, err error)
}

// WhyNonceNotInInput: the transaction's input does not carry the payment's
// Permit2 nonce, so the transfer it made settled another permit.
const WhyNonceNotInInput = "nonce-not-in-input"

// maxInputBytes bounds the input searched (a settle call is a few hundred
// bytes; a facilitator's multicall of many stays far below).
const maxInputBytes = 1 << 20

// nonceInInput reads tx's call through r when r is a TxReader and reports
// whether its input carries nonce as a 32-byte word, at any offset: a
// facilitator may call the proxy directly (the word aligned after the
// selector) or through a multicall (nested, at another alignment). checked
// is false when r cannot read transactions; err when the read failed or
// answered no input.
func nonceInInput(r Reader, tx string, nonce atr.Hash) (carried, checked bool, err error) {
	t, ok := r.(TxReader)
	if !ok {
		return false, false, nil
	}
	_, input, err := t.Transaction(tx)
	if err != nil {
		return false, true, err
	}
	b, ok := HexBytes(input)
	if !ok || len(b) > maxInputBytes {
		return false, true, errMalformedInput
	}
	return bytes.Contains(b, nonce[:]), true, nil
}

type inputError string

func (e inputError) Error() string { return string(e) }

const errMalformedInput = inputError("evm: the transaction's input does not read")

// permit2InputStatus is s, the status a Permit2 reference read to, checked
// against the settling call's input when the reader can read it: settled
// only when the input carries the reference's authorization nonce; a failed
// read is pending unreadable. One read more, before the finality marks are
// trusted.
func permit2InputStatus(s Status, ref *jsonv.Object, r Reader) Status {
	if s.State != StateSettled {
		return s
	}
	tx, _ := ref.GetString("transaction")
	auth, _ := ref.GetObject("authorization")
	nonceText, _ := auth.GetString("nonce")
	nonce, err := atr.ParseHash(nonceText)
	if err != nil {
		return pending(WhyUnreadable)
	}
	carried, checked, err := nonceInInput(r, tx, nonce)
	switch {
	case !checked:
		return s
	case err != nil:
		return pending(WhyUnreadable)
	case !carried:
		return failed(WhyNonceNotInInput)
	}
	return s
}
