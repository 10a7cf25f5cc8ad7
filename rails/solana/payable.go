package solana

// BlockhashPayableSeconds bounds how long a transaction this package
// builds stays payable after its build, stated as the signing request's
// validUntil so that a spend policy can judge it (docs/solana.md, "How
// long a payment stays payable"). The network runs a transaction only
// while its blockhash is one of the last 150 blocks, and a blockhash is
// never newer than the build (none of these builds advances a durable
// nonce, and no spend summary reads a message that does). Blocks come about
// every 0.4 s; counted at 4 s each, the network would have to slow tenfold
// for a transaction to outlive the bound. It is one bound for every Solana
// pairing: a policy needs the longest a signed transaction may stay
// payable, not the likeliest.
const BlockhashPayableSeconds = 150 * 4

// payableUntil is now + BlockhashPayableSeconds, ok false when now is
// negative or the sum is past the largest safe JSON integer.
func payableUntil(now int64) (int64, bool) {
	if now < 0 || now > maxSafeInt-BlockhashPayableSeconds {
		return 0, false
	}
	return now + BlockhashPayableSeconds, true
}
