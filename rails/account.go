package rails

import (
	"net/url"
	"regexp"
)

// Account is a CAIP-10 account split into its parts.
type Account struct {
	Namespace string // eip155, solana, …
	Reference string // the chain reference, e.g. 84532
	Address   string // as written for eip155, percent-decoded for the others
}

// Network is "<namespace>:<reference>", the form x402 options name.
func (a Account) Network() string { return a.Namespace + ":" + a.Reference }

var caip10 = regexp.MustCompile(`^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32}):([-.%a-zA-Z0-9]{1,128})$`)

// ParseAccount reads a CAIP-10 account. For eip155 the address is kept as
// written (so an escaped EVM address stays escaped and fails the address
// check); other namespaces are percent-decoded, and a bad escape is no account.
func ParseAccount(s string) (Account, bool) {
	m := caip10.FindStringSubmatch(s)
	if m == nil {
		return Account{}, false
	}
	a := Account{Namespace: m[1], Reference: m[2], Address: m[3]}
	if a.Namespace != "eip155" {
		dec, err := url.PathUnescape(a.Address)
		if err != nil {
			return Account{}, false
		}
		a.Address = dec
	}
	return a, true
}
