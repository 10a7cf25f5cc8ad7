package rails

// The shapes every rail checks in seller documents and signer answers. They
// run several times per payment, so they are written by hand: a regexp
// costs more than the rest of a read.

// IsHex reports whether s is "0x" and exactly digits hex digits, either case.
func IsHex(s string, digits int) bool {
	if len(s) != digits+2 || s[0] != '0' || s[1] != 'x' {
		return false
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// IsDecimal reports whether s is 1 to 78 decimal digits: a non-negative
// integer as a JSON string, with room for any uint256.
func IsDecimal(s string) bool {
	if len(s) < 1 || len(s) > 78 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
