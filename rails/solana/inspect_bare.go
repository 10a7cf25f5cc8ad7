package solana

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// InspectWire reads a bare wire transaction (padded standard base64, or
// base58 as explorers and some wallets write it; as `termsgate inspect` is
// given it, without the payment around it) and shows what its transfer
// grants and where H sits: the one Memo instruction's text
// "lcp:sha256:0x…". The transaction names no network (its blockhash is the
// only trace of one), and no signature is verified.
//
// The error says what was wrong: neither encoding, too long, no
// transaction, or what its memo is instead of the LCP string.
func InspectWire(s string) (*jsonv.Object, error) {
	encoding := "base64"
	wire, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(s)%4 != 0 {
		var ok bool
		if wire, ok = DecodeBase58(s); !ok {
			return nil, errors.New("a Solana wire transaction is padded standard base64 or base58")
		}
		encoding = "base58"
	}
	tx, ok, tooLarge := DecodeTx(wire)
	if tooLarge {
		return nil, fmt.Errorf("a Solana wire transaction is at most %d bytes; this one has %d", MaxWire, len(wire))
	}
	if !ok {
		return nil, fmt.Errorf("the %s decodes to %d bytes that are no legacy or v0 Solana transaction (signature count, header, keys, blockhash and instructions, every byte used)", encoding, len(wire))
	}
	out := jsonv.Obj("kind", "solana-wire-transaction", "encoding", encoding, "versioned", tx.Versioned,
		"network", "? (a transaction names none: only its blockhash ties it to a cluster)")
	if amount, decimals, mint, destination, owner, ok := transferChecked(tx); ok {
		out.Set("asset", mint.String())
		out.Set("decimals", jsonv.Number(decimals))
		out.Set("amount", new(big.Int).SetUint64(amount).String())
		out.Set("payer", owner.String())
		out.Set("payeeTokenAccount", destination.String())
	} else {
		out.Set("transfer", "not exactly one TransferChecked: the transaction is not shaped as an x402/exact/solana payment")
	}
	for _, m := range ReferenceOf("", tx).Members() {
		if m.Key != "network" {
			out.Set(m.Key, m.Value)
		}
	}
	memo, h, err := MemoCarrier(tx)
	var r *rails.Refusal
	switch {
	case err == nil:
		out.Set("memo", memo)
		out.Set("h", h)
		out.Set("hAt", "the transaction's one Memo instruction: \"lcp:sha256:\" + H")
	case errors.As(err, &r) && r.Code == CodeMemoCount:
		out.Set("hAt", "nowhere: the transaction has not exactly one Memo instruction ("+r.Code+")")
	case errors.As(err, &r):
		out.Set("hAt", "nowhere: its Memo is not \"lcp:sha256:\" + 64 hex digits ("+r.Code+")")
	}
	return out, nil
}
