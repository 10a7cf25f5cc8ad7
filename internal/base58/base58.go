// Package base58 is base58 over any 58-character alphabet: Solana writes
// keys in Bitcoin's, the XRP Ledger addresses and seeds in its own order of
// the same characters. One leading zero byte is one leading alphabet[0].
package base58

// Alphabet is a base58 alphabet with its reverse index.
type Alphabet struct {
	chars string
	index [256]int8
}

// New returns the alphabet of chars, which must be 58 distinct bytes.
func New(chars string) *Alphabet {
	if len(chars) != 58 {
		panic("base58: an alphabet has 58 characters")
	}
	a := &Alphabet{chars: chars}
	for i := range a.index {
		a.index[i] = -1
	}
	for i := 0; i < len(chars); i++ {
		a.index[chars[i]] = int8(i)
	}
	return a
}

// Bitcoin is Bitcoin's alphabet, which Solana uses.
var Bitcoin = New("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")

// Encode writes b. The work is quadratic in len(b): keys and addresses only.
func (a *Alphabet) Encode(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	// log(256)/log(58) < 1.38: enough digits for any input.
	digits := make([]byte, 0, len(b)*138/100+1)
	for _, c := range b[zeros:] {
		carry := int(c)
		for i := range digits {
			carry += int(digits[i]) << 8
			digits[i] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits = append(digits, byte(carry%58))
			carry /= 58
		}
	}
	out := make([]byte, zeros+len(digits))
	for i := 0; i < zeros; i++ {
		out[i] = a.chars[0]
	}
	for i, d := range digits {
		out[len(out)-1-i] = a.chars[d]
	}
	return string(out)
}

// Decode reads s; ok is false for any character outside the alphabet.
// Callers bound the length of s first: the work is quadratic.
func (a *Alphabet) Decode(s string) (b []byte, ok bool) {
	zeros := 0
	for zeros < len(s) && s[zeros] == a.chars[0] {
		zeros++
	}
	le := make([]byte, 0, len(s)*733/1000+1) // little-endian bytes
	for i := zeros; i < len(s); i++ {
		v := a.index[s[i]]
		if v < 0 {
			return nil, false
		}
		carry := int(v)
		for j := range le {
			carry += int(le[j]) * 58
			le[j] = byte(carry)
			carry >>= 8
		}
		for carry > 0 {
			le = append(le, byte(carry))
			carry >>= 8
		}
	}
	out := make([]byte, zeros+len(le))
	for i, c := range le {
		out[len(out)-1-i] = c
	}
	return out, true
}

// Has reports whether c is a character of the alphabet.
func (a *Alphabet) Has(c byte) bool { return a.index[c] >= 0 }
