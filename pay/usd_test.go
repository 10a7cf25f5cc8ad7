package pay_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
)

const usdcBase = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"

func TestUSDStablecoinsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range pay.USDStablecoins() {
		if err := pay.CheckNetwork(c.Network); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
		if strings.HasPrefix(c.Network, "eip155:") && !evm.CheckedAddress(c.Asset) {
			t.Errorf("%s %s is no EIP-55 address", c.Network, c.Asset)
		}
		if k := c.Network + " " + strings.ToLower(c.Asset); seen[k] {
			t.Errorf("%s twice", k)
		} else {
			seen[k] = true
		}
	}
	if c, ok := pay.LookupUSD("eip155:84532", strings.ToLower(usdc)); !ok || c.Decimals != 6 || c.Name != "USDC" {
		t.Fatalf("Base Sepolia USDC in lowercase: %+v %v", c, ok)
	}
	if _, ok := pay.LookupUSD("stellar:testnet", strings.ToLower("CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA")); ok {
		t.Fatal("a Stellar contract matched in another case")
	}
}

// USD limits: the most per payment and the budgets in dollars, counted by
// the table's decimals; an asset the table does not know is refused by a
// USD limit, and is an error when a USD limit names it.
func TestUSDLimits(t *testing.T) {
	other := "0x1111111111111111111111111111111111111111"
	cases := []struct {
		name   string
		limits []pay.Limit
		amount string
		asset  string
		want   string
	}{
		{"within MaxUSD", []pay.Limit{{Network: network, Asset: usdc, MaxUSD: "0.01"}}, "10000", usdc, "allowed"},
		{"above MaxUSD", []pay.Limit{{Network: network, Asset: usdc, MaxUSD: "0.01"}}, "10001", usdc, pay.DetailAmountAboveMaximum},
		{"wildcard MaxUSD", []pay.Limit{{Network: network, MaxUSD: "0.10"}}, "100000", usdc, "allowed"},
		{"wildcard MaxUSD, an unknown token", []pay.Limit{{Network: network, MaxUSD: "0.10"}}, "1", other, pay.DetailAssetNotUSD},
		{"MaxAmount and MaxUSD, the smaller holds", []pay.Limit{{Network: network, Asset: usdc, MaxAmount: bigInt(1_000_000), MaxUSD: "0.005"}}, "10000", usdc, pay.DetailAmountAboveMaximum},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPolicy(t, pay.PolicyConfig{Limits: tc.limits})
			if got := refusal(p.Allow(context.Background(), transfer(84532, tc.asset, payee, tc.amount, 60))); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	t.Run("the detail says dollars", func(t *testing.T) {
		p := newPolicy(t, pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: usdc, MaxUSD: "0.01"}}})
		err := p.Allow(context.Background(), transfer(84532, usdc, payee, "2000000", 60))
		if d := asDecline(err); d == nil || !strings.HasSuffix(d.Detail, "($2, at most $0.01)") {
			t.Fatalf("got %v", err)
		}
	})
	for name, l := range map[string]pay.Limit{
		"unknown asset":    {Network: network, Asset: other, MaxUSD: "1"},
		"unknown network":  {Network: "eip155:10", MaxUSD: "1"},
		"malformed amount": {Network: network, Asset: usdc, MaxUSD: "$1"},
		"negative":         {Network: network, Asset: usdc, MaxUSD: "-1"},
		"19 decimals":      {Network: network, Asset: usdc, MaxUSD: "0.0000000000000000001"},
		"no maximum":       {Network: network, Asset: usdc, BudgetUSD: "1"},
	} {
		if _, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{l}}); err == nil {
			t.Errorf("%s: NewPolicy accepted %+v", name, l)
		}
	}
	if _, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: usdc, MaxUSD: "1"}}, BudgetUSD: "five"}); err == nil {
		t.Error("NewPolicy accepted BudgetUSD five")
	}
}

// A wildcard Limit gives each token contract its own Budget: 50 payments
// of 10 go through across 50 token contracts under Budget 10. BudgetUSD is
// the total across assets and networks.
func TestWildcardBudgetIsPerAssetAndBudgetUSDIsTotal(t *testing.T) {
	t.Run("wildcard Budget counts each token contract apart", func(t *testing.T) {
		p := newPolicy(t, pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: bigInt(10), Budget: bigInt(10)}}})
		for i := range 50 {
			token := fmt.Sprintf("0x%040x", i+1)
			if got := refusal(p.Allow(context.Background(), transfer(84532, token, payee, "10", 60))); got != "allowed" {
				t.Fatalf("payment %d in %s: %s", i, token, got)
			}
		}
		if got := refusal(p.Allow(context.Background(), transfer(84532, fmt.Sprintf("0x%040x", 1), payee, "10", 60))); got != pay.DetailBudgetExhausted {
			t.Fatalf("a second payment in the first token: %s", got)
		}
	})
	t.Run("BudgetUSD across networks and assets", func(t *testing.T) {
		p := newPolicy(t, pay.PolicyConfig{
			Limits: []pay.Limit{
				{Network: network, MaxUSD: "1"},
				{Network: "eip155:8453", Asset: usdcBase, MaxAmount: bigInt(1_000_000)},
				{Network: "eip155:42431", MaxUSD: "1"},
			},
			BudgetUSD: "0.03",
		})
		ctx := context.Background()
		for _, ps := range []struct {
			chain        int64
			asset, value string
		}{{84532, usdc, "10000"}, {8453, usdcBase, "10000"}, {42431, pathUSD, "10000"}} {
			if got := refusal(p.Allow(ctx, transfer(ps.chain, ps.asset, payee, ps.value, 60))); got != "allowed" {
				t.Fatalf("$0.01 on %d: %s", ps.chain, got)
			}
		}
		err := p.Allow(ctx, transfer(84532, usdc, payee, "1", 60))
		if d := asDecline(err); d == nil || pay.DetailCode(d.Detail) != pay.DetailBudgetExhausted || !strings.Contains(d.Detail, "budget $0.03 in all") {
			t.Fatalf("a fourth payment past $0.03: %v", err)
		}
		if got := refusal(p.Allow(ctx, transfer(84532, "0x1111111111111111111111111111111111111111", payee, "1", 60))); got != pay.DetailAssetNotUSD {
			t.Fatalf("an asset the total cannot count: %s", got)
		}
		j := p.JSON()
		if b, _ := j.GetString("budgetUSD"); b != "0.03" {
			t.Fatalf("JSON budgetUSD %q", b)
		}
		if s, _ := j.GetString("spentUSD"); s != "0.03" {
			t.Fatalf("JSON spentUSD %q", s)
		}
	})
	t.Run("a refused total gives the asset's reservation back", func(t *testing.T) {
		p := newPolicy(t, pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: usdc, MaxAmount: bigInt(1_000_000), Budget: bigInt(1_000_000)}}, BudgetUSD: "0.01"})
		ctx := context.Background()
		if got := refusal(p.Allow(ctx, transfer(84532, usdc, payee, "10001", 60))); got != pay.DetailBudgetExhausted {
			t.Fatalf("got %s", got)
		}
		if n := p.Spent(network, usdc); n == nil || n.Sign() != 0 {
			t.Fatalf("the asset's budget kept %v", n)
		}
	})
	t.Run("Release gives back every budget", func(t *testing.T) {
		p := newPolicy(t, pay.PolicyConfig{Limits: []pay.Limit{{Network: network, Asset: usdc, MaxUSD: "1", BudgetUSD: "0.01"}}, BudgetUSD: "0.01"})
		ctx := context.Background()
		ps := defaultTransfer()
		if got := refusal(p.Allow(ctx, ps)); got != "allowed" {
			t.Fatal(got)
		}
		p.Release(ctx, ps)
		if got := refusal(p.Allow(ctx, defaultTransfer())); got != "allowed" {
			t.Fatalf("after Release: %s", got)
		}
	})
}
