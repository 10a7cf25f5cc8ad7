package atr

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/termsgate/termsgate/internal/cost"
)

// label returns a valid DNS label of n characters.
func label(n int) string { return strings.Repeat("a", n) }

// host253 is a 253-character DNS name: 63+1+63+1+63+1+61.
var host253 = label(63) + "." + label(63) + "." + label(63) + "." + label(61)

type linkCase struct {
	name  string
	link  string
	https bool        // IsHTTPSLink
	want  LinkVerdict // CheckLink
}

// Verdicts were checked against Node's WHATWG URL parser (v20) with the
// upstream rule, except where a comment says the standard and that parser
// differ.
var linkCases = []linkCase{
	{"plain", "https://atr.seller.example/0xab", true, LinkOK},
	{"upper-case scheme", "HTTPS://ATR.SELLER.EXAMPLE/", true, LinkOK},
	{"mixed-case scheme", "hTtPs://a.example", true, LinkOK},
	{"no path", "https://a.example", true, LinkOK},
	{"query only", "https://a.example?x=1", true, LinkOK},
	{"fragment only", "https://a.example#top", true, LinkOK},
	{"at sign in path", "https://a.example/@x", true, LinkOK},
	{"percent junk in path", "https://a.example/%zz{}^|", true, LinkOK},
	{"non-ASCII path", "https://a.example/é😀", true, LinkOK},

	// Numeric hosts: rule 4 lets them through as labels; WHATWG then reads
	// them as IPv4 and may fail.
	{"dotted IPv4", "https://192.0.2.1/", true, LinkOK},
	{"hex and short IPv4", "https://0x7f.1/", true, LinkOK},
	{"three-part IPv4", "https://1.2.3/", true, LinkOK},
	{"one-part IPv4 max", "https://4294967295/", true, LinkOK},
	{"one-part IPv4 over", "https://4294967296/", false, LinkMalformed},
	{"octet over 255", "https://999.1.1.1/", false, LinkMalformed},
	{"last octet over 255", "https://1.2.3.256/", false, LinkMalformed},
	{"three-part last max", "https://1.2.65535/", true, LinkOK},
	{"three-part last over", "https://1.2.65536/", false, LinkMalformed},
	{"five parts", "https://1.2.3.4.5/", false, LinkMalformed},
	{"bad octal", "https://08/", false, LinkMalformed},
	{"octal", "https://010.0.0.1/", true, LinkOK},
	{"bare 0x", "https://0x/", true, LinkOK},
	{"name ending in a number", "https://example.123/", false, LinkMalformed},
	{"name ending in 0x", "https://a.0x/", false, LinkMalformed},
	{"name starting with a number", "https://123.example/", true, LinkOK},
	{"not hex, so a name", "https://a.0x7g/", true, LinkOK},
	{"IPv4 with trailing dot", "https://1.2.3.4./", true, LinkOK},

	// Bracketed literals.
	{"IPv6 loopback", "https://[::1]/", true, LinkOK},
	{"IPv6 with port", "https://[2001:db8::1]:8443/0xab", true, LinkOK},
	{"IPv6 upper-case", "https://[2001:DB8::A]/", true, LinkOK},
	{"IPv6 with IPv4 tail", "https://[::ffff:1.2.3.4]/", true, LinkOK},
	{"IPv6 unspecified", "https://[::]/", true, LinkOK},
	{"IPv6 one group compressed", "https://[1::2:3:4:5:6:7]/", true, LinkOK},
	{"IPv6 nine groups", "https://[::1:2:3:4:5:6:7:8]/", false, LinkMalformed},
	{"IPv6 bad tail octet", "https://[::1.2.3.04]/", false, LinkMalformed},
	{"IPv4 in brackets", "https://[1.2.3.4]/", false, LinkMalformed},
	{"IPv6 triple colon", "https://[:::1]/", false, LinkMalformed},
	{"IPv6 five hex digits", "https://[12345::1]/", false, LinkMalformed},
	{"IPv6 non-hex", "https://[::g]/", false, LinkMalformed},
	{"IPv6 zone", "https://[fe80::1%25eth0]/", false, LinkMalformed},
	{"IPv6 raw zone", "https://[fe80::1%eth0]/", false, LinkMalformed},
	{"empty brackets", "https://[]/", false, LinkMalformed},
	{"unclosed bracket", "https://[::1/", false, LinkMalformed},
	{"junk after bracket", "https://[::1]x/", false, LinkMalformed},

	// Ports.
	{"port 65535", "https://a.example:65535/", true, LinkOK},
	{"port 65536", "https://a.example:65536/", false, LinkMalformed},
	{"port 99999", "https://a.example:99999/", false, LinkMalformed},
	{"six-digit port", "https://a.example:000443/", false, LinkMalformed},
	{"five-digit zero-padded port", "https://a.example:00443/", true, LinkOK},
	{"empty port", "https://a.example:/", true, LinkOK},
	{"port 0", "https://a.example:0/", true, LinkOK},
	{"non-digit port", "https://a.example:8o/", false, LinkMalformed},
	{"two colons", "https://a.example:1:2/", false, LinkMalformed},

	// Names.
	{"253-character host", "https://" + host253 + "/", true, LinkOK},
	{"253 characters and a trailing dot", "https://" + host253 + "./", true, LinkOK},
	{"254-character host", "https://" + host253 + "a/", false, LinkMalformed},
	{"trailing dot", "https://a.example./", true, LinkOK},
	{"two trailing dots", "https://a.example../", false, LinkMalformed},
	{"empty label", "https://a..example/", false, LinkMalformed},
	{"leading dot", "https://.a.example/", false, LinkMalformed},
	{"label starting with hyphen", "https://-a.example/", false, LinkMalformed},
	{"label ending with hyphen", "https://a-.example/", false, LinkMalformed},
	{"double hyphen inside", "https://a--b.example/", true, LinkOK},
	{"63-character label", "https://" + label(63) + ".example/", true, LinkOK},
	{"64-character label", "https://" + label(64) + ".example/", false, LinkMalformed},
	{"underscore", "https://a_b.example/", false, LinkMalformed},
	{"non-ASCII host", "https://müller.example/", false, LinkMalformed},
	{"percent in host", "https://%41.example/", false, LinkMalformed},
	{"valid punycode", "https://xn--mnchen-3ya.de/", true, LinkOK},
	{"upper-case punycode", "https://XN--MNCHEN-3YA.DE/", true, LinkOK},
	{"punycode snowman", "https://xn--n3h.example/", true, LinkOK},
	{"punycode decoding to a control", "https://xn--a.example/", false, LinkMalformed},
	{"punycode decoding to a compatibility character", "https://xn--n3hxn--mnchen-3ya/", false, LinkMalformed},
	// The WHATWG standard applies the bidi rule (Node 20's parser does not):
	// a left-to-right label holding Hebrew is refused.
	{"punycode breaking the bidi rule", "https://xn--a-nic.com/", false, LinkMalformed},
	{"localhost", "https://localhost/", true, LinkOK},

	// Authority shape and userinfo.
	{"userinfo", "https://user@a.example/", false, LinkMalformed},
	{"userinfo with password", "https://u:p@a.example/", false, LinkMalformed},
	{"empty userinfo", "https://@a.example/", false, LinkMalformed},
	{"empty authority", "https:///x", false, LinkMalformed},
	{"no authority", "https:a.example/x", false, LinkMalformed},
	{"one slash", "https:/a.example/", false, LinkMalformed},
	{"scheme only", "https://", false, LinkMalformed},
	{"port only", "https://:443/", false, LinkMalformed},

	// Rule 2: every forbidden class, and its neighbours that are allowed.
	{"NUL", "https://a.example/\x00", false, LinkMalformed},
	{"C0 control", "https://a.example/\x1f", false, LinkMalformed},
	{"tab in host", "https://a\t.example/", false, LinkMalformed},
	{"newline", "https://a.example/\n", false, LinkMalformed},
	{"space", "https://a.example/a b", false, LinkMalformed},
	{"trailing space", "https://a.example/ ", false, LinkMalformed},
	{"leading space", " https://a.example/", false, LinkMalformed},
	{"DEL", "https://a.example/\x7f", false, LinkMalformed},
	{"C1 control U+0085", "https://a.example/\u0085", false, LinkMalformed},
	{"U+009F", "https://a.example/\u009f", false, LinkMalformed},
	{"no-break space", "https://a.example/\u00a0", false, LinkMalformed},
	{"U+00A1 allowed", "https://a.example/\u00a1", true, LinkOK},
	{"ogham space", "https://a.example/\u1680", false, LinkMalformed},
	{"en quad", "https://a.example/\u2000", false, LinkMalformed},
	{"hair space", "https://a.example/\u200a", false, LinkMalformed},
	{"zero-width space allowed", "https://a.example/\u200b", true, LinkOK},
	{"line separator", "https://a.example/\u2028", false, LinkMalformed},
	{"paragraph separator", "https://a.example/\u2029", false, LinkMalformed},
	{"narrow no-break space", "https://a.example/\u202f", false, LinkMalformed},
	{"medium math space", "https://a.example/\u205f", false, LinkMalformed},
	{"ideographic space", "https://a.example/\u3000", false, LinkMalformed},
	{"backslash", "https://a.example\\0xab", false, LinkMalformed},
	{"backslash in path", "https://a.example/a\\b", false, LinkMalformed},

	// Rule 1: Go strings hold bytes; invalid UTF-8 stands for lone surrogates.
	{"invalid byte", "https://a.example/\xff", false, LinkMalformed},
	{"encoded surrogate", "https://a.example/\xed\xa0\x80", false, LinkMalformed},
	{"truncated sequence", "https://a.example/\xe2\x82", false, LinkMalformed},
	{"invalid http", "http://a.example/\xff", false, LinkOtherScheme},

	// Other schemes (docs/protocol.md, "Links").
	{"http", "http://a.example/", false, LinkOtherScheme},
	{"ftp", "ftp://a.example/", false, LinkOtherScheme},
	{"urn", "urn:x", false, LinkOtherScheme},
	{"mailto", "mailto:a@b.example", false, LinkOtherScheme},
	{"data", "data:,x", false, LinkOtherScheme},
	{"file", "file:///etc/passwd", false, LinkOtherScheme},
	{"http with spaces around", " http://a.example/ ", false, LinkOtherScheme},
	{"http without slashes", "http:a.example", false, LinkOtherScheme},
	{"http with no host", "http://", false, LinkMalformed},
	{"http with a bad host", "http://a b/", false, LinkMalformed},
	{"http with a bad port", "http://a.example:99999/", false, LinkMalformed},
	{"http with userinfo and no host", "http://u@/", false, LinkMalformed},
	{"opaque host with a space", "foo://a b/", false, LinkMalformed},
	{"file with a port", "file://a:80/", false, LinkMalformed},
	{"no scheme", "a.example/x", false, LinkMalformed},
	{"scheme starting with a digit", "1http://a.example/", false, LinkMalformed},
	{"empty", "", false, LinkMalformed},
	{"https with spaces around", " https://a.example/ ", false, LinkMalformed},
}

func TestLinkTable(t *testing.T) {
	for _, c := range linkCases {
		t.Run(c.name, func(t *testing.T) {
			if got := IsHTTPSLink(c.link); got != c.https {
				t.Errorf("IsHTTPSLink(%q) = %v, want %v", c.link, got, c.https)
			}
			if got := CheckLink(c.link); got != c.want {
				t.Errorf("CheckLink(%q) = %v, want %v", c.link, got, c.want)
			}
		})
	}
}

func TestUTF16Len(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"", 0}, {"abc", 3}, {"é", 1}, {"€", 1}, {"\uffff", 1}, {"😀", 2}, {"a😀b", 4},
		{"\xff", 1}, {"\xe2\x82", 2}, {"\xed\xa0\x80", 3}, // each undecodable byte is one U+FFFD
	} {
		if got := UTF16Len(c.s); got != c.want {
			t.Errorf("UTF16Len(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

// TestLinkBound checks that the 2048 bound counts UTF-16 units, so astral
// characters count twice, as JavaScript's String.length does.
func TestLinkBound(t *testing.T) {
	const prefix = "http://a.example/a" // 18 units
	astral := strings.Repeat("😀", (MaxLinkUnits-len(prefix))/2)
	at := prefix + astral
	if UTF16Len(at) != MaxLinkUnits || utf8.RuneCountInString(at) >= MaxLinkUnits {
		t.Fatalf("setup: %d units, %d runes", UTF16Len(at), utf8.RuneCountInString(at))
	}
	if got := CheckLink(at); got != LinkOtherScheme {
		t.Errorf("http link of 2048 units = %v, want other-scheme", got)
	}
	if got := CheckLink(at + "a"); got != LinkMalformed {
		t.Errorf("http link of 2049 units = %v, want malformed", got)
	}
	https := "https://a.example/a" + strings.Repeat("😀", (MaxLinkUnits-19)/2) + "b"
	if UTF16Len(https) != MaxLinkUnits {
		t.Fatalf("setup: %d units", UTF16Len(https))
	}
	if got := CheckLink(https); got != LinkOK {
		t.Errorf("https link of 2048 units = %v, want ok", got)
	}
	if got := CheckLink(https + "c"); got != LinkMalformed || !IsHTTPSLink(https+"c") {
		t.Errorf("https link of 2049 units = %v (rule alone %v), want malformed (rule alone true)", got, IsHTTPSLink(https+"c"))
	}
}

// FuzzCheckLink checks that nothing panics and that an OK verdict always
// means the rule holds within the bound and the link has a request URL.
func FuzzCheckLink(f *testing.F) {
	for _, c := range linkCases {
		f.Add(c.link)
	}
	for _, s := range []string{
		"https://atr.seller.example/0xab", "https://atr.seller.example/a b", "https://atr.seller\t.example/",
		"https://atr.seller.example\\0xab", "HTTPS://atr.seller.example/0xab", "https://192.0.2.1/0xab",
		"https://user@atr.seller.example/0xab", "https:///0xab", "https:atr.seller.example/0xab",
		"https://[2001:db8::1]:8443/0xab", "http://atr.seller.example/0xab", "https://atr.seller.example/a\u00a0b",
		"https://atr.seller.example/a\u0085b", "https://u:p@atr.seller.example/", "", "https://",
		"atr.seller.example/0xab", "ftp://atr.seller.example/0xab",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cost.Bound(t, len(s), func() {
			v := CheckLink(s)
			if v != LinkOK && v != LinkOtherScheme && v != LinkMalformed {
				t.Fatalf("verdict %d", v)
			}
			if v == LinkOK {
				if !IsHTTPSLink(s) || UTF16Len(s) > MaxLinkUnits {
					t.Fatalf("OK for %q but rule %v, %d units", s, IsHTTPSLink(s), UTF16Len(s))
				}
				if _, ok := requestURL(s); !ok {
					t.Fatalf("OK for %q but no request URL", s)
				}
			}
			if v == LinkOtherScheme && IsHTTPSLink(s) {
				t.Fatalf("other-scheme for an https link %q", s)
			}
		})
	})
}

// TestRequestURLMemo: the last link's request URL is kept, and each caller
// gets its own copy of it; another link is parsed afresh.
func TestRequestURLMemo(t *testing.T) {
	a, b := "https://atr.seller.example/x/../terms?v=1", "https://0x7f.1:8443/%7Bt%7D"
	first, ok := requestURL(a)
	if !ok {
		t.Fatal(a)
	}
	want := first.String()
	first.Path, first.Host = "/changed", "elsewhere.example"
	again, ok := requestURL(a)
	if !ok || again == first || again.String() != want {
		t.Fatalf("the memo gave %v (%v), want a copy of %s", again, ok, want)
	}
	built, _ := buildRequestURL(a)
	if built.String() != want {
		t.Fatalf("built %s, memo %s", built, want)
	}
	other, ok := requestURL(b)
	if built, _ := buildRequestURL(b); !ok || other.String() != built.String() || other.String() == want {
		t.Fatalf("%s gave %v", b, other)
	}
	if _, ok := requestURL("http://atr.seller.example/"); ok {
		t.Fatal("an http link was made a request URL")
	}
}
