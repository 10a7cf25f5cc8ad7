package pay_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/pay"
)

// countingListener counts the connections a server accepted: each is one
// TCP and TLS handshake a payer paid for.
type countingListener struct {
	net.Listener
	accepts atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepts.Add(1)
	}
	return c, err
}

// countedSeller is an x402 seller of A on loopback TLS whose listener counts
// connections; h2 makes it offer HTTP/2 in its handshake.
func countedSeller(tb testing.TB, h2 bool) (*x402seller.Seller, *countingListener, *x509.CertPool) {
	tb.Helper()
	a, _ := vectorATRs(tb)
	s := x402seller.New(a, []byte(paidBody))
	hs := httptest.NewUnstartedServer(s)
	cl := &countingListener{Listener: hs.Listener}
	hs.Listener = cl
	hs.EnableHTTP2 = h2
	hs.Config.ErrorLog = log.New(io.Discard, "", 0) // handshakes cut short by Close
	hs.StartTLS()
	tb.Cleanup(hs.Close)
	s.ATRHost = hs.Listener.Addr().String()
	s.APIHost = s.ATRHost
	roots := x509.NewCertPool()
	roots.AddCert(hs.Certificate())
	return s, cl, roots
}

// shippedClient is a paying client on the shipped defaults: the transport
// a nil Base means (NewBaseTransport) and the ATR client the CLI and the MCP
// server use (atr.NewClient; private addresses allowed, the seller being on
// loopback), each trusting roots as --ca-file makes them.
func shippedClient(tb testing.TB, roots *x509.CertPool, budget *big.Int) (*http.Client, *countingSigner) {
	tb.Helper()
	base := pay.NewBaseTransport()
	base.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	fetch := atr.NewClient(true)
	ft := fetch.Transport.(*http.Transport).Clone()
	ft.TLSClientConfig.RootCAs = roots
	fetch.Transport = ft
	tb.Cleanup(base.CloseIdleConnections)
	tb.Cleanup(ft.CloseIdleConnections)
	s := anvil(tb)
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: network, MaxAmount: big.NewInt(10000), Budget: budget}}})
	if err != nil {
		tb.Fatal(err)
	}
	return pay.NewClient(&pay.Transport{
		Base:   base,
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: fetch}},
		Signer: s,
		Policy: policy,
	}), s
}

// payOnce pays one GET of url and reports its protocol version.
func payOnce(c *http.Client, url string) (proto int, err error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, &statusError{resp.StatusCode}
	}
	return resp.ProtoMajor, nil
}

type statusError struct{ code int }

func (e *statusError) Error() string { return http.StatusText(e.code) }

// payConcurrently has payers goroutines make each payments through c.
func payConcurrently(tb testing.TB, c *http.Client, url string, payers, each int) (protos map[int]int) {
	tb.Helper()
	var mu sync.Mutex
	protos = map[int]int{}
	var wg sync.WaitGroup
	for range payers {
		wg.Go(func() {
			for range each {
				p, err := payOnce(c, url)
				mu.Lock()
				protos[p]++
				mu.Unlock()
				if err != nil {
					tb.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return protos
}

// TestShippedPoolReusesConnections pins the shipped pool: 64 payers paying
// one seller 8 times each (1,536 requests: the 402, the ATR, the paid
// retry) open at most a few connections per payer, where net/http's default
// of 2 idle connections per host opens one for most requests.
func TestShippedPoolReusesConnections(t *testing.T) {
	const payers, each = 64, 8
	seller, conns, roots := countedSeller(t, false)
	client, s := shippedClient(t, roots, nil)
	protos := payConcurrently(t, client, seller.ResourceURL(), payers, each)
	accepts := conns.accepts.Load()
	t.Logf("%d payments, %d connections, protocols %v", payers*each, accepts, protos)
	if protos[1] != payers*each || s.calls.Load() != payers*each || seller.Paid.Load() != payers*each {
		t.Fatalf("protocols %v, %d signatures, %d paid", protos, s.calls.Load(), seller.Paid.Load())
	}
	// Each transport (the paying one and the ATR client) needs at most one
	// connection per payer; a dial that races a connection coming back
	// to the pool may add a few.
	if max := int64(3 * payers); accepts > max {
		t.Fatalf("%d connections for %d payments, want at most %d", accepts, payers*each, max)
	}

	t.Run("net/http's default pool", func(t *testing.T) {
		// The same run with 2 idle connections per host, to show that
		// the bound above is what the pool buys.
		seller, conns, roots := countedSeller(t, false)
		client, _ := shippedClient(t, roots, nil)
		tr := client.Transport.(*pay.Transport)
		base := tr.Base.(*http.Transport)
		base.MaxIdleConnsPerHost = http.DefaultMaxIdleConnsPerHost
		fetch := tr.Gate.Fetcher.Client.(*http.Client).Transport.(*http.Transport)
		fetch.MaxIdleConnsPerHost = http.DefaultMaxIdleConnsPerHost
		payConcurrently(t, client, seller.ResourceURL(), payers, 3)
		n := conns.accepts.Load()
		t.Logf("%d payments, %d connections", payers*3, n)
		// Compared per payment: with the terms cached a repeat payment is
		// two requests, so an absolute bound on the default pool moves
		// with the machine's speed; its rate against the shipped pool's
		// is what the pool buys.
		shipped, def := float64(accepts)/float64(payers*each), float64(n)/float64(payers*3)
		if def < 2*shipped {
			t.Fatalf("%.2f connections a payment with 2 idle per host against %.2f shipped: the test does not tell pools apart", def, shipped)
		}
	})
}

// TestShippedPoolHTTP2 pins HTTP/2 where the seller offers it: after one
// payment has opened the connections, 64 concurrent payers share them.
func TestShippedPoolHTTP2(t *testing.T) {
	const payers, each = 64, 4
	seller, conns, roots := countedSeller(t, true)
	client, _ := shippedClient(t, roots, nil)
	if p, err := payOnce(client, seller.ResourceURL()); err != nil || p != 2 {
		t.Fatalf("HTTP/%d, %v", p, err)
	}
	warm := conns.accepts.Load()
	protos := payConcurrently(t, client, seller.ResourceURL(), payers, each)
	accepts := conns.accepts.Load()
	t.Logf("%d payments, %d connections (%d to warm up), protocols %v", payers*each+1, accepts, warm, protos)
	if protos[2] != payers*each {
		t.Fatalf("protocols %v, want HTTP/2 only", protos)
	}
	if warm > 2 || accepts > warm {
		t.Fatalf("%d connections (%d before the concurrent payers), want at most one per transport", accepts, warm)
	}
}
