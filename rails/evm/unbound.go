package evm

import (
	"encoding/hex"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// The two EVM pairings that pay, when the payer opted in, an offer that
// publishes no terms (docs/protocol.md, "Unbound payments"). The payment is
// what x402 and MPP clients without the Legal Context Protocol send: for
// x402 an EIP-3009 authorization under a random nonce, for MPP one under
// the challenge hash of the seller's own id.
var (
	_ rails.Unbound = ExactEIP3009{}
	_ rails.Unbound = MPPAuthorization{}
)

// ReadUnbound reads a PAYMENT-REQUIRED without a legalContext extension.
func (p ExactEIP3009) ReadUnbound(doc jsonv.Value) (rails.Read, error) {
	return x402.ReadPlain(doc, p.serves)
}

// BuildUnbound builds the authorization of Build with random as its nonce.
func (p ExactEIP3009) BuildUnbound(choice jsonv.Value, random [32]byte) (rails.Unsigned, string, error) {
	nonce := "0x" + hex.EncodeToString(random[:])
	u, err := p.build(choice, nonce)
	if err != nil {
		return nil, "", err
	}
	return u, nonce, nil
}

// UnboundNonce reads the authorization's nonce with Bound's checks.
func (p ExactEIP3009) UnboundNonce(signed jsonv.Value) (string, error) { return p.Bound(signed) }

// ReadUnbound reads a challenge list without LCP keys.
func (MPPAuthorization) ReadUnbound(doc jsonv.Value) (rails.Read, error) { return mpp.ReadPlain(doc) }

// BuildUnbound builds the authorization of Build for a challenge that
// publishes no terms; its nonce is the challenge hash, as MPP has it, so
// random is not used.
func (MPPAuthorization) BuildUnbound(choice jsonv.Value, _ [32]byte) (rails.Unsigned, string, error) {
	o, err := mpp.PlainOfferFor(choice, MPPAuthorizationID)
	if err != nil {
		return nil, "", err
	}
	u, err := buildAuthorization(o)
	if err != nil {
		return nil, "", err
	}
	nonce, _ := u.authorization.GetString("nonce")
	return u, nonce, nil
}

// UnboundNonce reads the credential's nonce once it is the echoed
// challenge's hash (mpp/nonce-not-challenge-hash).
func (MPPAuthorization) UnboundNonce(signed jsonv.Value) (string, error) {
	e, err := mpp.PlainEchoed(signed, MPPAuthorizationID)
	if err != nil {
		return "", err
	}
	if t, _ := e.Payload.GetString("type"); t != "authorization" {
		return "", rails.Refuse(mpp.CodeCredentialType)
	}
	text, _ := e.Payload.GetString("nonce")
	want := mpp.ChallengeHash(mpp.String(e.Challenge, "id"), mpp.String(e.Challenge, "realm"))
	if text != "0x"+hex.EncodeToString(want[:]) {
		return "", rails.Refuse(CodeNonceNotChallengeHash)
	}
	return text, nil
}
