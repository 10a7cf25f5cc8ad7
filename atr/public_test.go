package atr

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

func TestIsPublicAddrPinned(t *testing.T) {
	// the reference gate's pinned examples (docs/protocol.md, "Public addresses").
	refused := []string{"::", "::1", "::ffff:127.0.0.1", "::ffff:a9fe:a9fe", "64:ff9b::7f00:1", "64:ff9b:1::1",
		"100::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "fc00::1", "fd12:3456:789a::1", "fe80::1", "febf::1",
		"fec0::1", "ff02::1", "169.254.169.254", "198.19.255.255"}
	allowed := []string{"1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "192.167.255.255",
		"192.169.0.0", "2606:4700:4700::1111", "2001:200::1", "::ffff:1.1.1.1", "64:ff9b::101:101"}
	for _, s := range refused {
		if IsPublicAddr(netip.MustParseAddr(s)) {
			t.Errorf("%s is public, want refused", s)
		}
	}
	for _, s := range allowed {
		if !IsPublicAddr(netip.MustParseAddr(s)) {
			t.Errorf("%s is not public, want allowed", s)
		}
	}
}

// TestIsPublicAddrBoundaries walks the edges of every range of docs/protocol.md, "Public addresses".
func TestIsPublicAddrBoundaries(t *testing.T) {
	cases := map[string]bool{ // address → public
		"0.0.0.0": false, "0.255.255.255": false, "1.0.0.0": true,
		"9.255.255.255": true, "10.0.0.0": false, "10.255.255.255": false, "11.0.0.0": true,
		"100.63.255.255": true, "100.64.0.0": false, "100.127.255.255": false, "100.128.0.0": true,
		"126.255.255.255": true, "127.0.0.0": false, "127.255.255.255": false, "128.0.0.0": true,
		"169.253.255.255": true, "169.254.0.0": false, "169.254.255.255": false, "169.255.0.0": true,
		"172.15.255.255": true, "172.16.0.0": false, "172.31.255.255": false, "172.32.0.0": true,
		"191.255.255.255": true, "192.0.0.0": false, "192.0.0.255": false, "192.0.1.0": true,
		"192.0.1.255": true, "192.0.2.0": false, "192.0.2.255": false, "192.0.3.0": true,
		"192.88.98.255": true, "192.88.99.0": false, "192.88.99.255": false, "192.88.100.0": true,
		"192.167.255.255": true, "192.168.0.0": false, "192.168.255.255": false, "192.169.0.0": true,
		"198.17.255.255": true, "198.18.0.0": false, "198.19.255.255": false, "198.20.0.0": true,
		"198.51.99.255": true, "198.51.100.0": false, "198.51.100.255": false, "198.51.101.0": true,
		"203.0.112.255": true, "203.0.113.0": false, "203.0.113.255": false, "203.0.114.0": true,
		"223.255.255.255": true, "224.0.0.0": false, "239.255.255.255": false, "240.0.0.0": false,
		"255.255.255.255": false,

		"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff": false, "2000::": true, "2000:ffff::1": true,
		"2001::": false, "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff": false, "2001:200::": true,
		"2001:db7:ffff:ffff:ffff:ffff:ffff:ffff": true, "2001:db8::": false,
		"2001:db8:ffff:ffff:ffff:ffff:ffff:ffff": false, "2001:db9::": true,
		"2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff": true, "2002::": false,
		"2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff": false, "2003::": true,
		"3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff": true, "3fff::": false,
		"3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff": false, "3fff:1000::": true,
		"3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff": true, "4000::": false,

		"::ffff:10.0.0.1": false, "::ffff:8.8.8.8": true, "::ffff:0.0.0.0": false,
		"64:ff9b::10.0.0.1": false, "64:ff9b::808:808": true, "64:ff9b::": false,
		"64:ff9b::1:0:0:808:808": false, // outside the /96: judged as IPv6, outside 2000::/3
		"::8.8.8.8":              false, // IPv4-compatible (deprecated), not mapped
	}
	for s, want := range cases {
		if got := IsPublicAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("IsPublicAddr(%s) = %v, want %v", s, got, want)
		}
	}
	if IsPublicAddr(netip.Addr{}) {
		t.Error("the zero Addr is public")
	}
	for _, s := range []string{"fe80::1%eth0", "2606:4700:4700::1111%eth0"} {
		if IsPublicAddr(netip.MustParseAddr(s)) {
			t.Errorf("zoned %s is public", s)
		}
	}
}

// stubResolver answers from a table and counts its calls.
type stubResolver struct {
	mu    sync.Mutex
	addrs []netip.Addr
	err   error
	calls []string
}

func (r *stubResolver) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, network+" "+host)
	return r.addrs, r.err
}

var errStopDial = errors.New("test: dial stopped before connecting")

// recordingDialer refuses every connection and records where it would have
// gone, so no test connects anywhere.
func recordingDialer(dialed *[]string, mu *sync.Mutex) net.Dialer {
	return net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
		mu.Lock()
		*dialed = append(*dialed, address)
		mu.Unlock()
		return errStopDial
	}}
}

func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

func TestPublicDialerResolved(t *testing.T) {
	for _, c := range []struct {
		name     string
		network  string
		answer   []netip.Addr
		err      error
		refused  bool
		dialed   []string
		asked    string
		checkErr func(error) bool
	}{
		{name: "public and private mixed", network: "tcp", answer: addrs("1.1.1.1", "10.0.0.1"), refused: true, asked: "ip seller.example"},
		{name: "private first", network: "tcp", answer: addrs("::1", "1.1.1.1"), refused: true, asked: "ip seller.example"},
		{name: "mapped private", network: "tcp", answer: addrs("::ffff:169.254.169.254"), refused: true, asked: "ip seller.example"},
		{name: "no addresses", network: "tcp", answer: nil, refused: true, asked: "ip seller.example"},
		{name: "all public", network: "tcp", answer: addrs("1.1.1.1", "2606:4700:4700::1111"),
			dialed: []string{"1.1.1.1:443", "[2606:4700:4700::1111]:443"}, asked: "ip seller.example"},
		{name: "mapped public is dialed as IPv4", network: "tcp", answer: addrs("::ffff:1.1.1.1"),
			dialed: []string{"1.1.1.1:443"}, asked: "ip seller.example"},
		{name: "tcp4 asks for IPv4", network: "tcp4", answer: addrs("1.1.1.1"), dialed: []string{"1.1.1.1:443"}, asked: "ip4 seller.example"},
		{name: "resolver error passed through", network: "tcp", err: errStopDial, asked: "ip seller.example",
			checkErr: func(err error) bool { return errors.Is(err, errStopDial) && !errors.Is(err, ErrNotPublic) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &stubResolver{addrs: c.answer, err: c.err}
			var mu sync.Mutex
			var dialed []string
			d := &PublicDialer{Resolver: r, Dialer: recordingDialer(&dialed, &mu)}
			conn, err := d.DialContext(context.Background(), c.network, "seller.example:443")
			if conn != nil {
				conn.Close()
				t.Fatal("connected")
			}
			if len(r.calls) != 1 || r.calls[0] != c.asked {
				t.Fatalf("resolver calls %q, want one %q", r.calls, c.asked)
			}
			switch {
			case c.refused:
				if !errors.Is(err, ErrNotPublic) || !strings.Contains(err.Error(), "not a public address") {
					t.Fatalf("err %v, want a not-public refusal", err)
				}
			case c.checkErr != nil:
				if !c.checkErr(err) {
					t.Fatalf("err %v", err)
				}
			default:
				if !errors.Is(err, errStopDial) {
					t.Fatalf("err %v, want the dial to be attempted", err)
				}
			}
			if strings.Join(dialed, ",") != strings.Join(c.dialed, ",") {
				t.Fatalf("dialed %q, want %q", dialed, c.dialed)
			}
		})
	}
}

func TestPublicDialerLiterals(t *testing.T) {
	for addr, wantDial := range map[string]string{
		"127.0.0.1:443":           "",
		"[::1]:443":               "",
		"[::ffff:127.0.0.1]:443":  "",
		"[fe80::1%eth0]:443":      "",
		"0x7f.1:443":              "", // how net/http passes https://0x7f.1/ (see TestNetHTTPPassesNumericHostAsIs)
		"2130706433:443":          "",
		"0177.0.0.1:443":          "",
		"example.123:443":         "", // ends in a number that is not one: never resolved
		"10.1.2.3:443":            "",
		"1.1.1.1:443":             "1.1.1.1:443",
		"[2606:4700::1111]:8443":  "[2606:4700::1111]:8443",
		"0x1010101:443":           "1.1.1.1:443",
		"[::ffff:1.1.1.1]:443":    "1.1.1.1:443",
		"[64:ff9b::101:101]:8443": "[64:ff9b::101:101]:8443",
	} {
		r := &stubResolver{}
		var mu sync.Mutex
		var dialed []string
		d := &PublicDialer{Resolver: r, Dialer: recordingDialer(&dialed, &mu)}
		_, err := d.DialContext(context.Background(), "tcp", addr)
		if len(r.calls) != 0 {
			t.Errorf("%s: resolver asked %q for a literal", addr, r.calls)
		}
		if wantDial == "" {
			if !errors.Is(err, ErrNotPublic) || len(dialed) != 0 {
				t.Errorf("%s: err %v, dialed %q; want refused before connecting", addr, err, dialed)
			}
			continue
		}
		if !errors.Is(err, errStopDial) || len(dialed) != 1 || dialed[0] != wantDial {
			t.Errorf("%s: err %v, dialed %q; want %s", addr, err, dialed, wantDial)
		}
	}
	if _, err := (&PublicDialer{}).DialContext(context.Background(), "tcp", "no-port"); err == nil {
		t.Error("an address without a port was dialed")
	}
}

// TestNetHTTPPassesNumericHostAsIs pins what net/http hands a dialer for a
// WHATWG-numeric host: the name as written, which is why PublicDialer reads
// such names as IPv4 itself instead of trusting a resolver to.
func TestNetHTTPPassesNumericHostAsIs(t *testing.T) {
	var got string
	tr := &http.Transport{DialContext: func(_ context.Context, _, addr string) (net.Conn, error) {
		got = addr
		return nil, errStopDial
	}}
	req, err := http.NewRequest(http.MethodGet, "https://0x7f.1:9/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&http.Client{Transport: tr}).Do(req); !errors.Is(err, errStopDial) {
		t.Fatalf("err %v", err)
	}
	if got != "0x7f.1:9" {
		t.Fatalf("dialer got %q", got)
	}
}

// loopbackTLS is an httptest TLS server counting the connections it accepts.
func loopbackTLS(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var conns atomic.Int64
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("atr")) }))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s, &conns
}

func TestNewClientRefusesLoopback(t *testing.T) {
	s, conns := loopbackTLS(t)
	port := strconv.Itoa(s.Listener.Addr().(*net.TCPAddr).Port)
	c := NewClient(false)
	for _, u := range []string{s.URL + "/", "https://0x7f.1:" + port + "/", "https://localhost:" + port + "/"} {
		resp, err := c.Get(u)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("%s fetched", u)
		}
		if !errors.Is(err, ErrNotPublic) || !strings.Contains(err.Error(), "not a public address") {
			t.Errorf("%s: %v, want a not-public refusal", u, err)
		}
	}
	if conns.Load() != 0 {
		t.Fatalf("%d connections made", conns.Load())
	}
}

// TestNewClientAllowPrivate fetches from loopback with NewClient(true)'s own
// transport, trusting the test server's certificate.
func TestNewClientAllowPrivate(t *testing.T) {
	s, conns := loopbackTLS(t)
	c := NewClient(true)
	tr := c.Transport.(*http.Transport).Clone()
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	tr.TLSClientConfig.RootCAs = pool
	c.Transport = tr
	b, err := (&Fetcher{Client: c, Timeout: testTimeout}).Fetch(context.Background(), s.URL+"/atr")
	if err != nil || string(b) != "atr" {
		t.Fatalf("%q, %v", b, err)
	}
	if conns.Load() != 1 {
		t.Fatalf("%d connections", conns.Load())
	}
}

func TestNewClientSettings(t *testing.T) {
	for _, allow := range []bool{false, true} {
		c := NewClient(allow)
		if c.Jar != nil || c.CheckRedirect == nil || c.CheckRedirect(nil, nil) != http.ErrUseLastResponse {
			t.Errorf("allowPrivate %v: jar %v or redirects followed", allow, c.Jar)
		}
		tr, ok := c.Transport.(*http.Transport)
		if !ok {
			t.Fatalf("transport %T", c.Transport)
		}
		if !tr.DisableCompression || tr.Proxy != nil || tr.TLSClientConfig == nil ||
			tr.TLSClientConfig.MinVersion < 0x0303 || tr.TLSClientConfig.InsecureSkipVerify {
			t.Errorf("allowPrivate %v: transport %+v", allow, tr)
		}
	}
}
