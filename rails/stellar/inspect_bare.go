package stellar

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/termsgate/termsgate/rails"
)

// InspectEnvelope reads a bare transaction envelope (base64 XDR, as
// `termsgate inspect` is given it, without the payment around it) as a
// payment's is read (docs/stellar.md, "Reading an envelope") and states
// what its transfer grants and where H sits: the payee's muxed id is H's
// first 8 bytes, and the full H is in the offer. An envelope carries no
// network (its passphrase is signed, not written), so none is named, and
// nothing is verified.
//
// The error says what was wrong: not base64, too long, no XDR envelope, or
// which part of the one-transfer shape it lacks.
func InspectEnvelope(s string) (rails.Inspection, error) {
	return rails.Guard("stellar.InspectEnvelope", "a Stellar envelope of "+strconv.Itoa(len(s))+" characters", func() (rails.Inspection, error) { return inspectEnvelope(s) })
}

// inspectEnvelope is InspectEnvelope unguarded.
func inspectEnvelope(s string) (rails.Inspection, error) {
	if len(s) > MaxEnvelopeChars {
		return rails.Inspection{}, fmt.Errorf("a Stellar envelope is at most %d base64 characters; this one has %d", MaxEnvelopeChars, len(s))
	}
	if _, ok := DecodeBase64(s); !ok {
		return rails.Inspection{}, errors.New("a Stellar envelope is padded standard base64")
	}
	env, err := DecodeEnvelope(s)
	if err != nil {
		return rails.Inspection{}, errors.New("the base64 is no Stellar XDR TransactionEnvelope (within the caps a payment's must keep)")
	}
	t, err := readTransfer(env)
	if err != nil {
		var r *rails.Refusal
		if errors.As(err, &r) {
			switch r.Code {
			case CodeNotOneTransfer:
				return rails.Inspection{}, errors.New("the envelope is not one transfer(from, to, amount) call authorized by its own invocation (" + r.Code + ")")
			case CodeNoAddressAuth:
				return rails.Inspection{}, errors.New("the envelope has not exactly one address authorization entry of the payer (" + r.Code + ")")
			}
			return rails.Inspection{}, errors.New("the envelope is no v1 transaction or fee bump of one (" + r.Code + ")")
		}
		return rails.Inspection{}, err
	}
	details := transferDetails(t, nil)
	details.Set("network", "? (an envelope names none: its network passphrase is signed, not carried)")
	details.Set("operationAgrees", t.Agrees)
	in := rails.Inspection{Kind: "stellar-envelope",
		Grant:   rails.Grant{Asset: t.Asset, Decimals: -1, Amount: t.Amount, Payer: t.From, Payee: t.To},
		WhereH:  "nowhere: the payee is no muxed address, so the envelope carries no H (x402/exact/stellar and mpp/charge/stellar put H's first 8 bytes in its id)",
		Details: details}
	if t.ToMux != nil {
		var prefix [8]byte
		binary.BigEndian.PutUint64(prefix[:], t.ToMux.ID)
		details.Set("hPrefix", "0x"+hexOf(prefix[:]))
		in.WhereH = "the payee's muxed id: H's first 8 bytes (details.hPrefix); the full H is the offer's legalContext (x402) or challenge id (MPP)"
	}
	return in, nil
}
