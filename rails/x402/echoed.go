package x402

import (
	"github.com/termsgate/termsgate/jsonv"
)

// EchoedLegalContext reads extensions.legalContext of a payment (or any
// object carrying it) with the read's rules and codes (x402/no-legal-context,
// x402/legal-context-malformed, x402/link-not-https) and returns the hash in
// lowercase: for pairings whose read-back needs the echoed H.
func EchoedLegalContext(o *jsonv.Object) (string, error) {
	h, _, _, err := legalContext(o)
	return h, err
}
