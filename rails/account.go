package rails

import (
	"net/url"
	"strings"
)

// Account is a CAIP-10 account split into its parts.
type Account struct {
	Namespace string // eip155, solana, …
	Reference string // the chain reference, e.g. 84532
	Address   string // as written for eip155, percent-decoded for the others
}

// Network is "<namespace>:<reference>", the form x402 options name.
func (a Account) Network() string { return a.Namespace + ":" + a.Reference }

// caip10Parts splits s into CAIP-10's three parts, each of its length and
// characters: namespace [-a-z0-9]{3,8}, reference [-_a-zA-Z0-9]{1,32},
// address [-.%a-zA-Z0-9]{1,128} (no part may hold a colon).
func caip10Parts(s string) (namespace, reference, address string, ok bool) {
	namespace, rest, ok1 := strings.Cut(s, ":")
	reference, address, ok2 := strings.Cut(rest, ":")
	ok = ok1 && ok2 &&
		len(namespace) >= 3 && len(namespace) <= 8 && allOf(namespace, "-", false) &&
		len(reference) >= 1 && len(reference) <= 32 && allOf(reference, "-_", true) &&
		len(address) >= 1 && len(address) <= 128 && allOf(address, "-.%", true)
	return
}

// allOf reports whether every byte of s is a lowercase letter, a digit, one
// of punct, or an uppercase letter where upper allows it.
func allOf(s, punct string, upper bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case upper && 'A' <= c && c <= 'Z':
		case strings.IndexByte(punct, c) >= 0:
		default:
			return false
		}
	}
	return true
}

// ParseAccount reads a CAIP-10 account. For eip155 the address is kept as
// written (so an escaped EVM address stays escaped and fails the address
// check); other namespaces are percent-decoded, and a bad escape is no account.
func ParseAccount(s string) (Account, bool) {
	ns, ref, addr, ok := caip10Parts(s)
	if !ok {
		return Account{}, false
	}
	a := Account{Namespace: ns, Reference: ref, Address: addr}
	if a.Namespace != "eip155" {
		dec, err := url.PathUnescape(a.Address)
		if err != nil {
			return Account{}, false
		}
		a.Address = dec
	}
	return a, true
}
