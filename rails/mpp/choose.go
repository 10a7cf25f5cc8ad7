package mpp

import (
	"regexp"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// Choose is MPP choosing (docs/protocol.md, "MPP") for the EVM and Tempo pieces: the account
// must be eip155 with an 0x address, and the challenge is the first kept one
// that offers pairing (read without its placed opaque) on the account's
// network. It returns a copy of that challenge and the address as written.
func Choose(read rails.Read, account, pairing string) (*jsonv.Object, string, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "eip155" || !IsAddress(acct.Address) {
		return nil, "", refuse(CodeNoPayableOption)
	}
	for _, v := range read.Options {
		if !OffersPlaced(v, pairing) {
			continue
		}
		if n, err := Network(v); err != nil || n != acct.Network() {
			continue
		}
		c, _ := jsonv.AsObject(v)
		return c.Clone(), acct.Address, nil
	}
	return nil, "", refuse(CodeNoPayableOption)
}

// Choice is the choice the MPP builds take, {challenge, from, now, …inputs},
// inputs in the order given.
func Choice(challenge *jsonv.Object, from string, now int64, inputs *jsonv.Object) *jsonv.Object {
	c := jsonv.Obj("challenge", challenge, "from", from, "now", now)
	for _, m := range inputs.Members() {
		c.Set(m.Key, jsonv.Clone(m.Value))
	}
	return c
}

// Input names a buyer input and its kind (docs/protocol.md, "Accounts, inputs and signing requests"): "string" (non-empty),
// "decimal", "object", or a pattern the string must match; Optional inputs
// may be absent. Any input present and not of its kind is mpp/input-missing.
type Input struct {
	Name     string
	Kind     string         // "string", "decimal" or "object"; "" with Pattern
	Pattern  *regexp.Regexp // for pattern-typed inputs
	Optional bool
}

// Inputs picks the named inputs, checked, in spec order.
func Inputs(given *jsonv.Object, spec ...Input) (*jsonv.Object, error) {
	out := &jsonv.Object{}
	for _, in := range spec {
		v, has := given.Get(in.Name)
		if !has && in.Optional {
			continue
		}
		if !has || !inputOK(in, v) {
			return nil, refuse(CodeInputMissing)
		}
		out.Set(in.Name, jsonv.Clone(v))
	}
	return out, nil
}

func inputOK(in Input, v jsonv.Value) bool {
	if in.Pattern != nil {
		s, ok := v.(string)
		return ok && in.Pattern.MatchString(s)
	}
	switch in.Kind {
	case "string":
		s, ok := v.(string)
		return ok && s != ""
	case "decimal":
		s, ok := v.(string)
		return ok && rails.IsDecimal(s)
	case "object":
		_, ok := jsonv.AsObject(v)
		return ok
	}
	return false
}

// Offer is a choice whose challenge checked for a build.
type Offer struct {
	*Checked
	Choice *jsonv.Object
	From   string
}

// OfferFor is the build preamble (docs/protocol.md, "MPP"): choice.challenge an object
// (mpp/input-malformed), checked as placed, offering pairing
// (mpp/not-this-pairing), its id naming h (mpp/id-not-ours), and from an
// address (mpp/input-malformed).
func OfferFor(choice jsonv.Value, h atr.Hash, pairing string) (*Offer, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, refuse(CodeInputMalformed)
	}
	challenge, ok := c.GetObject("challenge")
	if !ok {
		return nil, refuse(CodeInputMalformed)
	}
	checked, err := CheckChosen(challenge, pairing, h)
	if err != nil {
		return nil, err
	}
	from, _ := c.GetString("from")
	if !IsAddress(from) {
		return nil, refuse(CodeInputMalformed)
	}
	return &Offer{Checked: checked, Choice: c, From: from}, nil
}
