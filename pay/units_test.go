package pay_test

import (
	"math/big"
	"testing"

	"github.com/termsgate/termsgate/pay"
)

func TestUnits(t *testing.T) {
	for _, c := range []struct {
		amount   string
		decimals int
		want     string
	}{
		{"10000", 6, "0.01"}, {"1000000", 6, "1"}, {"1234567", 6, "1.234567"}, {"0", 6, "0"},
		{"5", 0, "5"}, {"1", 18, "0.000000000000000001"}, {"10000", -1, ""},
	} {
		n, _ := new(big.Int).SetString(c.amount, 10)
		if got := pay.Units(n, c.decimals); got != c.want {
			t.Errorf("Units(%s, %d) = %q, want %q", c.amount, c.decimals, got, c.want)
		}
	}
}
