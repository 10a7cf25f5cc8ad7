package gate

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The JSON forms the CLI and the MCP tools print, in the reference's shapes
// (docs/protocol.md, "The MCP server", results): byte strings as 0x hex, the ATR as
// {base64, utf8|null}.

// ATRJSON is the ATR's bytes as {base64, utf8}: standard padded base64, and
// the text when the bytes are valid UTF-8 (a leading byte-order mark dropped,
// as the reference does), else null. Keep base64 with atrHash: it is the
// exact bytes; utf8 is for reading only.
func ATRJSON(b []byte) *jsonv.Object {
	var text jsonv.Value
	if utf8.Valid(b) {
		text = strings.TrimPrefix(string(b), "\uFEFF")
	}
	return jsonv.Obj("base64", base64.StdEncoding.EncodeToString(b), "utf8", text)
}

// JSON is the offer as {pairing, publicProof, atrHash, link, agreement?, options}.
func (o *Offer) JSON() *jsonv.Object {
	out := jsonv.Obj("pairing", o.Pairing, "publicProof", o.PublicProof, "atrHash", o.H, "link", o.Link)
	if o.Agreement != "" {
		out.Set("agreement", o.Agreement)
	}
	opts := o.Options
	if opts == nil {
		opts = []jsonv.Value{}
	}
	out.Set("options", opts)
	return out
}

// JSON is {atrHash, atr, chosen, request}; request is null when there is
// nothing for the buyer to sign.
func (c *Confirmed) JSON() *jsonv.Object {
	var req jsonv.Value
	if c.Request != nil {
		req = c.Request
	}
	return jsonv.Obj("atrHash", c.H.String(), "atr", ATRJSON(c.Bytes), "chosen", c.Chosen.JSON(), "request", req)
}

// JSON is {atrHash, signed} or, mid-way through a multi-step payment,
// {atrHash, next}.
func (f *Finished) JSON() *jsonv.Object {
	if f.Next != nil {
		return jsonv.Obj("atrHash", f.H.String(), "next", f.Next)
	}
	out := jsonv.Obj("atrHash", f.H.String(), "signed", f.Signed)
	if f.Landed != nil {
		out.Set("landed", f.Landed)
	}
	return out
}

// JSON is {atrHash, atr, signed, landed?, agreement?}, or, when the
// agreement payment awaits approval, {atrHash, atr, approve}; for an
// unbound payment {unbound: true, nonce, signed}, without terms.
func (t *Transacted) JSON() *jsonv.Object {
	if t.Unbound {
		return jsonv.Obj("unbound", true, "nonce", t.Nonce, "signed", t.Signed)
	}
	out := jsonv.Obj("atrHash", t.H.String(), "atr", ATRJSON(t.Bytes))
	if t.Approve != nil {
		out.Set("approve", t.Approve.JSON())
		return out
	}
	out.Set("signed", t.Signed)
	if t.Landed != nil {
		out.Set("landed", t.Landed)
	}
	if t.Agreement != nil {
		out.Set("agreement", t.Agreement.JSON())
	}
	return out
}

// JSON is {atrHash, approve} or {atrHash, receipt}.
func (a *Agreed) JSON() *jsonv.Object {
	if a.Receipt != nil {
		return jsonv.Obj("atrHash", a.Receipt.ATRHash, "receipt", a.Receipt.JSON())
	}
	return jsonv.Obj("atrHash", a.H.String(), "approve", a.Approve.JSON())
}

// JSON is {decline: {code, detail}, cause?, moved?: {signed, atr, atrHash}}.
// cause is the text of Err, in its own member so that detail stays exactly
// what the vectors pin.
func (d *Decline) JSON() *jsonv.Object {
	out := jsonv.Obj("decline", jsonv.Obj("code", string(d.Code), "detail", d.Detail))
	if d.Err != nil {
		out.Set("cause", d.Err.Error())
	}
	if d.Moved != nil {
		out.Set("moved", jsonv.Obj("signed", d.Moved.Signed, "atr", ATRJSON(d.Moved.Bytes), "atrHash", d.Moved.H.String()))
	}
	return out
}

// ParseChosen reads chosen from its JSON form. Anything that is not
// {pairing: string, choice: object, ref?: string, agreement?: string} is
// offer-unreadable, as Finish declines it.
func ParseChosen(v jsonv.Value) (rails.Chosen, error) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return rails.Chosen{}, decline(OfferUnreadable, DetailNoChoice)
	}
	choice, ok := o.GetObject("choice")
	if !ok {
		return rails.Chosen{}, decline(OfferUnreadable, DetailNoChoice)
	}
	c := rails.Chosen{Choice: choice}
	c.Pairing, _ = o.GetString("pairing")
	c.Ref, _ = o.GetString("ref")
	c.Agreement, _ = o.GetString("agreement")
	return c, nil
}

// ParseATR decodes the base64 form of ATR bytes (standard alphabet, padded).
func ParseATR(s string) ([]byte, error) {
	return base64.StdEncoding.Strict().DecodeString(s)
}
