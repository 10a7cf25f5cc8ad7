package rails

import "github.com/termsgate/termsgate/jsonv"

// Unbound is implemented by pairings that can pay, when the payer has opted
// in, an offer that publishes no terms (docs/protocol.md, "Unbound
// payments"): a payment that binds no H, built the way clients without the
// Legal Context Protocol build it. The gate uses it only through
// Gate.TransactUnbound; Choose, Request and Complete are the pairing's own.
type Unbound interface {
	// ReadUnbound reads a seller's document that publishes no legal
	// context: the Read's H, Link and Agreement are empty. A document that
	// does advertise terms is refused: it is paid bound or not at all.
	ReadUnbound(doc jsonv.Value) (Read, error)
	// BuildUnbound builds the payment for choice without H. random is 32
	// bytes from crypto/rand, the nonce of a pairing whose payer picks it
	// (EIP-3009 on x402); a pairing whose protocol fixes the nonce ignores
	// it. nonce is what the payment will carry ("0x" + 64 lowercase hex).
	BuildUnbound(choice jsonv.Value, random [32]byte) (u Unsigned, nonce string, err error)
	// UnboundNonce reads the nonce back out of a completed unbound payment.
	UnboundNonce(signed jsonv.Value) (string, error)
}
