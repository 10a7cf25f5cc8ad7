package atr

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

// ErrNotPublic is wrapped by every refusal of PublicDialer, so callers can tell
// a policy refusal from a network failure with errors.Is.
var ErrNotPublic = errors.New("not a public address")

// IPv4 blocks that are not globally reachable, plus multicast and reserved
// space (docs/protocol.md, "Public addresses", from the IANA special-purpose registries).
var v4NotPublic = prefixes(
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
	"192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
	"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
)

var (
	v6Global    = netip.MustParsePrefix("2000::/3")
	v6NotPublic = prefixes("2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20")
	v6NAT64     = netip.MustParsePrefix("64:ff9b::/96")
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// IsPublicAddr reports whether a is a globally reachable unicast address, so
// that a seller's link cannot point the buyer's machine at its own network
// (loopback, private, link-local, cloud metadata …). IPv6 is public only inside
// 2000::/3 and outside the listed exceptions; an IPv4-mapped or NAT64
// (64:ff9b::/96) address is judged by the IPv4 address it carries; a zoned or
// invalid address is never public.
func IsPublicAddr(a netip.Addr) bool {
	if !a.IsValid() || a.Zone() != "" {
		return false
	}
	if a.Is4In6() {
		a = a.Unmap()
	} else if v6NAT64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if a.Is4() {
		for _, p := range v4NotPublic {
			if p.Contains(a) {
				return false
			}
		}
		return true
	}
	if !v6Global.Contains(a) {
		return false
	}
	for _, p := range v6NotPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// Resolver is what PublicDialer needs of a resolver; *net.Resolver has it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// PublicDialer connects only to public addresses. A name is resolved once,
// every address it resolves to must be public, and the connection goes to one
// of exactly those addresses, so a second lookup (DNS rebinding) cannot swap
// in a private one.
type PublicDialer struct {
	// Resolver resolves host names; nil means net.DefaultResolver.
	Resolver Resolver
	// Dialer makes the connection to the checked address.
	Dialer net.Dialer
}

// DialContext dials addr ("host:port") under the public-address policy. An IP
// literal, or a host WHATWG reads as IPv4 (such as 0x7f.1), is checked before
// anything else happens. Refusals wrap ErrNotPublic and say "not a public
// address"; a resolver error is returned as it is.
func (d *PublicDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var checked []netip.Addr
	if a, ok := literalAddr(host); ok {
		if !IsPublicAddr(a) {
			return nil, notPublic(host)
		}
		checked = []netip.Addr{a}
	} else {
		if strings.Contains(host, "%") || host == "" {
			return nil, notPublic(host)
		}
		var r Resolver = net.DefaultResolver
		if d.Resolver != nil {
			r = d.Resolver
		}
		ipNet := "ip"
		switch network {
		case "tcp4", "udp4":
			ipNet = "ip4"
		case "tcp6", "udp6":
			ipNet = "ip6"
		}
		addrs, err := r.LookupNetIP(ctx, ipNet, host)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, notPublic(host)
		}
		for _, a := range addrs {
			if !IsPublicAddr(a) {
				return nil, notPublic(a.String())
			}
		}
		checked = addrs
	}
	var last error
	for _, a := range checked {
		conn, err := d.Dialer.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

// literalAddr reads host as an IP literal, or as the IPv4 address WHATWG makes
// of a host that ends in a number. A host ending in a number that is not one
// (example.123) is read as the invalid address, which is never public.
func literalAddr(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true
	}
	h := strings.ToLower(host)
	if h != "" && isASCII(h) && endsInNumber(h) {
		a, _ := parseIPv4(h)
		return a, true
	}
	return netip.Addr{}, false
}

// NotPublicError is a refused address: Host is the literal or resolved
// address (or the name, when it resolved to nothing) that is not public.
// It matches ErrNotPublic with errors.Is.
type NotPublicError struct{ Host string }

func (e *NotPublicError) Error() string { return "atr: " + e.Host + " is not a public address" }
func (e *NotPublicError) Unwrap() error { return ErrNotPublic }

func notPublic(what string) error { return &NotPublicError{Host: what} }

// The idle pool of NewClient's transport: one connection per payer for up to
// 64 payers fetching from (and, in the CLI, paying) one host at once, so that
// concurrent payments reuse connections rather than each ending in a new TLS
// handshake (net/http's default keeps 2 per host).
const (
	MaxIdleConnsPerHost = 64
	MaxIdleConns        = 256
)

// NewClient returns the client the CLI and the MCP server fetch with: it
// dials through PublicDialer unless allowPrivate (for local development), uses
// TLS 1.2 or later, HTTP/2 where the server offers it, follows no redirect,
// keeps no cookies and never asks for or decodes compression. It uses no
// proxy, since a proxy would make the address check meaningless. Its idle
// pool keeps MaxIdleConnsPerHost connections per host.
func NewClient(allowPrivate bool) *http.Client {
	nd := net.Dialer{Timeout: FetchTimeout, KeepAlive: 30 * time.Second}
	dial := nd.DialContext
	if !allowPrivate {
		pd := &PublicDialer{Dialer: nd}
		dial = pd.DialContext
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dial,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:      true,
		DisableCompression:     true,
		MaxIdleConns:           MaxIdleConns,
		MaxIdleConnsPerHost:    MaxIdleConnsPerHost,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    FetchTimeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
