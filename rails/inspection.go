package rails

import (
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/jsonv"
)

// Inspection is what `termsgate inspect` states about one payment. Every
// pairing fills the same members, so a reader (a person, a script, an agent)
// finds payer, payee, asset, amount, network, validity and where H sits in
// the same place whatever the rail: docs/adding-a-pairing.md, "inspect".
type Inspection struct {
	Pairing string // the pairing id; "" for a bare chain transaction that names none
	Kind    string // what was read: "payment", "credential", "transaction", …
	Grant   Grant  // what the payment grants, read from the payment itself
	H       string // "0x" + 64 hex as read back; "" when the payment alone cannot say
	WhereH  string // the field that carries H, in words
	// Details holds what is particular to the pairing (a nonce, a memo, a
	// sequence number), in the pairing's own names; nil when nothing is.
	Details *jsonv.Object
}

// JSON is the inspection's wire form. Its members are always present, in
// this order, null where the payment does not say: pairing, kind, network,
// payer, payee, asset, assetName, amount, decimals, amountDecimal,
// payableFrom, payableFromTime, payableUntil, payableUntilTime, period, h,
// whereH, details. Times are Unix seconds (as decimal strings) with RFC 3339
// beside them.
func (in Inspection) JSON() *jsonv.Object {
	g := in.Grant
	str := func(s string) jsonv.Value {
		if s == "" {
			return nil
		}
		return s
	}
	o := jsonv.Obj(
		"pairing", str(in.Pairing),
		"kind", str(in.Kind),
		"network", str(g.Network),
		"payer", str(g.Payer),
		"payee", str(g.Payee),
		"asset", str(g.Asset),
		"assetName", str(g.AssetName),
	)
	if g.Amount != nil {
		o.Set("amount", g.Amount.String())
	} else {
		o.Set("amount", nil)
	}
	if g.Decimals >= 0 && g.Amount != nil {
		o.Set("decimals", jsonv.Number(g.Decimals))
		o.Set("amountDecimal", DecimalString(g.Amount, g.Decimals))
	} else {
		o.Set("decimals", nil)
		o.Set("amountDecimal", nil)
	}
	setTime := func(name string, t time.Time) {
		if t.IsZero() {
			o.Set(name, nil)
			o.Set(name+"Time", nil)
			return
		}
		o.Set(name, strconv.FormatInt(t.Unix(), 10))
		o.Set(name+"Time", t.UTC().Format(time.RFC3339))
	}
	setTime("payableFrom", g.PayableFrom)
	setTime("payableUntil", g.PayableUntil)
	if g.Period > 0 {
		o.Set("period", strconv.FormatInt(int64(g.Period/time.Second), 10))
	} else {
		o.Set("period", nil)
	}
	o.Set("h", str(in.H))
	o.Set("whereH", str(in.WhereH))
	if in.Details != nil {
		o.Set("details", in.Details)
	} else {
		o.Set("details", nil)
	}
	return o
}

// DecimalString writes amount atomic units with decimals places:
// (10000, 6) is "0.01", (5, 0) is "5".
func DecimalString(amount *big.Int, decimals int) string {
	if decimals <= 0 {
		return amount.String()
	}
	neg := amount.Sign() < 0
	s := new(big.Int).Abs(amount).String()
	for len(s) <= decimals {
		s = "0" + s
	}
	whole, frac := s[:len(s)-decimals], s[len(s)-decimals:]
	for frac != "" && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}
