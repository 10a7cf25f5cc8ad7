package xrpl

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Refusal codes the three XRPL pairings share.
const (
	CodeBlobMalformed       = "xrpl/blob-malformed"
	CodeBlobTooLarge        = "xrpl/blob-too-large"
	CodeMultisigned         = "xrpl/multisigned"
	CodeCarrierMismatch     = "xrpl/carrier-mismatch"
	CodeCarrierNotLCP       = "xrpl/carrier-not-lcp"
	CodeCarrierOccupied     = "xrpl/carrier-occupied"
	CodeNotPayment          = "xrpl/not-payment"
	CodeNoInvoiceID         = "xrpl/no-invoice-id"
	CodeNotBuilt            = "xrpl/not-the-built-transaction"
	CodeNetworkMissing      = mpp.CodeXRPLNetworkMissing
	CodeNetworkMalformed    = mpp.CodeXRPLNetworkMalformed
	CodeMemosNotCarried     = "xrpl/memos-not-carried"
	CodeReadFirst           = "xrpl/read-first"
	CodeCurrencyNotXRP      = "xrpl/currency-not-xrp"
	CodeNotChannelCreate    = "xrpl/not-channel-create"
	CodeMemoCount           = "xrpl/memo-count"
	CodeNoMemo              = "xrpl/no-memo"
	CodeCarrierNotChallenge = "mpp/carrier-not-challenge"
)

// MaxBlobHex bounds a presented blob: 4096 hex characters (2048 bytes).
const MaxBlobHex = 4096

// Tx is a decoded presented transaction.
type Tx struct {
	Blob   []byte
	Fields Fields
	Type   string // TransactionType's name
	Hash   string // the transaction id, uppercase hex
}

// DecodePresented reads a presented blob (docs/xrpl.md "Decoding"): a
// string of an even, non-zero number of hex digits
// (xrpl/blob-malformed), at most 4096 of them (xrpl/blob-too-large), the
// canonical serialization of a transaction with a TransactionType and an
// Account (xrpl/blob-malformed), single-signed (xrpl/multisigned).
func DecodePresented(v jsonv.Value) (*Tx, error) {
	s, ok := jsonv.AsString(v)
	if !ok || s == "" || len(s)%2 != 0 || !isHexDigits(s) {
		return nil, rails.Refuse(CodeBlobMalformed)
	}
	if len(s) > MaxBlobHex {
		return nil, rails.Refuse(CodeBlobTooLarge)
	}
	blob, _ := hex.DecodeString(s)
	fs, err := Decode(blob)
	if err != nil {
		return nil, rails.Refuse(CodeBlobMalformed)
	}
	tt, ok1 := fs.Get(FieldTransactionType)
	_, ok2 := fs.Get(FieldAccount)
	if !ok1 || !ok2 {
		return nil, rails.Refuse(CodeBlobMalformed)
	}
	if _, multi := fs.Get(FieldSigners); multi {
		return nil, rails.Refuse(CodeMultisigned)
	}
	return &Tx{Blob: blob, Fields: fs, Type: TransactionTypes[binary.BigEndian.Uint16(tt.Value)], Hash: TxHash(blob)}, nil
}

func isHexDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// X402InvoiceID is where x402/exact/xrpl puts H: SHA-256 of the LCP string
// "lcp:sha256:0x…" (lowercase), 64 uppercase hex digits.
func X402InvoiceID(h atr.Hash) string {
	sum := sha256.Sum256([]byte(mpp.LegalContextValue(h)))
	return upperHex(sum[:])
}

// MPPInvoiceID is where mpp/charge/xrpl puts H: H itself, 64 uppercase hex
// digits without 0x.
func MPPInvoiceID(h atr.Hash) string {
	return upperHex(h[:])
}

// SessionMemo is the memo an XRPL session opening carries: the LCP string's
// UTF-8 bytes, as uppercase hex.
func SessionMemo(h atr.Hash) string {
	return upperHex([]byte(mpp.LegalContextValue(h)))
}

// NetworkID reads an xrpl CAIP-2 network (xrpl:0 … xrpl:4294967295, no
// leading zero).
func NetworkID(network string) (uint32, bool) {
	ref, ok := strings.CutPrefix(network, "xrpl:")
	if !ok || ref == "" || len(ref) > 10 || (ref[0] == '0' && len(ref) > 1) || !rails.IsDecimal(ref) {
		return 0, false
	}
	n, err := strconv.ParseUint(ref, 10, 32)
	return uint32(n), err == nil
}

// The network ids at or below which a transaction carries no NetworkID.
const maxImplicitNetworkID = 1024

// validUntil is the optional buyer input "validUntil": the Unix time by
// which the buyer's own ledger source says LastLedgerSequence will have
// closed (docs/xrpl.md "Deadlines"). It is copied into the choice and the
// signing request, never into the transaction, so that a spend policy can
// bound how long the signed payment may land. Absent, or a non-negative safe
// integer; anything else is refused as the pairing's missing input.
func validUntil(inputs *jsonv.Object, choice *jsonv.Object) bool {
	v, has := inputs.Get("validUntil")
	if !has {
		return true
	}
	if !uintInput(v) {
		return false
	}
	choice.Set("validUntil", jsonv.Clone(v))
	return true
}

// validUntilOf is the choice's validUntil, 0 when absent.
func validUntilOf(choice *jsonv.Object) (int64, bool) {
	v, has := choice.Get("validUntil")
	if !has {
		return 0, true
	}
	n, ok := jsonv.AsSafeInt(v)
	return n, ok && n >= 0
}

// withValidUntil adds validUntil to a request when the choice set it.
func withValidUntil(req *jsonv.Object, until int64) *jsonv.Object {
	if until > 0 {
		req.Set("validUntil", jsonv.Number(until))
	}
	return req
}

// u32 reads a JSON number that is an integer 0…2^32-1.
func u32(v jsonv.Value) (uint32, bool) {
	n, ok := jsonv.AsSafeInt(v)
	if !ok || n < 0 || n > 1<<32-1 {
		return 0, false
	}
	return uint32(n), true
}

// uintInput is the "uint" input kind: a non-negative safe integer.
func uintInput(v jsonv.Value) bool {
	n, ok := jsonv.AsSafeInt(v)
	return ok && n >= 0
}

// checkSigned decodes the signer's blob and requires it to be the built
// transaction, single-signed: the same fields as txJSON plus SigningPubKey
// and a TxnSignature that verifies under it. A wallet that signed anything
// else is refused, never forwarded.
func checkSigned(digits string, txJSON *jsonv.Object) (*Tx, error) {
	tx, err := DecodePresented(digits)
	if err != nil {
		return nil, err
	}
	want, err := FromJSON(txJSON)
	if err != nil {
		return nil, rails.Refuse(CodeNotBuilt)
	}
	pub, ok1 := tx.Fields.Get(FieldSigningPubKey)
	sig, ok2 := tx.Fields.Get(FieldTxnSignature)
	if !ok1 || !ok2 {
		return nil, rails.Refuse(CodeNotBuilt)
	}
	rest := remove(remove(tx.Fields, FieldSigningPubKey), FieldTxnSignature)
	if string(Encode(rest)) != string(Encode(want)) {
		return nil, rails.Refuse(CodeNotBuilt)
	}
	if !Verify(pub.Value, SigningData(tx.Fields), sig.Value) {
		return nil, rails.Refuse(CodeNotBuilt)
	}
	return tx, nil
}
