package pay

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// The connection pool of the transport a Transport with a nil Base sends
// through. net/http's defaults keep 2 idle connections per host, so 64
// payers paying one seller at once would each finish with a fresh TLS
// handshake; these keep one connection per payer for that many payers.
const (
	DefaultMaxIdleConnsPerHost = 64
	DefaultMaxIdleConns        = 256
)

// NewBaseTransport returns a new transport with the settings a Transport with
// a nil Base uses: http.DefaultTransport's (the proxy from the environment,
// its dial, TLS and idle timeouts, HTTP/2 where the seller offers it in its
// TLS handshake) with an idle pool of DefaultMaxIdleConnsPerHost per host
// and DefaultMaxIdleConns in all. Set its TLSClientConfig (a private
// authority, say) before its first request.
func NewBaseTransport() *http.Transport {
	var t *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	} else { // replaced by the program: its settings are not ours to copy
		t = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			IdleConnTimeout:       90 * time.Second,
			ExpectContinueTimeout: time.Second,
		}
	}
	t.ForceAttemptHTTP2 = true
	t.MaxIdleConns = DefaultMaxIdleConns
	t.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	return t
}

// defaultBase is shared by every Transport with a nil Base, so that they
// share one pool as they would share http.DefaultTransport's.
var defaultBase = sync.OnceValue(func() http.RoundTripper {
	if _, ok := http.DefaultTransport.(*http.Transport); !ok {
		// A program (or a test) that put its own RoundTripper there
		// meant every default request to go through it.
		return http.DefaultTransport
	}
	return NewBaseTransport()
})
