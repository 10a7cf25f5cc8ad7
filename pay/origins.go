package pay

import (
	"net/http"
	"net/url"

	"github.com/termsgate/termsgate/gate"
)

// originAllower is a Policy that restricts the origins paid (*Policy with
// PolicyConfig.Origins).
type originAllower interface{ AllowsOrigin(u *url.URL) bool }

// originRefused is the decline of a 402 from an origin a policy (the
// Transport's or the gate's) does not pay, nil when every one does. The
// 402's own URL is req's: each hop of a redirect chain comes through
// RoundTrip, so a redirect from a listed origin to another is refused here.
func (t *Transport) originRefused(req *http.Request) *gate.Decline {
	for _, p := range []gate.Policy{t.gate().Policy, t.Policy} {
		o, ok := p.(originAllower)
		if !ok || o.AllowsOrigin(req.URL) {
			continue
		}
		detail := DetailOriginNotAllowed + ": " + origin(req.URL)
		if from := firstURL(req); from != nil && origin(from) != origin(req.URL) {
			detail += " (redirected from " + origin(from) + ")"
		}
		return refuse(detail)
	}
	return nil
}

// firstURL is the URL the redirect chain that led to req started from.
func firstURL(req *http.Request) *url.URL {
	var u *url.URL
	for r := req.Response; r != nil && r.Request != nil; r = r.Request.Response {
		u = r.Request.URL
	}
	return u
}
