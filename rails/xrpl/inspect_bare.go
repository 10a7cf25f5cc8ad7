package xrpl

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// InspectBlob reads a bare signed blob (hex, as `termsgate inspect` is
// given it, without the payment around it) and shows what it grants and
// where H sits, as far as the blob alone can say: the blob names no offer,
// so which pairing built it is inferred from where an H-shaped value sits.
// An x402/exact/xrpl InvoiceID is SHA-256 of the LCP string, so its H is
// only in the offer; mpp/charge/xrpl's InvoiceID is H itself; a session
// opening's memo is the LCP string. Nothing is verified: not the
// signature, not the network.
//
// The error says what was wrong: not hex, too long, where the
// serialization stops being canonical, a missing field.
func InspectBlob(s string) (*jsonv.Object, error) {
	if s == "" || len(s)%2 != 0 || !isHexDigits(s) {
		return nil, errors.New("an XRPL signed blob is an even number of hex digits")
	}
	if len(s) > MaxBlobHex {
		return nil, fmt.Errorf("an XRPL signed blob is at most %d hex digits; this one has %d", MaxBlobHex, len(s))
	}
	blob, _ := hex.DecodeString(s)
	fs, err := Decode(blob)
	if err != nil {
		return nil, fmt.Errorf("not an XRPL transaction: %w", err)
	}
	tt, ok := fs.Get(FieldTransactionType)
	if !ok {
		return nil, errors.New("not an XRPL transaction: it has no TransactionType")
	}
	acct, ok := fs.Get(FieldAccount)
	if !ok {
		return nil, errors.New("not an XRPL transaction: it has no Account")
	}
	tx := &Tx{Blob: blob, Fields: fs, Type: TransactionTypes[binary.BigEndian.Uint16(tt.Value)], Hash: TxHash(blob)}
	network := "xrpl:? (no NetworkID: the mainnet, testnet or devnet, ids at most 1024)"
	if nid, ok := fs.Get(FieldNetworkID); ok {
		network = "xrpl:" + strconv.FormatUint(uint64(binary.BigEndian.Uint32(nid.Value)), 10)
	}
	out := jsonv.Obj("kind", "xrpl-signed-blob", "transactionType", tx.Type, "hash", tx.Hash, "network", network,
		"payer", AccountID(acct.Value).Address())
	if dest, ok := fs.Get(FieldDestination); ok {
		out.Set("payee", AccountID(dest.Value).Address())
	}
	if amt, ok := fs.Get(FieldAmount); ok {
		var g rails.Grant
		if amountGrant(&g, amt.Value) == nil {
			out.Set("asset", g.Asset)
			out.Set("amount", g.Amount.String())
			if g.Decimals >= 0 {
				out.Set("decimals", jsonv.Number(g.Decimals))
			}
		}
	}
	if lls, ok := fs.Get(FieldLastLedgerSequence); ok {
		out.Set("lastLedgerSequence", jsonv.Number(binary.BigEndian.Uint32(lls.Value)))
	}
	if _, multi := fs.Get(FieldSigners); multi {
		out.Set("multisigned", true)
	}
	h, at := "", "nowhere: the blob carries no InvoiceID and no LCP memo"
	if memos, ok := fs.Get(FieldMemos); ok {
		for i, m := range memos.Fields {
			d, ok := Fields(m.Fields).Get(FieldMemoData)
			if !ok {
				continue
			}
			if lc, ok := mpp.ParseLegalContext(string(d.Value)); ok {
				h, at = lc.String(), "transaction.Memos["+strconv.Itoa(i)+"].Memo.MemoData (the LCP string's UTF-8; an mpp/session/xrpl opening)"
			}
		}
	}
	if h != "" {
		out.Set("h", h)
	} else if inv, ok := fs.Get(FieldInvoiceID); ok {
		// The blob alone cannot tell which of the two it is.
		id := strings.ToUpper(hex.EncodeToString(inv.Value))
		out.Set("invoiceId", id)
		out.Set("hIfMPPCharge", "0x"+strings.ToLower(id))
		at = "transaction.InvoiceID: H itself for mpp/charge/xrpl; for x402/exact/xrpl SHA-256 of \"lcp:sha256:\" + H, whose H is then the offer's"
	}
	out.Set("hAt", at)
	out.Set("transaction", fs.JSON())
	return out, nil
}
