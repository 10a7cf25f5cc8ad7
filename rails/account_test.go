package rails

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// The pattern CAIP-10 accounts were read with; the hand-written reader must
// accept exactly what it accepts.
var caip10Pattern = regexp.MustCompile(`^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32}):([-.%a-zA-Z0-9]{1,128})$`)

func TestParseAccountAgreesWithPattern(t *testing.T) {
	cases := []string{
		"eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1:9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
		"", ":", "::", "ab:1:x", "abc:1:x", "abcdefgh:1:x", "abcdefghi:1:x", "ABC:1:x", "abc::x", "abc:1:", "abc:1:x:y",
		"abc:" + string(make([]byte, 33)) + ":x", "abc:_-:%2F.-", "abc:1:x\n", "abc:1:x y", "a-c:1:x", "abc:1:\u00e9",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const chars = "abcXYZ019-_.%:/ \u00e9"
	for i := 0; i < 20000; i++ {
		b := make([]byte, rng.IntN(24))
		for j := range b {
			b[j] = chars[rng.IntN(len(chars))]
		}
		cases = append(cases, string(b), "eip155:"+string(b), "eip155:1:"+string(b))
	}
	for _, s := range cases {
		m := caip10Pattern.FindStringSubmatch(s)
		ns, ref, addr, ok := caip10Parts(s)
		if ok != (m != nil) || ok && (ns != m[1] || ref != m[2] || addr != m[3]) {
			t.Fatalf("%q: parts %q %q %q %v, pattern %q", s, ns, ref, addr, ok, m)
		}
	}
}
