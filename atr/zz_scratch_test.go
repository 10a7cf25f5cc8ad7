package atr

import "testing"

func TestScratch(t *testing.T) {
	for _, s := range []string{"https://0x7f.1/", "https://999.1.1.1/", "https://1.2.3/", "https://xn--mnchen-3ya.de/", "https://xn--a.example/", "https://example.123/",
		"https://[::1]/", "https://[1.2.3.4]/", "https://a.example:/", "https://a.example:65536/", "https://A.EXAMPLE/a/../b/./c?x#y", "http://a b/", " http://a/ ", "urn:x", "http://", "file://a:80/", "https://[::ffff:1.2.3.4]:0443/%zz{}", "https://a.example//x", "https://4294967295", "https://4294967296"} {
		u, ok := parseURL(s)
		t.Logf("%q https=%v check=%v parse=%v %+v", s, IsHTTPSLink(s), CheckLink(s), ok, u)
		if r, ok := requestURL(s); ok {
			t.Logf("   req %s host=%s uri=%s", r, r.Host, r.RequestURI())
		}
	}
	d, ok := punycodeDecode("mnchen-3ya")
	t.Log(string(d), ok)
}
