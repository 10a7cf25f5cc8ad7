package mpp

import (
	"math/big"
	"regexp"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// The XRPL method's pairings (docs/xrpl.md).
const (
	PairingXRPLCharge  = "mpp/charge/xrpl"
	PairingXRPLSession = "mpp/session/xrpl"
)

// Codes of the XRPL checks beyond the network's.
const CodeXRPLCurrencyNotXRP = "xrpl/currency-not-xrp"

var (
	xrplAddress   = regexp.MustCompile(`^r[1-9A-HJ-NP-Za-km-z]{24,34}$`)
	xrplCode      = regexp.MustCompile(`^(?:[A-Za-z0-9?!@#$%^&*<>(){}\[\]|]{3}|[0-9A-Fa-f]{40})$`)
	xrplAmount    = regexp.MustCompile(`^(?:0|[1-9][0-9]{0,39})(?:\.[0-9]{1,40})?$`)
	xrplDrops     = regexp.MustCompile(`^(?:0|[1-9][0-9]{0,19})$`)
	twoTo64       = new(big.Int).Lsh(big.NewInt(1), 64)
	xrplMPTIssued = regexp.MustCompile(`^[0-9A-Fa-f]{48}$`)
)

// xrplU64 reads drops: decimal without sign, point or leading zero, below
// 2^64.
func xrplU64(s string) (*big.Int, bool) {
	if !xrplDrops.MatchString(s) {
		return nil, false
	}
	n, _ := new(big.Int).SetString(s, 10)
	return n, n.Cmp(twoTo64) < 0
}

func xrplCurrencyOK(v jsonv.Value) (xrp bool, ok bool) {
	if v == "XRP" {
		return true, true
	}
	o, isObj := jsonv.AsObject(v)
	if !isObj {
		return false, false
	}
	if o.Len() == 1 {
		id, _ := o.GetString("mpt_issuance_id")
		return false, xrplMPTIssued.MatchString(id)
	}
	code, _ := o.GetString("currency")
	issuer, _ := o.GetString("issuer")
	return false, o.Len() == 2 && code != "XRP" && xrplCode.MatchString(code) && xrplAddress.MatchString(issuer)
}

func xrplTagOK(d *jsonv.Object, k string) bool {
	v, has := d.Get(k)
	if !has {
		return true
	}
	n, ok := jsonv.AsSafeInt(v)
	return ok && n >= 0 && n <= 1<<32-1
}

// xrplCharge: network, then recipient, currency (XRP, an issued currency or
// an MPT), amount (whole positive drops for XRP), invoiceId (64 hex) and the
// tags (u32) when present.
func xrplCharge(r, d *jsonv.Object) ([]string, error) {
	if _, err := xrplNetwork(d); err != nil {
		return nil, err
	}
	malformed := refuse(CodeRequestMalformed)
	cur, _ := r.Get("currency")
	xrp, ok := xrplCurrencyOK(cur)
	if !ok || !xrplAddress.MatchString(String(r, "recipient")) {
		return nil, malformed
	}
	amount, ok := r.GetString("amount")
	if !ok || !xrplAmount.MatchString(amount) || !hasNonZero(amount) {
		return nil, malformed
	}
	if xrp {
		if n, ok := xrplU64(amount); !ok || n.Sign() == 0 {
			return nil, malformed
		}
	}
	if inv, has := d.Get("invoiceId"); has {
		if s, ok := inv.(string); !ok || !isHexDigits(s, 64) {
			return nil, malformed
		}
	}
	if !xrplTagOK(d, "destinationTag") || !xrplTagOK(d, "sourceTag") {
		return nil, malformed
	}
	return []string{PairingXRPLCharge}, nil
}

func hasNonZero(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '1' && s[i] <= '9' {
			return true
		}
	}
	return false
}

func isHexDigits(s string, n int) bool { return rails.IsHex("0x"+s, n) }

// xrplSession: no channel named (mpp/channel-named), the network, XRP only
// (xrpl/currency-not-xrp), then recipient and an amount of whole drops
// below 2^64 (mpp/request-malformed).
func xrplSession(r, d *jsonv.Object) ([]string, error) {
	ch, has := r.Get("channelId")
	if !has {
		ch, has = d.Get("channelId")
	}
	if has && ch != "" {
		return nil, refuse(CodeChannelNamed)
	}
	if _, err := xrplNetwork(d); err != nil {
		return nil, err
	}
	if cur, has := r.Get("currency"); has && cur != "XRP" {
		return nil, refuse(CodeXRPLCurrencyNotXRP)
	}
	amount, _ := r.GetString("amount")
	if _, ok := xrplU64(amount); !ok || !xrplAddress.MatchString(String(r, "recipient")) {
		return nil, refuse(CodeRequestMalformed)
	}
	return []string{PairingXRPLSession}, nil
}
