package xrpl

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// InspectBlob reads a bare signed blob (hex, as `termsgate inspect` is
// given it, without the payment around it) and states what it grants and
// where H sits, as far as the blob alone can say: the blob names no offer,
// so which pairing built it is inferred from where an H-shaped value sits.
// An x402/exact/xrpl InvoiceID is SHA-256 of the LCP string, so its H is
// only in the offer; mpp/charge/xrpl's InvoiceID is H itself; a session
// opening's memo is the LCP string. Nothing is verified: not the
// signature, not the network. A field the codec reads but no payment has
// (a UNLModify's empty Account) is stated as absent, never converted.
//
// The error says what was wrong: not hex, too long, where the
// serialization stops being canonical, a missing field.
func InspectBlob(s string) (rails.Inspection, error) {
	return rails.Guard("xrpl.InspectBlob", "an XRPL blob of "+strconv.Itoa(len(s))+" hex digits", func() (rails.Inspection, error) { return inspectBlob(s) })
}

// inspectBlob is InspectBlob unguarded.
func inspectBlob(s string) (rails.Inspection, error) {
	if s == "" || len(s)%2 != 0 || !isHexDigits(s) {
		return rails.Inspection{}, errors.New("an XRPL signed blob is an even number of hex digits")
	}
	if len(s) > MaxBlobHex {
		return rails.Inspection{}, fmt.Errorf("an XRPL signed blob is at most %d hex digits; this one has %d", MaxBlobHex, len(s))
	}
	blob, _ := hex.DecodeString(s)
	fs, err := Decode(blob)
	if err != nil {
		return rails.Inspection{}, fmt.Errorf("not an XRPL transaction: %w", err)
	}
	tt, ok := fs.Get(FieldTransactionType)
	if !ok || len(tt.Value) != 2 {
		return rails.Inspection{}, errors.New("not an XRPL transaction: it has no TransactionType")
	}
	if _, ok := fs.Get(FieldAccount); !ok {
		return rails.Inspection{}, errors.New("not an XRPL transaction: it has no Account")
	}
	tx := &Tx{Blob: blob, Fields: fs, Type: TransactionTypes[binary.BigEndian.Uint16(tt.Value)], Hash: TxHash(blob)}
	details := txDetails(tx)
	in := rails.Inspection{Kind: "xrpl-signed-blob", Grant: rails.Grant{Decimals: -1}, Details: details}
	if nid, ok := fs.Get(FieldNetworkID); ok && len(nid.Value) == 4 {
		in.Grant.Network = "xrpl:" + strconv.FormatUint(uint64(binary.BigEndian.Uint32(nid.Value)), 10)
	} else {
		details.Set("network", "xrpl:? (no NetworkID: the mainnet, testnet or devnet, ids at most 1024)")
	}
	var okPayer bool
	if in.Grant.Payer, okPayer = addressOf(fs, FieldAccount); !okPayer {
		details.Set("payer", "none: the Account is empty (a UNLModify pseudo-transaction's is; no account signs it)")
	}
	in.Grant.Payee, _ = addressOf(fs, FieldDestination)
	if amt, ok := fs.Get(FieldAmount); ok {
		g := rails.Grant{Decimals: -1}
		if amountGrant(&g, amt.Value) == nil {
			in.Grant.Asset, in.Grant.Amount, in.Grant.Decimals = g.Asset, g.Amount, g.Decimals
		}
	}
	if ca, ok := fs.Get(FieldCancelAfter); ok && len(ca.Value) == 4 {
		in.Grant.PayableUntil = time.Unix(int64(binary.BigEndian.Uint32(ca.Value))+rippleEpoch, 0).UTC()
	}
	if _, multi := fs.Get(FieldSigners); multi {
		details.Set("multisigned", true)
	}
	in.WhereH = "nowhere: the blob carries no InvoiceID and no LCP memo"
	if memos, ok := fs.Get(FieldMemos); ok {
		for i, m := range memos.Fields {
			d, ok := Fields(m.Fields).Get(FieldMemoData)
			if !ok {
				continue
			}
			if lc, ok := mpp.ParseLegalContext(string(d.Value)); ok {
				in.H, in.WhereH = lc.String(), "transaction.Memos["+strconv.Itoa(i)+"].Memo.MemoData (the LCP string's UTF-8; an mpp/session/xrpl opening)"
			}
		}
	}
	if inv, ok := fs.Get(FieldInvoiceID); ok && in.H == "" {
		// The blob alone cannot tell which of the two it is.
		id := strings.ToUpper(hex.EncodeToString(inv.Value))
		details.Set("invoiceId", id)
		details.Set("hIfMPPCharge", "0x"+strings.ToLower(id))
		in.WhereH = "transaction.InvoiceID: H itself for mpp/charge/xrpl (details.hIfMPPCharge); for x402/exact/xrpl SHA-256 of \"lcp:sha256:\" + H, whose H is then the offer's"
	}
	return in, nil
}
