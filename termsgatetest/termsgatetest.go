// Package termsgatetest provides sellers to pay in tests, in the style of
// net/http/httptest: an x402 seller and an MPP seller that publish their
// terms (an ATR) and check every payment they are sent, on loopback TLS with
// a certificate made for them. Point a pay.Transport (or the gate) at one to
// test code that pays, without a network or a chain: the sellers verify
// signatures and hashes, and settle nothing.
//
// Switches make a seller misbehave the ways a buyer must survive: Lie serves
// other bytes at the link while the offer advertises the terms' hash, and
// SetDelay makes the link slow. Config.NoTerms serves a seller that
// publishes no terms (paid only unbound, by choice); Config.Agreement one
// whose payment needs the agreement exchange first.
package termsgatetest

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/agreementseller"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/mppseller"
	"github.com/termsgate/termsgate/internal/x402seller"
)

// DefaultATR is the terms the sellers publish unless Config.ATR names
// others.
var DefaultATR = []byte(`{"atrVersion":"1","seller":"termsgatetest","terms":"Reports are for the buyer's own use."}` + "\n")

// Protocol is how a seller asks to be paid.
type Protocol string

const (
	// X402 asks for 0.01 USDC on Base Sepolia (eip155:84532) as an x402 v2
	// exact EIP-3009 payment whose nonce is the terms' hash.
	X402 Protocol = "x402"
	// MPP asks for 1 pathUSD on Tempo Moderato (eip155:42431) as an MPP
	// charge: a signed Tempo transaction whose memo binds the challenge.
	MPP Protocol = "mpp"
)

// Config configures Start.
type Config struct {
	Protocol Protocol // X402 when empty
	ATR      []byte   // DefaultATR when nil
	Body     []byte   // what a paid request gets; a short report when nil
	// Addr is the loopback address to listen on ("127.0.0.1:8402"); a free
	// port on 127.0.0.1 when empty.
	Addr string
	// NoTerms makes an x402 seller publish no terms, as sellers without the
	// Legal Context Protocol are: its 402 has no legalContext and it takes
	// any nonce. A buyer declines it unless it opted into unbound payments
	// (pay.PolicyConfig.AllowUnbound, termsgate pay --allow-unbound).
	NoTerms bool
	// Agreement makes an x402 seller whose payment is no public proof of
	// its terms, so that a buyer must run the agreement exchange first
	// (docs/agreement.md): its 402 offers x402/batch-settlement/cloudflare,
	// paid by an agent's identity (AgentAccount; the gate asks it to sign
	// nothing), and names an agreement URL (AgreementURL) that sells a
	// receipt for 1 atomic unit of USDC on Base Sepolia, an EIP-3009
	// payment whose nonce is the terms' hash. The resource answers a
	// payment echoing the terms only once an agreement was paid.
	Agreement bool
}

// AgentAccount is the account an Agreement seller's offer is paid by: a
// cloudflare:402 agent identity, whose HTTP stack signs the requests (the
// gate calls no signer for it; the agreement is paid by an EVM key).
const AgentAccount = agreementseller.AgentAccount

// Seller is a running seller. Its resource, and the link to its terms, are
// on its address; Client reaches and trusts it.
type Seller struct {
	// URL is the paid resource, https://127.0.0.1:PORT/v1/report.
	URL string

	srv      *loopback.Server
	host     string // host:port in the links, as dialable names it
	protocol Protocol
	x402     *x402seller.Seller
	mpp      *mppseller.Seller
	agree    *agreementseller.Seller

	mu    sync.Mutex
	delay time.Duration
}

// NewSeller starts an x402 seller of DefaultATR. It panics if it cannot
// listen, as httptest.NewServer does; call Close when done.
func NewSeller() *Seller { return must(Start(Config{})) }

// NewMPPSeller starts an MPP seller of DefaultATR.
func NewMPPSeller() *Seller { return must(Start(Config{Protocol: MPP})) }

func must(s *Seller, err error) *Seller {
	if err != nil {
		panic("termsgatetest: " + err.Error())
	}
	return s
}

// Start starts a seller as cfg says.
func Start(cfg Config) (*Seller, error) {
	terms, body := cfg.ATR, cfg.Body
	if terms == nil {
		terms = DefaultATR
	}
	if body == nil {
		body = []byte(`{"report":"paid"}` + "\n")
	}
	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	host, ip := dialable(addr, l.Addr())
	l.Close() // StartOn listens again on the port the system picked
	s := &Seller{protocol: cfg.Protocol, host: host}
	var h http.Handler
	switch cfg.Protocol {
	case "", X402:
		s.protocol = X402
		if cfg.Agreement {
			if cfg.NoTerms {
				return nil, errAgreementNoTerms
			}
			s.agree = agreementseller.New(terms, body)
			s.agree.Agreements.ATRHost, s.agree.Agreements.APIHost = host, host
			s.x402 = s.agree.Agreements // the terms, their link and the agreement URL
			h = s.agree
			break
		}
		s.x402 = x402seller.New(terms, body)
		s.x402.ATRHost, s.x402.APIHost = host, host
		s.x402.Plain = cfg.NoTerms
		h = s.x402
	case MPP:
		if cfg.NoTerms || cfg.Agreement {
			return nil, errX402Only
		}
		s.mpp = mppseller.New(terms, body)
		s.mpp.ATRHost, s.mpp.APIHost = host, host
		h = s.mpp
	default:
		return nil, &unknownProtocol{cfg.Protocol}
	}
	s.srv, err = loopback.StartOn(host, s.slow(h), "localhost", ip)
	if err != nil {
		return nil, err
	}
	s.URL = "https://" + host + "/v1/report"
	return s, nil
}

// dialable is the host:port the seller's links and URL name, and its IP: the
// one listened on, except that a seller listening on every address (0.0.0.0,
// ::, or no host) is named by loopback, an address that reaches it from this
// machine and that its certificate names.
func dialable(requested string, listened net.Addr) (hostPort, ip string) {
	h, _, _ := net.SplitHostPort(requested)
	ta, ok := listened.(*net.TCPAddr)
	if !ok {
		return listened.String(), h
	}
	a := ta.IP
	if a.IsUnspecified() {
		a = net.IPv4(127, 0, 0, 1)
		if strings.Contains(h, ":") { // [::]: the IPv6 loopback
			a = net.IPv6loopback
		}
	}
	return net.JoinHostPort(a.String(), strconv.Itoa(ta.Port)), a.String()
}

var (
	errX402Only         = errors.New("NoTerms and Agreement are for the x402 seller only")
	errAgreementNoTerms = errors.New("an Agreement seller publishes terms: NoTerms and Agreement exclude each other")
)

type unknownProtocol struct{ p Protocol }

func (e *unknownProtocol) Error() string { return "unknown protocol " + string(e.p) + " (x402 or mpp)" }

// slow delays the link's answers by the current delay.
func (s *Seller) slow(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		d := s.delay
		s.mu.Unlock()
		if d > 0 && r.URL.Path == "/"+s.Hash() {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// Close shuts the seller down.
func (s *Seller) Close() { s.srv.Close() }

// Protocol is how the seller asks to be paid.
func (s *Seller) Protocol() Protocol { return s.protocol }

// Client returns a client that trusts only the seller's certificate. Use it
// (or Transport) for both the paid request and the ATR fetch.
func (s *Seller) Client() *http.Client { return s.srv.Client() }

// Transport is Client's transport, for a pay.Transport's Base.
func (s *Seller) Transport() *http.Transport { return s.srv.Transport() }

// CertificatePEM is the seller's certificate, PEM-encoded: the one
// authority a client needs to trust it (termsgate's --ca-file).
func (s *Seller) CertificatePEM() []byte { return s.srv.CertificatePEM() }

// Hash is the hash of the terms the offer advertises, 0x and 64 hex digits.
func (s *Seller) Hash() string {
	if s.x402 != nil {
		return s.x402.Hash().String()
	}
	return s.mpp.Hash().String()
}

// ATRLink is where the terms are served.
func (s *Seller) ATRLink() string {
	return "https://" + s.host + "/" + s.Hash()
}

// SetATR changes the terms; offers advertise the new hash from now on.
func (s *Seller) SetATR(b []byte) {
	if s.agree != nil {
		s.agree.SetATR(b) // the receipt the agreement URL sells names the new hash
		return
	}
	if s.x402 != nil {
		s.x402.SetATR(b)
	} else {
		s.mpp.SetATR(b)
	}
}

// Lie makes the link serve b while the offer keeps advertising the hash of
// the terms: a buyer must decline (hash-mismatch) and sign nothing. Nil
// stops lying.
func (s *Seller) Lie(b []byte) {
	if s.x402 != nil {
		s.x402.Lie(b)
	} else {
		s.mpp.Lie(b)
	}
}

// SetDelay makes the link wait d before answering (0: answer at once): past
// the buyer's fetch deadline the buyer declines (atr-unfetchable).
func (s *Seller) SetDelay(d time.Duration) {
	s.mu.Lock()
	s.delay = d
	s.mu.Unlock()
}

// Counts is what the seller has seen.
type Counts struct {
	Unpaid     int64 // requests without a payment, answered 402
	Paid       int64 // payments it verified, answered 200
	Rejected   int64 // payments it refused
	ATRFetches int64 // requests to the link
	Agreements int64 // agreements paid at the agreement URL (an Agreement seller)
}

// Counts returns the seller's counters.
func (s *Seller) Counts() Counts {
	if s.agree != nil {
		a := s.agree.Agreements
		return Counts{s.agree.Unpaid.Load(), s.agree.Paid.Load(), s.agree.Rejected.Load(), a.ATRFetches.Load(), a.Paid.Load()}
	}
	if s.x402 != nil {
		return Counts{Unpaid: s.x402.Unpaid.Load(), Paid: s.x402.Paid.Load(), Rejected: s.x402.Rejected.Load(), ATRFetches: s.x402.ATRFetches.Load()}
	}
	return Counts{Unpaid: s.mpp.Unpaid.Load(), Paid: s.mpp.Paid.Load(), Rejected: s.mpp.Rejected.Load(), ATRFetches: s.mpp.ATRFetches.Load()}
}

// AgreementURL is the agreement URL an Agreement seller's offer names
// (https://127.0.0.1:PORT/agree); "" for other sellers.
func (s *Seller) AgreementURL() string {
	if s.agree == nil {
		return ""
	}
	return "https://" + s.host + s.agree.Agreements.ResourcePath
}

// LastRejection is why the seller last refused a payment, if it did.
func (s *Seller) LastRejection() error {
	switch {
	case s.agree != nil:
		return s.agree.LastRejection()
	case s.x402 != nil:
		return s.x402.LastRejection()
	}
	return s.mpp.LastRejection()
}

// HashOf is the hash a buyer computes over terms: SHA-256 of the exact
// bytes, 0x and 64 lowercase hex digits.
func HashOf(terms []byte) string { return atr.Sum(terms).String() }
