package atr

import (
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"
)

// sameTarget's shortcut (the fields RequestURI reads, compared one by one)
// must agree with comparing the RequestURIs themselves, on pairs that share
// every field and on pairs that differ in any one, including pairs whose
// fields differ but whose RequestURIs do not.
func TestSameTargetAgreesWithRequestURI(t *testing.T) {
	links := []string{
		"https://a.example/atr", "https://a.example/atr?", "https://a.example/atr?x=1", "https://a.example/a%2Fb",
		"https://a.example/a/b", "https://a.example/", "https://a.example", "https://A.example/atr", "https://a.example:8443/atr",
		"https://a.example/%7e", "https://a.example/~", "http://a.example/atr",
	}
	var urls []*url.URL
	for _, l := range links {
		u, err := url.Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
	}
	opaque := *urls[0]
	opaque.Opaque, opaque.Path, opaque.RawPath = "/atr", "", ""
	forced := *urls[0]
	forced.ForceQuery = true
	raw := *urls[0]
	raw.RawPath = "/atr" // the same path, spelt out: the same RequestURI, other fields
	urls = append(urls, &opaque, &forced, &raw)
	for _, a := range urls {
		for _, b := range urls {
			want := strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host) && a.RequestURI() == b.RequestURI()
			if got := sameTarget(a, b); got != want {
				t.Errorf("sameTarget(%s, %s) = %v, want %v", a, b, got, want)
			}
		}
	}
}

// doer hands out its last copy of a client only while the client is the
// same one with the same Transport and Timeout; every copy follows no
// redirect and sends no cookie, whatever the client says.
func TestDoerCopyFollowsTheClient(t *testing.T) {
	jar, _ := cookiejar.New(nil)
	follow := func(*http.Request, []*http.Request) error { return nil }
	c := &http.Client{Transport: &http.Transport{}, Jar: jar, CheckRedirect: follow}
	f := &Fetcher{Client: c}
	check := func(d Doer) *http.Client {
		t.Helper()
		cc, ok := d.(*http.Client)
		if !ok || cc == c {
			t.Fatalf("doer gave %T %p, not a copy of %p", d, d, c)
		}
		if cc.Jar != nil || cc.CheckRedirect == nil || cc.CheckRedirect(nil, nil) != http.ErrUseLastResponse {
			t.Fatal("the copy keeps a jar or follows redirects")
		}
		if fmt.Sprintf("%T %p", cc.Transport, cc.Transport) != fmt.Sprintf("%T %p", c.Transport, c.Transport) || cc.Timeout != c.Timeout {
			t.Fatalf("the copy sends through %v (%v), the client through %v (%v)", cc.Transport, cc.Timeout, c.Transport, c.Timeout)
		}
		return cc
	}
	first := check(f.doer())
	if again := check(f.doer()); again != first {
		t.Error("the same client was copied again")
	}
	c.Transport = &http.Transport{}
	second := check(f.doer())
	if second == first {
		t.Error("a client whose Transport changed got the old copy")
	}
	c.Timeout = time.Second
	if third := check(f.doer()); third == second {
		t.Error("a client whose Timeout changed got the old copy")
	}
	c.Transport = roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, nil })
	a, b := check(f.doer()), check(f.doer())
	if a == b {
		t.Error("a copy through a Transport other than *http.Transport was kept")
	}
	c.Transport = first.Transport
	other := &http.Client{Transport: c.Transport, Timeout: c.Timeout}
	theirs := (&Fetcher{Client: other}).doer()
	if mine := check(f.doer()); mine == theirs {
		t.Error("another client with the same Transport and Timeout got this one's copy")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
