package pay_test

import (
	"bytes"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/mppseller"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/signer"
)

// The MPP seller's figures: 1 pathUSD (6 decimals) on Tempo Moderato, the
// chain a Tempo charge pays on when its challenge names none.
var (
	tempoNetwork = "eip155:" + strconv.Itoa(mpp.TempoChargeDefaultChain)
	pathUSD      = "0x20c0000000000000000000000000000000000000"
	mppPayee     = "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00"
)

const mppPairing = "mpp/charge/tempo/memo"

// mppEnv is a loopback TLS MPP seller (internal/mppseller: it verifies the
// credential's transaction, memo, amount, payee, chain and signer before
// 200) of the vectors' A, and a client paying it with the Anvil key on Tempo
// Moderato.
type mppEnv struct {
	terms     []byte
	seller    *mppseller.Seller
	base      *http.Transport
	signer    *countingSigner
	policy    *pay.Policy
	transport *pay.Transport
	client    *http.Client

	mu     sync.Mutex
	seen   []mppSeen
	noSeen bool
}

type mppSeen struct {
	Method, Path                 string
	Authorization, PaymentAuthzn string
	Body                         []byte
}

func newMPPEnv(tb testing.TB, wrap func(e *mppEnv, next http.Handler) http.Handler) *mppEnv {
	tb.Helper()
	a, _ := vectorATRs(tb)
	e := &mppEnv{terms: a, seller: mppseller.New(a, []byte(paidBody))}
	var h http.Handler = e.seller
	if wrap != nil {
		h = wrap(e, h)
	}
	record := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !e.noSeen && r.Host == e.seller.APIHost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			e.mu.Lock()
			e.seen = append(e.seen, mppSeen{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get(mpp.PaymentAuthorization), body})
			e.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
	srv, err := loopback.Start(record)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Close)
	e.base = srv.Transport()
	tb.Cleanup(e.base.CloseIdleConnections)
	l, err := signer.FromHex(signer.AnvilKey, tempoNetwork)
	if err != nil {
		tb.Fatal(err)
	}
	e.signer = &countingSigner{Signer: l}
	e.policy, err = pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: tempoNetwork, Asset: pathUSD, MaxAmount: big.NewInt(1_000_000)}}})
	if err != nil {
		tb.Fatal(err)
	}
	e.transport = &pay.Transport{
		Base:   e.base,
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: &http.Client{Transport: e.base}}},
		Signer: e.signer,
		Policy: e.policy,
	}
	e.client = pay.NewClient(e.transport)
	return e
}

func (e *mppEnv) requests() []mppSeen {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]mppSeen(nil), e.seen...)
}

// counters are the seller's unpaid, paid, rejected and ATR fetch counts.
func (e *mppEnv) counters() [4]int64 {
	s := e.seller
	return [4]int64{s.Unpaid.Load(), s.Paid.Load(), s.Rejected.Load(), s.ATRFetches.Load()}
}
