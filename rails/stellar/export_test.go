package stellar

import "math/big"

// Matches lets the external tests hold a Signing to the check both Builds
// run before any signer call.
func (s *Signing) Matches(to, asset string, amount *big.Int, payer string) error {
	return s.matches(to, asset, amount, payer)
}
