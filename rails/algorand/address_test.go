package algorand

import (
	"crypto/sha512"
	"strings"
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

// TestDecodeAddressAsBase32: the in-place decoder takes exactly what the
// standard base32 decoder takes (with the spare bits zero) and gives the
// same bytes, over every character at every position of an address.
func TestDecodeAddressAsBase32(t *testing.T) {
	var pub [32]byte
	copy(pub[:], "decode-address-as-base32-agree!!")
	addr := []byte(Address(pub))
	chars := b32Alphabet + "abz0189=-_ "
	for i := range addr {
		orig := addr[i]
		for j := 0; j < len(chars); j++ {
			addr[i] = chars[j]
			got, ok := decodeAddress32(string(addr))
			raw, err := b32.DecodeString(string(addr))
			want := err == nil && len(raw) == 36 && strings.IndexByte(b32Alphabet, addr[AddressLen-1])&3 == 0
			if ok != want || ok && string(got[:]) != string(raw) {
				t.Fatalf("%q: decodeAddress32 %x %v, base32 %x %v", addr, got, ok, raw, want)
			}
		}
		addr[i] = orig
	}
}

// TestGroupIDAsEncode: the group id written directly is the one of the
// generic msgpack encoding, across the fixarray and array16 forms.
func TestGroupIDAsEncode(t *testing.T) {
	for _, n := range []int{1, 2, 15, 16} {
		txns := make([]*Txn, n)
		ids := make([]Value, n)
		for i := range txns {
			txns[i] = &Txn{Type: "pay", Fee: uint64(1000 + i), FirstValid: 1, LastValid: 100}
			id := txns[i].RawID()
			ids[i] = Bin(id[:])
		}
		want := sha512.Sum512_256(append([]byte("TG"), Encode(Map(Entry{"txlist", Array(ids...)}))...))
		if got := GroupID(txns); got != want {
			t.Fatalf("%d transactions: GroupID %x, want %x", n, got, want)
		}
	}
}
