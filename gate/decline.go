package gate

import (
	"strings"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// Code is one of the twelve decline codes (docs/protocol.md, "Declines"). Program
// against the code; the detail is for people and logs.
type Code string

const (
	PairingNotSupported Code = "pairing-not-supported"
	OfferUnreadable     Code = "offer-unreadable"
	NoPayableOption     Code = "no-payable-option"
	LinkNotHTTPS        Code = "link-not-https"
	ATRUnfetchable      Code = "atr-unfetchable"
	ATRTooLarge         Code = "atr-too-large"
	HashMismatch        Code = "hash-mismatch"
	SignerFailed        Code = "signer-failed"
	SignedNotBound      Code = "signed-not-bound"
	AgreementNotOffered Code = "agreement-not-offered"
	AgreementPending    Code = "agreement-pending"
	AgreementFailed     Code = "agreement-failed"
)

// Codes the MCP server adds for sealed values it did not hand out unchanged
// (docs/protocol.md, "The MCP server"); the library never produces them.
const (
	ChosenUnverified  Code = "chosen-unverified"
	HoldUnverified    Code = "hold-unverified"
	OpeningUnverified Code = "opening-unverified"
)

// Codes lists the twelve codes in the order of the reference's table.
var Codes = []Code{
	PairingNotSupported, OfferUnreadable, NoPayableOption, LinkNotHTTPS, ATRUnfetchable, ATRTooLarge,
	HashMismatch, SignerFailed, SignedNotBound, AgreementNotOffered, AgreementPending, AgreementFailed,
}

// The detail sentences the gate writes, exactly as the reference gates do.
const (
	DetailHashMismatch        = "The bytes the link served do not hash to the advertised ATR hash."
	DetailAgreementNotOffered = "The pairing's payment carries no public proof and the offer names no agreement URL."
	DetailAgreementNotString  = "The offer names an agreement URL that is not a string."
	DetailTooLarge            = "The ATR is larger than 1048576 bytes."
	DetailNoChoice            = "The chosen payment carries no choice to build from."
	DetailNotCompleted        = "The signer's answer did not complete the payment."
	DetailSignedNotBound      = "What was signed does not carry the hash of these bytes."
	DetailCheckNotBound       = "The payment does not carry the hash of these bytes."
	DetailSignerFailed        = "The signer did not sign."
	DetailUnaskedSignature    = "The pairing asked for a signature it did not request."
	DetailTooManySignatures   = "The pairing asked for more signatures than a payment takes."
)

// Decline is the gate's "no": a code, its detail (a sentence or a refusal
// code such as x402/link-not-https), and, when the signer already released
// value, what it signed, so that it is never lost.
//
// Err is the cause behind the detail, when there is one: the resolver's or
// TLS error, a refused address (*atr.NotPublicError), the status
// (*atr.StatusError), the deadline (context.DeadlineExceeded), the signer's
// error. The vectors pin Code and Detail, which stay the same whatever the
// cause; Err is for people and logs, and errors.Is and errors.As reach it
// through Unwrap.
type Decline struct {
	Code   Code
	Detail string
	Moved  *Moved
	Err    error
}

// Error is the code, the detail and the cause in one line: "atr-unfetchable:
// The ATR could not be fetched from the link: Get …: atr: 127.0.0.1 is not a
// public address". A detail's closing period gives way to the cause; a cause
// that only repeats the detail is left out, and line breaks in the cause
// become spaces so that a log line stays one line.
func (d *Decline) Error() string {
	s := string(d.Code) + ": " + d.Detail
	if d.Err == nil {
		return s
	}
	cause := strings.Join(strings.Fields(d.Err.Error()), " ")
	if cause == "" || cause == d.Detail || strings.HasSuffix(d.Detail, ": "+cause) {
		return s
	}
	return strings.TrimSuffix(s, ".") + ": " + cause
}

// Unwrap returns the cause.
func (d *Decline) Unwrap() error { return d.Err }

// Moved is a payment the signer already released (a broadcast, a Lightning
// payment, a sent agreement payment), kept with the bytes it was for.
type Moved struct {
	Signed jsonv.Value
	Bytes  []byte
	H      atr.Hash
}

func decline(code Code, detail string) *Decline { return &Decline{Code: code, Detail: detail} }

func (d *Decline) because(err error) *Decline {
	d.Err = err
	return d
}

func (d *Decline) with(m *Moved) *Decline {
	d.Moved = m
	return d
}
