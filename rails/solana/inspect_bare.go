package solana

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// InspectWire reads a bare wire transaction (padded standard base64, or
// base58 as explorers and some wallets write it; as `termsgate inspect` is
// given it, without the payment around it) and states what its transfer
// grants and where H sits: the one Memo instruction's text
// "lcp:sha256:0x…". The transaction names no network (its blockhash is the
// only trace of one), and no signature is verified. The payee is the
// destination token account, as x402/exact/solana's summary states it.
//
// The error says what was wrong: neither encoding, too long, no
// transaction, or what its memo is instead of the LCP string.
func InspectWire(s string) (rails.Inspection, error) {
	return rails.Guard("solana.InspectWire", "a Solana transaction of "+strconv.Itoa(len(s))+" characters", func() (rails.Inspection, error) { return inspectWire(s) })
}

// inspectWire is InspectWire unguarded.
func inspectWire(s string) (rails.Inspection, error) {
	encoding := "base64"
	wire, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(s)%4 != 0 {
		var ok bool
		if wire, ok = DecodeBase58(s); !ok {
			return rails.Inspection{}, errors.New("a Solana wire transaction is padded standard base64 or base58")
		}
		encoding = "base58"
	}
	tx, ok, tooLarge := DecodeTx(wire)
	if tooLarge {
		return rails.Inspection{}, fmt.Errorf("a Solana wire transaction is at most %d bytes; this one has %d", MaxWire, len(wire))
	}
	if !ok {
		return rails.Inspection{}, fmt.Errorf("the %s decodes to %d bytes that are no legacy or v0 Solana transaction (signature count, header, keys, blockhash and instructions, every byte used)", encoding, len(wire))
	}
	details := jsonv.Obj("encoding", encoding, "versioned", tx.Versioned,
		"network", "? (a transaction names none: only its blockhash ties it to a cluster)")
	in := rails.Inspection{Kind: "solana-wire-transaction", Grant: rails.Grant{Decimals: -1}, Details: details}
	if amount, decimals, mint, destination, owner, ok := transferChecked(tx); ok {
		in.Grant = rails.Grant{Asset: mint.String(), Decimals: decimals, Amount: new(big.Int).SetUint64(amount),
			Payer: owner.String(), Payee: destination.String()}
	} else {
		details.Set("transfer", "not exactly one TransferChecked: the transaction is not shaped as an x402/exact/solana payment")
	}
	for _, m := range reference("", tx).Members() {
		details.Set(m.Key, m.Value)
	}
	memo, h, err := MemoCarrier(tx)
	var r *rails.Refusal
	switch {
	case err == nil:
		details.Set("memo", memo)
		in.H, in.WhereH = h, "the transaction's one Memo instruction: \"lcp:sha256:\" + H"
	case errors.As(err, &r) && r.Code == CodeMemoCount:
		in.WhereH = "nowhere: the transaction has not exactly one Memo instruction (" + r.Code + ")"
	case errors.As(err, &r):
		in.WhereH = "nowhere: its Memo is not \"lcp:sha256:\" + 64 hex digits (" + r.Code + ")"
	}
	return in, nil
}
