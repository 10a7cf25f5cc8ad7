package pay

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// USDStablecoin is a token of which one whole unit is one US dollar, with
// the spelling signing requests give it and its decimals. USD limits
// (Limit.MaxUSD, Limit.BudgetUSD, PolicyConfig.BudgetUSD) count only these,
// with the decimals written here: never the decimals a seller states.
type USDStablecoin struct {
	Network string // CAIP-2
	Asset   string // as the signing request names it (EVM addresses in any case)
	Name    string // USDC, pathUSD
	// Decimals of the atomic unit. -1 for an XRPL issued currency, whose
	// amount is a decimal value in the signed transaction itself (the
	// summary's Decimals are that value's fractional digits).
	Decimals int
}

// usdStablecoins is the table, from the issuers' published addresses
// (docs/paying-client.md, "Limits in US dollars", cites each): Circle's
// USDC (https://developers.circle.com/stablecoins/usdc-contract-addresses)
// on the EVM networks of rails/assets.go, Solana, Stellar (its Stellar
// Asset Contract, 7 decimals as every Stellar asset) and the XRPL (the
// 160-bit currency code "USDC" from Circle's issuer), and Tempo's pathUSD.
var usdStablecoins = []USDStablecoin{
	{"eip155:1", "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "USDC", 6},                                  // Ethereum
	{"eip155:11155111", "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238", "USDC", 6},                           // Sepolia
	{"eip155:8453", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "USDC", 6},                               // Base
	{"eip155:84532", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "USDC", 6},                              // Base Sepolia
	{"eip155:4217", "0x20c0000000000000000000000000000000000000", "pathUSD", 6},                            // Tempo
	{"eip155:42431", "0x20c0000000000000000000000000000000000000", "pathUSD", 6},                           // Tempo Moderato
	{"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "USDC", 6}, // mainnet
	{"solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", "USDC", 6}, // devnet
	{"stellar:pubnet", "CCW67TSZV3SSS2HXMBQ5JFGCKJNXKZM7UQUWUZPUTHXSTZLEO7SJMI75", "USDC", 7},
	{"stellar:testnet", "CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA", "USDC", 7},
	{"xrpl:0", "5553444300000000000000000000000000000000.rGm7WCVp9gb4jZHWTEtGUr4dd74z2XuWhE", "USDC", -1}, // mainnet
	{"xrpl:1", "5553444300000000000000000000000000000000.rHuGNhqTG32mfmAvWA8hUyWRLV3tCSwKQt", "USDC", -1}, // testnet
}

// USDStablecoins lists the table USD limits count by.
func USDStablecoins() []USDStablecoin { return slices.Clone(usdStablecoins) }

// LookupUSD is the table's entry for asset on network.
func LookupUSD(network, asset string) (USDStablecoin, bool) {
	k := assetKey(asset)
	for _, c := range usdStablecoins {
		if c.Network == network && assetKey(c.Asset) == k {
			return c, true
		}
	}
	return USDStablecoin{}, false
}

func usdOnNetwork(network string) bool {
	for _, c := range usdStablecoins {
		if c.Network == network {
			return true
		}
	}
	return false
}

// attoPerUSD: USD budgets count in 10⁻¹⁸ dollars, finer than any
// stablecoin's atomic unit in the table, so that amounts of different
// assets add up exactly.
var attoPerUSD = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

// TotalUSDKey is the BudgetKey under which PolicyConfig.BudgetUSD counts
// the payments made while it is set, in 10⁻¹⁸ dollars. A Limit's
// BudgetUSD counts under {Network, "usd:" + the asset} the same way.
var TotalUSDKey = BudgetKey{Network: "usd", Asset: "total"}

func usdKey(network, asset string) BudgetKey {
	return BudgetKey{Network: network, Asset: "usd:" + assetKey(asset)}
}

// ParseUSD reads a number of US dollars written as decimal digits with an
// optional fraction of at most 18 digits ("0.10", "5", "0.000001"). No
// sign, exponent, currency sign or separators.
func ParseUSD(s string) (*big.Rat, error) {
	whole, frac, dot := strings.Cut(s, ".")
	digits := func(d string) bool { return strings.Trim(d, "0123456789") == "" }
	if whole == "" && frac == "" || !digits(whole) || !digits(frac) || dot && frac == "" || len(frac) > 18 || len(s) > 40 {
		return nil, fmt.Errorf("%q is not a number of US dollars (digits, a point and at most 18 decimals, like 0.10)", s)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("%q is not a number of US dollars", s)
	}
	return r, nil
}

// usdValue is what amount of the summary's asset is worth in dollars, by
// the table; false when the table does not know the asset.
func usdValue(s Summary, amount *big.Int) (*big.Rat, bool) {
	c, ok := LookupUSD(s.Network, s.Asset)
	if !ok {
		return nil, false
	}
	decimals := c.Decimals
	if decimals < 0 { // an XRPL value: its digits and their decimals are in the signed amount
		decimals = s.Decimals
	}
	if decimals < 0 || decimals > 96 {
		return nil, false
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	return new(big.Rat).SetFrac(amount, scale), true
}

// atto is usd in 10⁻¹⁸ dollars, rounded up: a budget never counts less
// than was paid.
func atto(usd *big.Rat) *big.Int {
	n := new(big.Int).Mul(usd.Num(), attoPerUSD)
	q, m := new(big.Int).QuoRem(n, usd.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// dollars writes r as "$0.1" (at most 18 decimals, no trailing zeros).
func dollars(r *big.Rat) string {
	s := strings.TrimRight(strings.TrimRight(r.FloatString(18), "0"), ".")
	return "$" + s
}
