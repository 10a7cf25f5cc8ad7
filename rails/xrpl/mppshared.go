package xrpl

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// chooseMPP takes, for an xrpl account, the first challenge offering pairing
// (read without its placed opaque) on the account's network, and the
// account's address.
func chooseMPP(read rails.Read, account, pairing string) (*jsonv.Object, string, error) {
	acct, ok := rails.ParseAccount(account)
	if !ok || acct.Namespace != "xrpl" || !IsAddressShape(acct.Address) {
		return nil, "", rails.Refuse(mpp.CodeNoPayableOption)
	}
	for _, v := range read.Options {
		if !mpp.OffersPlaced(v, pairing) {
			continue
		}
		if n, err := mpp.Network(v); err != nil || n != acct.Network() {
			continue
		}
		c, _ := jsonv.AsObject(v)
		return c.Clone(), acct.Address, nil
	}
	return nil, "", rails.Refuse(mpp.CodeNoPayableOption)
}

// chosenFor is every MPP build's first step: the choice's challenge
// (mpp/input-malformed), checked as placed, offering pairing
// (mpp/not-this-pairing), its id naming h (mpp/id-not-ours).
func chosenFor(choice jsonv.Value, h atr.Hash, pairing string) (*jsonv.Object, *mpp.Checked, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	challenge, ok := c.GetObject("challenge")
	if !ok {
		return nil, nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	if _, ok := challenge.GetString("id"); !ok {
		return nil, nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	checked, err := mpp.CheckChosen(challenge, pairing, h)
	if err != nil {
		return nil, nil, err
	}
	return c, checked, nil
}

// isMPPFee is ^(0|[1-9][0-9]{0,18})$.
func isMPPFee(s string) bool {
	return s == "0" || (len(s) >= 1 && len(s) <= 19 && s[0] != '0' && rails.IsDecimal(s))
}

// amountJSON is a request's amount as txJson writes it: XRP drops as the
// string, an MPT as {mpt_issuance_id, value}, an issued currency as
// {currency, issuer, value}.
func amountJSON(currency jsonv.Value, amount string) (v jsonv.Value, issued bool) {
	o, ok := jsonv.AsObject(currency)
	if !ok {
		return amount, false
	}
	if id, ok := o.GetString("mpt_issuance_id"); ok {
		return jsonv.Obj("mpt_issuance_id", id, "value", amount), false
	}
	code, _ := o.GetString("currency")
	issuer, _ := o.GetString("issuer")
	return jsonv.Obj("currency", code, "issuer", issuer, "value", amount), true
}
