package rails

import "strings"

// knownAssets are assets whose decimals a request does not carry but a
// summary can state: Circle's USDC (https://developers.circle.com/stablecoins/usdc-contract-addresses)
// and Tempo's pathUSD (6 decimals, as every TIP-20 token). Keyed by network
// and the asset in lowercase.
var knownAssets = map[[2]string]int{
	{"eip155:1", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"}:        6, // USDC, Ethereum
	{"eip155:11155111", "0x1c7d4b196cb0c7b01d743fbc6116a902379c7238"}: 6, // USDC, Sepolia
	{"eip155:8453", "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"}:     6, // USDC, Base
	{"eip155:84532", "0x036cbd53842c5426634e7929541ec2318f3dcf7e"}:    6, // USDC, Base Sepolia
	{"eip155:4217", "0x20c0000000000000000000000000000000000000"}:     6, // pathUSD, Tempo
	{"eip155:42431", "0x20c0000000000000000000000000000000000000"}:    6, // pathUSD, Tempo Moderato
}

// KnownDecimals is the decimals of a known asset on network, else -1. EVM
// addresses match in any case.
func KnownDecimals(network, asset string) int {
	if strings.HasPrefix(network, "eip155:") {
		asset = strings.ToLower(asset)
	}
	if d, ok := knownAssets[[2]string{network, asset}]; ok {
		return d
	}
	return -1
}
