package evm

import (
	"strings"
	"testing"
)

// TestEscrowEventOfRefuses: only the escrow's own log, under its topic, with
// the payment hash and whole data whose addresses and small integers read,
// decodes; every other log is no event, never a panic.
func TestEscrowEventOfRefuses(t *testing.T) {
	escrow := EscrowV10.Escrow
	hash := "0x" + strings.Repeat("ab", 32)
	word := func(hexDigits string) string { return strings.Repeat("0", 64-len(hexDigits)) + hexDigits }
	words := make([]string, 14)
	for i := range words {
		words[i] = word("1")
	}
	data := func(ws []string) string { return "0x" + strings.Join(ws, "") }
	good := Log{Address: escrow, Topics: []string{TopicPaymentAuthorized, hash}, Data: data(words)}
	e, ok := EscrowEventOf(good, escrow, TopicPaymentAuthorized)
	if !ok || e.PaymentHash != hash || e.Amount.Int64() != 1 || e.Info.MaxFeeBps != 1 || e.Collector != "0x0000000000000000000000000000000000000001" {
		t.Fatalf("the good log: %+v %v", e, ok)
	}
	dirty := append([]string(nil), words...)
	dirty[2] = "ff" + word("1")[2:]
	wide := append([]string(nil), words...)
	wide[8] = word("10000") // minFeeBps above 16 bits
	for name, l := range map[string]Log{
		"another contract": {Address: EscrowV11.Escrow, Topics: good.Topics, Data: good.Data},
		"another topic":    {Address: escrow, Topics: []string{EscrowV10.ChargedTopic, hash}, Data: good.Data},
		"no hash":          {Address: escrow, Topics: []string{TopicPaymentAuthorized}, Data: good.Data},
		"three topics":     {Address: escrow, Topics: []string{TopicPaymentAuthorized, hash, hash}, Data: good.Data},
		"short data":       {Address: escrow, Topics: good.Topics, Data: data(words[:13])},
		"ragged data":      {Address: escrow, Topics: good.Topics, Data: good.Data + "00"},
		"not hex":          {Address: escrow, Topics: good.Topics, Data: "0xzz"},
		"dirty address":    {Address: escrow, Topics: good.Topics, Data: data(dirty)},
		"wide fee":         {Address: escrow, Topics: good.Topics, Data: data(wide)},
	} {
		if _, ok := EscrowEventOf(l, escrow, TopicPaymentAuthorized); ok {
			t.Errorf("%s: decoded", name)
		}
	}
}
