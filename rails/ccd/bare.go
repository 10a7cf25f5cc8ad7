package ccd

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/cbor"
)

// The bare form `termsgate inspect` reads without the x402 wrapper: the
// V1 sponsored transaction as @concordium/web-sdk's toJSONString writes it,
// {version, signatures, header, payload}, which is what the payment carries
// as payload.signedTransaction, or the same without signatures, which is
// what the wallet signs. It names no network (the chain's genesis hash is
// not in it) and no offer.

// Kinds of the bare form.
const (
	KindBareSigned   = "ccd-signed-transaction"
	KindBareUnsigned = "ccd-transaction"
)

// IsBare reports an object shaped as the bare form, for inspect to route
// it here: version and payload members, no x402Version, and a header
// whose sender is a Concordium account address (base58check, version 1),
// which no other chain's JSON form holds.
func IsBare(o *jsonv.Object) bool {
	if o == nil || o.Has("x402Version") || !o.Has("version") || !o.Has("payload") {
		return false
	}
	h, ok := o.GetObject("header")
	if !ok {
		return false
	}
	s, _ := h.GetString("sender")
	_, err := AccountBytes(s)
	return err == nil
}

// BareError is a bare form that does not read: what was wrong, and the
// refusal whose code says why.
type BareError struct {
	What string
	Err  error
}

func (e *BareError) Error() string {
	return "ccd: not a bare V1 sponsored transaction {version, signatures, header, payload}: " + e.What + ": " + e.Err.Error()
}

func (e *BareError) Unwrap() error { return e.Err }

func bare(what string, err error) error { return &BareError{What: what, Err: err} }

// members reports an object holding only the names given, every one of
// them unless optional says so.
func members(o *jsonv.Object, optional string, names ...string) bool {
	n := 0
	for _, k := range names {
		if o.Has(k) {
			n++
		} else if k != optional {
			return false
		}
	}
	return n == o.Len()
}

// InspectBare states a bare transaction: the transfer it moves (payer the
// sender, payee the receiver, the amount of CCD or of the token), payable
// until its expiry, with H read from the memo. The network is not stated:
// the transaction does not carry it. The form is read strictly: the
// members the SDK writes and no others, the header's as ReadWire reads
// them, the signatures (when present) 64 bytes each, and the memo Memo(H)
// exactly; nothing is verified.
func InspectBare(o *jsonv.Object) (rails.Inspection, error) {
	return rails.Guard("ccd.InspectBare", "bare Concordium transaction", func() (rails.Inspection, error) {
		if o == nil || len(jsonv.Marshal(o)) > MaxTransaction {
			return rails.Inspection{}, bare(fmt.Sprintf("longer than %d bytes of JSON", MaxTransaction), rails.Refuse(CodeTooLarge))
		}
		bad := rails.Refuse(CodeTransactionMalformed)
		if !members(o, "signatures", "version", "signatures", "header", "payload") {
			return rails.Inspection{}, bare("members other than version, signatures, header and payload, or one missing", bad)
		}
		header, _ := o.GetObject("header")
		sponsor, _ := header.GetObject("sponsor")
		if !members(header, "", "sender", "nonce", "expiry", "executionEnergyAmount", "numSignatures", "sponsor") ||
			!members(sponsor, "", "account", "numSignatures") {
			return rails.Inspection{}, bare("the header holds other members than sender, nonce, expiry, executionEnergyAmount, numSignatures and sponsor {account, numSignatures}", bad)
		}
		body, _ := o.GetObject("payload")
		typ, _ := body.GetString("type")
		if typ == "transferWithMemo" && !members(body, "", "type", "toAddress", "memo", "amount") ||
			typ == "tokenUpdate" && !members(body, "", "type", "tokenId", "operations") {
			return rails.Inspection{}, bare("the "+typ+" payload holds other members than the SDK writes", bad)
		}
		signed := o.Has("signatures")
		w, err := readWire(o, signed)
		if err != nil {
			return rails.Inspection{}, bare("the transaction", err)
		}
		return bareInspection(w, signed)
	})
}

// bareInspection states a rebuilt bare transaction: InspectBare's, and
// InspectBareBinary's.
func bareInspection(w *Wire, signed bool) (rails.Inspection, error) {
	s, decimals, err := transferOf(w)
	if err != nil {
		return rails.Inspection{}, bare("the transfer's memo or operations", err)
	}
	asset := CCD
	if w.Tx.Payload[0] == typeTokenUpdate {
		asset = tokenIDOf(w.Tx.Payload)
	}
	kind := KindBareUnsigned
	if signed {
		kind = KindBareSigned
	}
	g := rails.Grant{Asset: asset, Decimals: decimals, Amount: new(big.Int).SetUint64(s.Amount),
		Payer: Address(s.Sender), Payee: Address(s.Receiver), PayableUntil: time.Unix(s.Expiry, 0).UTC()}
	d := txDetails(w)
	d.Set("memo", hex.EncodeToString(Memo(s.H)))
	d.Set("expiry", strconv.FormatInt(s.Expiry, 10))
	d.Set("network", "? (the transaction names no chain: the node it is sent to does)")
	where := "payload.memo: the transferWithMemo's memo, one CBOR text string of lcp:sha256:0x… (x402/exact/ccd)"
	if asset != CCD {
		where = "payload.operations: the one transfer's memo, tag 24 around one CBOR text string of lcp:sha256:0x… (x402/exact/ccd)"
	}
	return rails.Inspection{Kind: kind, Grant: g, H: s.H.String(), WhereH: where, Details: d}, nil
}

// transferOf reads the one transfer of a rebuilt transaction's payload:
// its receiver, amount and H, and the amount's decimals (6 for CCD, a
// token's from its amount's exponent).
func transferOf(w *Wire) (*Signed, int, error) {
	s := &Signed{Sender: w.Tx.Sender[:], Expiry: int64(w.Tx.Expiry)}
	p := w.Tx.Payload
	if p[0] == typeTransferWithMemo {
		// ReadWire wrote it: type, 32 bytes, 2-byte length, memo, 8 bytes.
		n := int(binary.BigEndian.Uint16(p[33:]))
		h, err := MemoCarrier(p[35 : 35+n])
		if err != nil {
			return nil, 0, err
		}
		s.H, s.Receiver, s.Amount = h, p[1:33], binary.BigEndian.Uint64(p[35+n:])
		return s, 6, nil
	}
	ops := p[2+int(p[1])+4:]
	if err := tokenTransfer(ops, s); err != nil {
		return nil, 0, err
	}
	d, ok := pltDecimals(ops)
	if !ok {
		return nil, 0, rails.Refuse(CodeOperationsMalformed)
	}
	return s, d, nil
}

// pltDecimals reads the transfer's amount 4([exponent, mantissa]): a token
// amount's exponent is minus its decimals, 0 to 255 (the SDK writes 0 as
// an unsigned integer, others as negative ones).
func pltDecimals(ops []byte) (int, bool) {
	v, err := cbor.Decode(ops)
	if err != nil || len(v.Items) != 1 || len(v.Items[0].Items) != 2 {
		return 0, false
	}
	amt := textKey(v.Items[0].Items[1], "amount")
	if amt == nil || len(amt.Items) != 1 || len(amt.Items[0].Items) != 2 {
		return 0, false
	}
	e := amt.Items[0].Items[0]
	switch {
	case e.Major == cbor.Uint && e.N == 0:
		return 0, true
	case e.Major == cbor.Neg && e.N < 255:
		return int(e.N) + 1, true
	}
	return 0, false
}
