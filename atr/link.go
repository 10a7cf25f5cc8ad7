package atr

import (
	"strings"
	"unicode/utf8"
)

// MaxLinkUnits bounds a link or agreement URL, in UTF-16 code units as
// JavaScript's String.length counts them, so that the same value is too long
// here exactly when it is too long upstream.
const MaxLinkUnits = 2048

// maxDNSName is RFC 1123's bound on a host name without its trailing dot.
const maxDNSName = 253

// IsHTTPSLink is the one https-link rule (docs/protocol.md, "Links") every ATR link and
// agreement URL must pass. It is deliberately narrower than "parses as https":
// the raw text must already be clean (no whitespace, controls or backslash, so
// nothing is silently stripped or rewritten on the way), name a host (a DNS
// name of RFC 1123 labels or a bracketed IP literal), carry no userinfo, and
// then parse as a WHATWG https URL. It does not bound the length; CheckLink
// does.
func IsHTTPSLink(s string) bool {
	// Rule 1: a Go string holds bytes, not UTF-16; invalid UTF-8 (including
	// an encoded surrogate) stands for the lone surrogates JS would refuse.
	if !utf8.ValidString(s) {
		return false
	}
	// Rule 2.
	for _, r := range s {
		if isLinkForbidden(r) {
			return false
		}
	}
	// Rule 3.
	if len(s) < 8 || !asciiEqualFold(s[:8], "https://") {
		return false
	}
	rest := s[8:]
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	if strings.IndexByte(authority, '@') >= 0 {
		return false
	}
	// Rules 4 and 5.
	if !hostPortShape(authority) {
		return false
	}
	// Rule 6.
	u, ok := parseURL(s)
	return ok && u.scheme == "https" && u.host != "" && !u.creds
}

// asciiEqualFold compares ignoring ASCII case only, as a JS regular
// expression with the i flag does for ASCII patterns (strings.EqualFold would
// also fold, say, U+017F into s).
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// isLinkForbidden reports the code points of rule 2: Unicode White_Space,
// every Cc control, and the backslash.
func isLinkForbidden(r rune) bool {
	switch {
	case r <= 0x20, r >= 0x7f && r <= 0xa0, r == 0x1680, r >= 0x2000 && r <= 0x200a,
		r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000, r == '\\':
		return true
	}
	return false
}

// hostPortShape checks rules 4 and 5 on the authority: a bracketed literal of
// [0-9A-Fa-f:.]+ or dot-separated RFC 1123 labels with an optional trailing
// dot (at most 253 characters without it), then optionally ':' and up to five
// digits whose value, when there are any, is at most 65535.
func hostPortShape(a string) bool {
	var port string
	hasPort := false
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 2 {
			return false
		}
		for i := 1; i < end; i++ {
			if c := a[i]; !isHex(c) && c != ':' && c != '.' {
				return false
			}
		}
		switch tail := a[end+1:]; {
		case tail == "":
		case tail[0] == ':':
			port, hasPort = tail[1:], true
		default:
			return false
		}
	} else {
		host := a
		if i := strings.IndexByte(a, ':'); i >= 0 {
			host, port, hasPort = a[:i], a[i+1:], true
		}
		name := strings.TrimSuffix(host, ".")
		if name == "" || len(name) > maxDNSName {
			return false
		}
		for _, label := range strings.Split(name, ".") {
			if !isDNSLabel(label) {
				return false
			}
		}
	}
	if hasPort {
		if len(port) > 5 {
			return false
		}
		n := 0
		for i := 0; i < len(port); i++ {
			if !isDigit(port[i]) {
				return false
			}
			n = n*10 + int(port[i]-'0')
		}
		if n > 65535 {
			return false
		}
	}
	return true
}

// isDNSLabel is an RFC 1123 label: 1–63 letters, digits and hyphens, not
// starting or ending with a hyphen.
func isDNSLabel(l string) bool {
	if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		if c := l[i]; !isAlpha(c) && !isDigit(c) && c != '-' {
			return false
		}
	}
	return true
}

// UTF16Len returns the number of UTF-16 code units of s, which is what
// JavaScript's String.length would say for the same text: one per code point
// below U+10000, two above. Invalid UTF-8 is counted the way Go's rune
// decoding reads it: each byte that does not start a valid sequence is one
// U+FFFD, one unit.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// LinkVerdict is how CheckLink judged a value. The split between the two
// refusals matters because the gate reports them with different detail codes
// (…/link-not-https and …/legal-context-malformed).
type LinkVerdict int

const (
	// LinkOK: at most MaxLinkUnits units and an https link.
	LinkOK LinkVerdict = iota
	// LinkOtherScheme: at most MaxLinkUnits units and an absolute URL whose
	// scheme is not https (http:, ftp:, urn: …).
	LinkOtherScheme
	// LinkMalformed: anything else (empty, unparseable, too long, relative,
	// or an https URL the link rule refuses).
	LinkMalformed
)

// String names the verdict for diagnostics.
func (v LinkVerdict) String() string {
	switch v {
	case LinkOK:
		return "ok"
	case LinkOtherScheme:
		return "other-scheme"
	case LinkMalformed:
		return "malformed"
	}
	return "LinkVerdict(?)"
}

// CheckLink applies the 2048-unit bound and then the other-scheme split (docs/protocol.md, "Links"). A value of
// another scheme is recognised with WHATWG's parser, as upstream's
// URL.canParse does, after its trimming of leading and trailing C0 controls
// and spaces, so " http://x/ " is another scheme while "http://" (no host) is
// malformed.
func CheckLink(s string) LinkVerdict {
	if lastLinkOK(s) {
		return LinkOK
	}
	if UTF16Len(s) > MaxLinkUnits {
		return LinkMalformed
	}
	if IsHTTPSLink(s) {
		rememberLinkOK(s)
		return LinkOK
	}
	if u, ok := parseURL(s); ok && u.scheme != "https" {
		return LinkOtherScheme
	}
	return LinkMalformed
}
