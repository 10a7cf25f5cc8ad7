package pay

import (
	"net/url"
	"testing"
)

// TestSameOriginIsOrigin holds sameOrigin, which writes nothing, to the
// comparison of origin's strings it replaces.
func TestSameOriginIsOrigin(t *testing.T) {
	raw := []string{
		"https://api.seller.example/v1", "HTTPS://API.Seller.Example:443/x", "https://api.seller.example:8443/",
		"http://api.seller.example/", "http://api.seller.example:80/", "http://api.seller.example:443/",
		"https://api.seller.example.", "https://[::1]:443/", "https://[::1]/", "https://127.0.0.1/",
		"https://xn--bcher-kva.example/", "https://BÜCHER.example/", "https://bücher.example/",
		"https://ſeller.example/", "https://seller.example/", "https://K.example/", "https://k.example/",
		"ftp://seller.example/", "FTP://seller.example/", "https://a.example:/", "https://a.example/",
	}
	var urls []*url.URL
	for _, r := range raw {
		u, err := url.Parse(r)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		urls = append(urls, u)
	}
	for _, a := range urls {
		for _, b := range urls {
			if got, want := sameOrigin(a, b), origin(a) == origin(b); got != want {
				t.Errorf("sameOrigin(%s, %s) = %v, origin says %v (%s, %s)", a, b, got, want, origin(a), origin(b))
			}
		}
	}
	if !sameOrigin(nil, nil) || sameOrigin(urls[0], nil) || sameOrigin(nil, urls[0]) {
		t.Error("sameOrigin with nil")
	}
}
