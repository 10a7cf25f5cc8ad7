package mpp

import (
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// CodeSessionAction refuses a session payload action that no session
// payment has.
const CodeSessionAction = "mpp/session-action"

// SessionPayload is a session payment's payload object.
func SessionPayload(signed jsonv.Value) (*jsonv.Object, error) {
	o, ok := jsonv.AsObject(signed)
	if !ok {
		return nil, rails.Refuse(CodeCredentialMalformed)
	}
	p, ok := o.GetObject("payload")
	if !ok {
		return nil, rails.Refuse(CodeCredentialMalformed)
	}
	return p, nil
}

// SessionChannelKind reads a session payment's place in its channel from
// the payload's action, the same on every session rail: open for the
// opening, within for a voucher (or a top-up, which the buyer does not build
// but a seller may show), close for the close.
func SessionChannelKind(signed jsonv.Value) (rails.ChannelKind, error) {
	p, err := SessionPayload(signed)
	if err != nil {
		return "", err
	}
	switch String(p, "action") {
	case "open":
		return rails.ChannelOpen, nil
	case "voucher", "topUp":
		return rails.ChannelWithin, nil
	case "close":
		return rails.ChannelClose, nil
	}
	return "", rails.Refuse(CodeSessionAction)
}

// WithinChallenge is how every session's BuildWithin reads the challenge it
// answers: a challenge's shape with a string id (mpp/input-malformed), for
// intent "session" and method (mpp/not-this-pairing).
func WithinChallenge(v jsonv.Value, method string) (*jsonv.Object, error) {
	c, ok := IsChallengeShape(v)
	if !ok {
		return nil, refuse(CodeInputMalformed)
	}
	if _, ok := c.GetString("id"); !ok {
		return nil, refuse(CodeInputMalformed)
	}
	if String(c, "intent") != "session" || String(c, "method") != method {
		return nil, refuse(CodeNotThisPairing)
	}
	return c, nil
}
