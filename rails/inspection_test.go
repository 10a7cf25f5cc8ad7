package rails

import (
	"math/big"
	"testing"
	"time"

	"github.com/termsgate/termsgate/jsonv"
)

func TestInspectionJSONHasEveryMember(t *testing.T) {
	want := []string{"pairing", "kind", "network", "payer", "payee", "asset", "assetName", "amount", "decimals",
		"amountDecimal", "payableFrom", "payableFromTime", "payableUntil", "payableUntilTime", "period", "h", "whereH", "details"}
	for _, in := range []Inspection{{}, {
		Pairing: "x402/exact/eip155/eip3009", Kind: "payment",
		Grant: Grant{Network: "eip155:84532", Amount: big.NewInt(10000), Decimals: 6,
			PayableUntil: time.Unix(1764547200, 0)},
		H: "0x" + "ab", WhereH: "payload.authorization.nonce",
	}} {
		got := in.JSON().Keys()
		if len(got) != len(want) {
			t.Fatalf("members %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("member %d is %q, want %q", i, got[i], want[i])
			}
		}
	}
	o := Inspection{Grant: Grant{Amount: big.NewInt(10000), Decimals: 6, PayableUntil: time.Unix(1764547200, 0)}}.JSON()
	if s, _ := o.GetString("amountDecimal"); s != "0.01" {
		t.Errorf("amountDecimal %q, want 0.01", s)
	}
	if s, _ := o.GetString("payableUntilTime"); s != "2025-12-01T00:00:00Z" {
		t.Errorf("payableUntilTime %q", s)
	}
	if v, _ := o.Get("payableFrom"); v != nil {
		t.Errorf("payableFrom %v, want null", jsonv.Marshal(v))
	}
}

func TestDecimalString(t *testing.T) {
	for _, c := range []struct {
		amount int64
		dec    int
		want   string
	}{{10000, 6, "0.01"}, {5, 0, "5"}, {1500000, 6, "1.5"}, {7, 2, "0.07"}, {-7, 2, "-0.07"}, {100, 2, "1"}} {
		if got := DecimalString(big.NewInt(c.amount), c.dec); got != c.want {
			t.Errorf("DecimalString(%d, %d) = %q, want %q", c.amount, c.dec, got, c.want)
		}
	}
}
