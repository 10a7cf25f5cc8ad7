package mcpserver

import (
	"context"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The channel tools (docs/protocol.md, "The MCP server"). The server keeps no
// channel: the agent keeps the hold, sealed under label hold, and passes it
// back; an opening reaches atr_channel_open only with the mac atr_finish or
// atr_transact put beside it (label opening), so a hold is only ever made
// from a payment this server finished and only ever used unchanged. A
// restarted server (with another key) refuses both; the host then closes
// such a channel with the library, over the hold without its mac.

type channelOpenArgs struct {
	Pairing string      `json:"pairing" schema:"pairing" desc:"The pairing id of the payment that opened the channel, e.g. mpp/session/tempo."`
	ATR     []byte      `json:"atr" schema:"base64" desc:"atr.base64 of the ATR the opening was confirmed for: the bytes, standard padded base64."`
	Signed  jsonv.Value `json:"signed" desc:"signed exactly as atr_finish or atr_transact returned it."`
	Mac     string      `json:"mac" desc:"The mac atr_finish or atr_transact returned beside signed, unchanged."`
}

type channelChargeArgs struct {
	Hold    *jsonv.Object `json:"hold" desc:"The latest hold exactly as returned, mac included. Opaque: do not edit it."`
	Charged string        `json:"charged" desc:"The seller's cumulative charge in the channel, a decimal in the asset's atomic units: at least the charge already recorded, at most the largest amount signed (hold.signedMax)."`
}

type channelWithinArgs struct {
	Pairing  string        `json:"pairing" schema:"pairing" desc:"The pairing id of the held channel, e.g. mpp/session/tempo."`
	Hold     *jsonv.Object `json:"hold" desc:"The latest hold exactly as returned, mac included. Opaque: do not edit it."`
	Document jsonv.Value   `json:"document" desc:"The seller's new payment document as JSON, exactly as received (for MPP, the list of challenges)."`
	Refund   *jsonv.Object `json:"refund,omitempty" desc:"{} to close the channel at the charge recorded, instead of signing a further voucher. {amount} (a partial refund) is not built for MPP sessions."`
	Inputs   *jsonv.Object `json:"inputs,omitempty" desc:"Values the pairing needs from you, by name."`
}

type holdOut struct {
	Pairing   string        `json:"pairing"`
	Network   string        `json:"network" desc:"The CAIP-2 network of the channel."`
	Channel   string        `json:"channel" desc:"The channel id."`
	H         string        `json:"h" schema:"hash" desc:"The hash of the ATR the channel was opened for."`
	ATR       string        `json:"atr" desc:"The ATR's bytes, standard padded base64: the terms every payment in the channel agrees to."`
	Opening   *jsonv.Object `json:"opening" desc:"The signed opening."`
	Charged   string        `json:"charged" desc:"The seller's cumulative charge last recorded, decimal."`
	SignedMax string        `json:"signedMax" desc:"The largest cumulative amount signed in the channel, decimal."`
	Mac       string        `json:"mac" schema:"mac" desc:"This server's seal over the other members."`
}

type channelHoldOut struct {
	ATRHash string  `json:"atrHash" schema:"hash"`
	Hold    holdOut `json:"hold" desc:"Keep this hold, unchanged, for the next call; it replaces the one passed in."`
}

type channelWithinOut struct {
	ATRHash string      `json:"atrHash" schema:"hash"`
	Signed  jsonv.Value `json:"signed" desc:"The payment to send to the seller in the held channel."`
	Hold    holdOut     `json:"hold" desc:"Keep this hold, unchanged, for the next call; it replaces the one passed in."`
}

// channelTools are the tools that need no signer.
func (s *Server) channelTools() []toolDef {
	return []toolDef{
		define[channelOpenArgs, channelHoldOut]("atr_channel_open", "Hold a channel the payment opened",
			"After atr_finish or atr_transact returned a payment that opens a channel (a session) with a mac beside signed: pass pairing, atr.base64, signed and that mac, unchanged. Checks that the opening carries the ATR's hash and names its channel, and returns the hold: the channel, the ATR bytes and the opening kept together. The hold is opaque: pass it back unchanged; an edited one is refused. Signs nothing.",
			readOnlyClosed, s.channelOpen),
		define[channelChargeArgs, channelHoldOut]("atr_channel_record_charge", "Record the seller's charge in a held channel",
			"Records the seller's cumulative charge in a held channel, as the seller reported it: at least the charge already recorded and at most the largest amount signed in the channel. Returns the new hold; use it from then on. The next voucher signs the recorded charge plus what the next challenge asks. Signs nothing.",
			readOnlyClosed, s.channelCharge),
	}
}

// channelWithinTool pays with the host's wallet.
func (s *Server) channelWithinTool() toolDef {
	return define[channelWithinArgs, channelWithinOut]("atr_channel_within", "Pay inside a held channel",
		"Signs the next payment in a held channel with this server's wallet: a voucher for the recorded charge plus the amount the seller's new challenge asks, or with refund {} the close at the recorded charge. The ATR, its hash and the channel come from the hold, never from the challenge; a challenge that names another ATR's hash or another channel is declined and nothing is signed. Send the seller only signed, and keep the returned hold in place of the one passed in.",
		pays, s.channelWithin)
}

func (s *Server) channelOpen(_ context.Context, a *channelOpenArgs) (*jsonv.Object, error) {
	// The seal first: a hold is made only from an opening this server
	// finished, unchanged.
	if !s.seal.verify(labelOpening, openingMembers(a.Pairing, a.Signed), a.Mac) {
		return nil, unverified(labelOpening)
	}
	h, err := s.gate.OpenChannel(a.ATR, a.Pairing, a.Signed, nil)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("atrHash", h.H, "hold", s.seal.seal(labelHold, h.JSON())), nil
}

func (s *Server) channelCharge(_ context.Context, a *channelChargeArgs) (*jsonv.Object, error) {
	hold, err := s.openHold(a.Hold)
	if err != nil {
		return nil, err
	}
	next, err := gate.RecordCharge(hold, a.Charged)
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("atrHash", next.H, "hold", s.seal.seal(labelHold, next.JSON())), nil
}

func (s *Server) channelWithin(ctx context.Context, a *channelWithinArgs) (*jsonv.Object, error) {
	refund, aerr := refundOf(a.Refund)
	if aerr != nil {
		return nil, aerr
	}
	hold, err := s.openHold(a.Hold)
	if err != nil {
		return nil, err
	}
	step(ctx, "Checking the held channel; the wallet signs only a payment in it")
	g := *s.gate
	g.Policy = &recording{inner: s.gate.Policy, approval: &approval{srv: s}}
	r, err := g.Within(ctx, a.Document, hold, a.Pairing, s.signer, refund, inputs(a.Inputs))
	if err != nil {
		return nil, err
	}
	return jsonv.Obj("atrHash", r.H.String(), "signed", r.Signed, "hold", s.seal.seal(labelHold, r.Hold.JSON())), nil
}

// openHold checks the hold's seal, then its shape. A hold with a good seal
// is always well formed (the server sealed only holds it made), but it is
// read as any input is.
func (s *Server) openHold(v *jsonv.Object) (*gate.Hold, error) {
	members, d := s.seal.open(labelHold, v)
	if d != nil {
		return nil, d
	}
	return gate.ParseHold(members)
}

// refundOf maps the refund argument to the gate's: absent is none, {} the
// close, {amount} a partial refund (the gate judges the amount). Its one
// member is checked here, by name, as every argument is.
func refundOf(o *jsonv.Object) (*gate.Refund, *argError) {
	if o == nil {
		return nil, nil
	}
	r := &gate.Refund{}
	for _, m := range o.Members() {
		if m.Key != "amount" {
			return nil, argErrorf("atr_channel_within: unknown argument %q; the arguments are refund.amount. Nothing was done.", "refund."+m.Key)
		}
		s, ok := m.Value.(string)
		if !ok {
			return nil, argErrorf("atr_channel_within: argument %q must be a string. Nothing was done.", "refund.amount")
		}
		r.Amount = &s
	}
	return r, nil
}

// openingMembers are what an opening's mac seals: the pairing and the
// payment.
func openingMembers(pairing string, signed jsonv.Value) *jsonv.Object {
	return jsonv.Obj("pairing", pairing, "signed", signed)
}

// openingMac is the mac atr_finish and atr_transact put beside a payment
// that opens a channel, or "" for any other result (a pairing without
// channels, nothing signed).
func (s *Server) openingMac(pairing string, signed jsonv.Value) string {
	p, ok := s.gate.Pairings.Lookup(pairing)
	if !ok || signed == nil {
		return ""
	}
	if _, ok := p.(rails.Channel); !ok {
		return ""
	}
	return s.seal.mac(labelOpening, openingMembers(pairing, signed))
}
