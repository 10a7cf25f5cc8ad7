package pay

import (
	"math/big"
	"testing"

	"github.com/termsgate/termsgate/rails"
)

// The dollars a payment is worth come from the table's decimals, never
// from the decimals a summary carries (a seller may state them); an XRPL
// issued amount is a decimal value as signed.
func TestUSDValueUsesTheTable(t *testing.T) {
	for _, tc := range []struct {
		network, asset string
		amount         int64
		decimals       int // what the summary claims
		want           string
	}{
		{"eip155:84532", "0x036cbd53842c5426634e7929541ec2318f3dcf7e", 10000, 18, "1/100"},
		{"stellar:testnet", "CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA", 100000, 6, "1/100"},
		{"solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", 10000, 9, "1/100"},
		{"xrpl:1", "5553444300000000000000000000000000000000.rHuGNhqTG32mfmAvWA8hUyWRLV3tCSwKQt", 1, 2, "1/100"},
	} {
		s := Summary{Grant: rails.Grant{Network: tc.network, Asset: tc.asset, Decimals: tc.decimals}}
		got, ok := usdValue(s, big.NewInt(tc.amount))
		if !ok || got.String() != tc.want {
			t.Errorf("%s %s: %v %v, want %s", tc.network, tc.asset, got, ok, tc.want)
		}
	}
	if _, ok := usdValue(Summary{Grant: rails.Grant{Network: "eip155:84532", Asset: "0x1111111111111111111111111111111111111111", Decimals: 6}}, big.NewInt(1)); ok {
		t.Error("an unknown token has a dollar value")
	}
	if got := atto(big.NewRat(1, 3)); got.String() != "333333333333333334" {
		t.Errorf("atto(1/3) = %s, rounded up", got)
	}
}
