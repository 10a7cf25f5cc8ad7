// Package loopback serves HTTPS on 127.0.0.1 under any host names, with a
// certificate made for those names and a client that trusts only it. Tests
// and the offline demo use it so that links such as
// https://atr.seller.example/… are fetched over real TLS, verified, without
// leaving the machine.
package loopback

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"time"
)

// Server is an HTTPS server on loopback.
type Server struct {
	*httptest.Server
	pool *x509.CertPool
}

// DefaultNames are the host names of the shared vectors' sellers.
var DefaultNames = []string{"atr.seller.example", "api.seller.example", "pay.seller.example", "seller.example", "localhost"}

// Start serves handler over TLS for names (DefaultNames when none).
func Start(handler http.Handler, names ...string) (*Server, error) {
	if len(names) == 0 {
		names = DefaultNames
	}
	cert, pool, err := selfSigned(names)
	if err != nil {
		return nil, err
	}
	hs := httptest.NewUnstartedServer(handler)
	hs.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	hs.StartTLS()
	return &Server{Server: hs, pool: pool}, nil
}

// StartOn serves handler over TLS on addr (host:port), for a seller that
// must be reachable at a known address (termsgate seller).
func StartOn(addr string, handler http.Handler, names ...string) (*Server, error) {
	if len(names) == 0 {
		names = DefaultNames
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	cert, pool, err := selfSigned(names)
	if err != nil {
		l.Close()
		return nil, err
	}
	// A client that does not trust the certificate is the client's
	// problem, not a line on the seller's terminal.
	hs := &httptest.Server{Listener: l, Config: &http.Server{Handler: handler, ErrorLog: log.New(io.Discard, "", 0)}}
	hs.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	hs.StartTLS()
	return &Server{Server: hs, pool: pool}, nil
}

// CertificatePEM is the server's certificate, PEM-encoded: what a client
// given it as its only authority (--ca-file) trusts.
func (s *Server) CertificatePEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.TLS.Certificates[0].Certificate[0]})
}

// Client returns a client that trusts only this server's certificate and
// connects every host name to it. Like the gate's own clients it follows no
// redirect and asks for no compression.
func (s *Server) Client() *http.Client {
	return &http.Client{
		Transport: s.Transport(),
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// Transport is the client's transport, for callers that wrap it.
func (s *Server) Transport() *http.Transport {
	addr := s.Listener.Addr().String()
	var d net.Dialer
	return &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		TLSClientConfig:     &tls.Config{RootCAs: s.pool, MinVersion: tls.VersionTLS12},
		DisableCompression:  true,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     30 * time.Second,
	}
}

// URL returns https://<host><path> for one of the server's names.
func (s *Server) URL(host, path string) string { return "https://" + host + path }

func selfSigned(names []string) (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	// A name that is an IP address (a seller listening on one) is named as
	// an IP address, which is how TLS clients verify one.
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	var dns []string
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			ips = append(ips, ip)
		} else {
			dns = append(dns, n)
		}
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: names[0]},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              dns,
		IPAddresses:           ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("loopback: certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool, nil
}
