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

// The arithmetic runs on 32-bit limbs: in base 58^5 while encoding (five
// digits a limb), in base 2^32 while decoding (five characters a step), so
// a 32-byte key takes a few dozen multiplications instead of hundreds.
const (
	pow5   = 58 * 58 * 58 * 58 * 58 // 656,356,768 < 2^32
	digits = 5
)

// Encode writes b. The work is quadratic in len(b): keys and addresses only.
func (a *Alphabet) Encode(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	rest := b[zeros:]
	// Little-endian limbs in base 58^5; log(256)/log(58^5) < 0.28.
	limbs := make([]uint32, 0, len(rest)*28/100+2)
	for len(rest) > 0 {
		// The leading partial word first, then whole 32-bit words.
		n := len(rest) % 4
		if n == 0 {
			n = 4
		}
		var word uint64
		for _, c := range rest[:n] {
			word = word<<8 | uint64(c)
		}
		shift := uint(8 * n)
		rest = rest[n:]
		carry := word
		for i := range limbs {
			t := uint64(limbs[i])<<shift + carry
			limbs[i] = uint32(t % pow5)
			carry = t / pow5
		}
		for carry > 0 {
			limbs = append(limbs, uint32(carry%pow5))
			carry /= pow5
		}
	}
	out := make([]byte, zeros+len(limbs)*digits)
	for i := 0; i < zeros; i++ {
		out[i] = a.chars[0]
	}
	// Written from the end, five digits a limb; the top limb's leading
	// zero digits are then dropped.
	pos := len(out)
	for _, l := range limbs {
		for k := 0; k < digits; k++ {
			pos--
			out[pos] = a.chars[l%58]
			l /= 58
		}
	}
	lead := zeros
	for lead < len(out) && out[lead] == a.chars[0] {
		lead++
	}
	return string(append(out[:zeros], out[lead:]...))
}

// Decode reads s; ok is false for any character outside the alphabet.
// Callers bound the length of s first: the work is quadratic.
func (a *Alphabet) Decode(s string) (b []byte, ok bool) {
	zeros := 0
	for zeros < len(s) && s[zeros] == a.chars[0] {
		zeros++
	}
	// Little-endian limbs in base 2^32; log(58)/log(2^32) < 0.184.
	limbs := make([]uint32, 0, (len(s)-zeros)*184/1000+2)
	for i := zeros; i < len(s); {
		var chunk, mul uint64 = 0, 1
		for k := 0; k < digits && i < len(s); k, i = k+1, i+1 {
			v := a.index[s[i]]
			if v < 0 {
				return nil, false
			}
			chunk = chunk*58 + uint64(v)
			mul *= 58
		}
		carry := chunk
		for j := range limbs {
			t := uint64(limbs[j])*mul + carry
			limbs[j] = uint32(t)
			carry = t >> 32
		}
		for carry > 0 {
			limbs = append(limbs, uint32(carry))
			carry >>= 32
		}
	}
	out := make([]byte, zeros+4*len(limbs))
	pos := len(out)
	for _, l := range limbs {
		for k := 0; k < 4; k++ {
			pos--
			out[pos] = byte(l)
			l >>= 8
		}
	}
	// The top limb's leading zero bytes are not part of the number.
	lead := zeros
	for lead < len(out) && out[lead] == 0 {
		lead++
	}
	return append(out[:zeros], out[lead:]...), true
}

// Has reports whether c is a character of the alphabet.
func (a *Alphabet) Has(c byte) bool { return a.index[c] >= 0 }
