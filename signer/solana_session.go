package signer

import (
	"crypto/ed25519"
	"errors"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/solana"
)

// sessionOpen answers a solana-session-open request as the buyer's channel
// client: the message must decode and hold exactly one open of the
// request's channel program whose payer is this key, a required signer; it
// signs the message and answers the open payload {action: "open",
// channelId: the open's channel, transaction: the wire, base64, with this
// key's signature in its slot and zeros in the fee payer's}.
func (s *Solana) sessionOpen(req rails.Request) (jsonv.Value, error) {
	msg, err := messageBytes(req)
	if err != nil {
		return nil, err
	}
	m, ok := solana.DecodeMessage(msg)
	if !ok {
		return nil, errors.New("signer: the session opening is not a Solana message")
	}
	text, _ := req.GetString("channelProgram")
	program, ok := solana.ParseKey(text)
	if !ok {
		return nil, errors.New("signer: the session opening names no channel program")
	}
	open, err := solana.OpenOf(m, program)
	if err != nil {
		return nil, errors.New("signer: the message holds no one open of the channel program")
	}
	if open.Payer != s.pub {
		return nil, errors.New("signer: the open's payer is not this key")
	}
	wire, ok := solana.SignedWire(msg, s.pub, ed25519.Sign(s.key, msg))
	if !ok {
		return nil, errors.New("signer: the message does not ask this key to sign")
	}
	return jsonv.Obj("action", "open", "channelId", open.Channel.String(), "transaction", solana.TransactionBase64(wire)), nil
}
