package algorand

import (
	"crypto/sha512"
	"testing"
)

// TestParseAddressOneSpelling: of the 32 characters an address can end
// in, ParseAddress takes exactly the one that encoding the key writes (the
// others differ only in the 2 bits past the 36 bytes, or in the checksum),
// and it takes the address Address writes.
func TestParseAddressOneSpelling(t *testing.T) {
	for seed := range 8 {
		var pub [32]byte
		sum := sha512.Sum512_256([]byte{byte(seed)})
		copy(pub[:], sum[:])
		addr := Address(pub)
		got, ok := ParseAddress(addr)
		if !ok || got != pub {
			t.Fatalf("seed %d: ParseAddress(Address(pub)) = %x, %v", seed, got, ok)
		}
		accepted := 0
		for i := 0; i < len(b32Alphabet); i++ {
			s := addr[:AddressLen-1] + string(b32Alphabet[i])
			_, ok := ParseAddress(s)
			if ok != (s == addr) {
				t.Errorf("seed %d: ParseAddress(%s) = %v", seed, s, ok)
			}
			if ok {
				accepted++
			}
		}
		if accepted != 1 {
			t.Errorf("seed %d: %d spellings accepted, want 1", seed, accepted)
		}
		for _, bad := range []string{addr[:AddressLen-1] + "a", addr[:AddressLen-1] + "=", addr[:AddressLen-1] + "\n", addr[:AddressLen-1], addr + "A"} {
			if _, ok := ParseAddress(bad); ok {
				t.Errorf("seed %d: ParseAddress(%q) accepted", seed, bad)
			}
		}
	}
}
