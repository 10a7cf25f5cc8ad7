package aptos

import (
	"crypto/ed25519"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
)

// FuzzExactPayment: any payload.transaction text, under the file's option
// and an echoed legal context, gives Bound, the reference, Inspect and the
// bare-transaction reader an answer or a refusal, never a panic; Inspect's
// H is Bound's, and a form that decodes writes a SignedTransaction that
// decodes to the same transaction.
func FuzzExactPayment(f *testing.F) {
	raw := fixtureF(f).Encode()
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	auth := Ed25519Authenticator(key.Public().(ed25519.PublicKey), ed25519.Sign(key, SigningMessage(raw, nil)))
	f.Add(X402Payload(raw, auth))
	f.Add("AAAA")
	f.Add("eyJ0cmFuc2FjdGlvbiI6WzFdLCJzZW5kZXJBdXRoZW50aWNhdG9yIjpbMF19")
	h := "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	option := jsonv.Obj("scheme", "exact", "network", "aptos:1", "amount", "99900000",
		"asset", "0x357b0b74bc833e95a115ad22604854d6b0fca151cecd94111770e5d6ffc9dc2b",
		"payTo", "0xe8ca094fec460329aaccc2a644dc73c5e39f1a2ad6e97f82b6cbdc1a5949b9ea", "maxTimeoutSeconds", 60)
	f.Fuzz(func(t *testing.T, text string) {
		cost.Bound(t, len(text), func() {
			pay := jsonv.Obj("x402Version", 2, "accepted", option.Clone(), "payload", jsonv.Obj("transaction", text),
				"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h,
					"legalContextUrl", "https://atr.seller.example/"+h))))
			bound, errB := Exact{}.Bound(pay)
			_, _ = PaymentReference(pay)
			in, errI := Exact{}.Inspect(pay)
			if (errB == nil) != (errI == nil) || errB == nil && in.H != bound {
				t.Fatalf("bound %q %v, inspect %q %v", bound, errB, in.H, errI)
			}
			_, _ = InspectTransaction(text, "aptos:1")
			if s, err := DecodePayload(text); err == nil {
				if st, ok := s.SignedTransaction(); ok {
					back, err := DecodeSignedTransaction(st)
					if err != nil || string(back.Raw) != string(s.Raw) || !strings.EqualFold(back.Tx.Sender.String(), s.Tx.Sender.String()) {
						t.Fatalf("the SignedTransaction does not read back: %v", err)
					}
				}
			}
		})
	})
}

// FuzzDecodePayload: any bytes, as payload.transaction's base64, decode to
// a signed transaction or a refusal, never a panic; a SignedTransaction
// written from one reads back to the same transaction, and the x402 form
// written from it reads back too.
func FuzzDecodePayload(f *testing.F) {
	raw := fixtureF(f).Encode()
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	auth := Ed25519Authenticator(key.Public().(ed25519.PublicKey), ed25519.Sign(key, SigningMessage(raw, nil)))
	x, _ := stdBase64(X402Payload(raw, auth))
	f.Add(x)
	f.Add(append(append([]byte{}, raw...), auth...))
	f.Add([]byte(`{"senderAuthenticator":[0,32],"transaction":[1,2]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			s, err := DecodePayload(base64.StdEncoding.EncodeToString(b))
			if err != nil {
				return
			}
			_ = s.Verifies()
			_, _ = s.reference()
			a := Ed25519Authenticator(s.PublicKey, s.Signature)
			back, err := DecodePayload(X402Payload(s.Raw, a))
			if err != nil || string(back.Raw) != string(s.Raw) {
				t.Fatalf("the x402 form does not read back: %v", err)
			}
			if st, ok := s.SignedTransaction(); ok {
				if back, err := DecodeSignedTransaction(st); err != nil || string(back.Raw) != string(s.Raw) {
					t.Fatalf("the SignedTransaction does not read back: %v", err)
				}
			}
		})
	})
}
