// Package terms is what the loopback sellers (internal/x402seller,
// internal/mppseller) share: one published ATR, the link that serves it, and
// a switch to serve other bytes there while the offer still advertises the
// old hash (a lying seller, for the demo and the tests).
package terms

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/x402"
)

// Record is a seller's published ATR. The zero value serves no bytes; call
// SetATR.
type Record struct {
	// ATRFetches counts requests to the link, for tests and the demo.
	ATRFetches atomic.Int64

	mu    sync.Mutex
	bytes []byte
	h     atr.Hash
	lie   []byte
}

// SetATR changes the terms: later offers advertise the new hash, and
// payments bound to the old one are refused.
func (r *Record) SetATR(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bytes, r.h = b, atr.Sum(b)
}

// Lie makes the link serve b while the offer keeps advertising the hash of
// the terms. Nil stops lying.
func (r *Record) Lie(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lie = b
}

// Hash is the hash of the terms the offer advertises.
func (r *Record) Hash() atr.Hash {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.h
}

// ServeATR answers the link /<hash>: the terms (or the lie), with their
// length declared.
func (r *Record) ServeATR(w http.ResponseWriter, req *http.Request) {
	r.ATRFetches.Add(1)
	r.mu.Lock()
	b, h := r.bytes, r.h
	if r.lie != nil {
		b = r.lie
	}
	r.mu.Unlock()
	if req.URL.Path != "/"+h.String() {
		http.NotFound(w, req)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// Route sends a request for atrHost to the ATR link and one for apiHost to
// resource: a seller is one server under two names. Host names are compared
// without their ports. When the two names are the same (a seller on one
// address, such as termsgate seller's localhost:8402), the link's path
// (/<hash>) goes to the ATR and every other path to the resource.
func (r *Record) Route(w http.ResponseWriter, req *http.Request, atrHost, apiHost string, resource http.HandlerFunc) {
	host, atrH, apiH := hostOnly(req.Host), hostOnly(atrHost), hostOnly(apiHost)
	switch {
	case host == atrH && (atrH != apiH || req.URL.Path == "/"+r.Hash().String()):
		r.ServeATR(w, req)
	case host == apiH:
		resource(w, req)
	default:
		http.NotFound(w, req)
	}
}

func hostOnly(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		return host[:i]
	}
	return host
}

// ServeX402 answers an x402 seller's resource: a PAYMENT-SIGNATURE that
// accept takes gets body; anything else gets 402 with required's document
// and, after a refused payment, the reason as {"error": …}. Each payment's
// outcome is stored in *last under mu, for the seller's LastRejection.
func ServeX402(w http.ResponseWriter, r *http.Request, mu *sync.Mutex, last *error,
	accept func(header string) error, required func() (*jsonv.Object, error), body []byte) {
	var refused error
	if header := r.Header.Get("PAYMENT-SIGNATURE"); header != "" {
		refused = accept(header)
		mu.Lock()
		*last = refused
		mu.Unlock()
		if refused == nil {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
			return
		}
	}
	doc, err := required()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("PAYMENT-REQUIRED", x402.EncodeHeader(doc))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusPaymentRequired)
	if refused != nil {
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("error", refused.Error())))
	}
}

// ServeMPP answers an MPP seller's resource: an Authorization: Payment
// credential that accept takes gets body; anything else gets 402 with a
// WWW-Authenticate: Payment header per challenge and, after a refused
// credential, the reason as a problem document. Each credential's outcome is
// stored in *last under mu.
func ServeMPP(w http.ResponseWriter, r *http.Request, mu *sync.Mutex, last *error,
	accept func(credential string) error, challenges func() ([]jsonv.Value, error), body []byte) {
	var refused error
	if auth := r.Header.Get("Authorization"); len(auth) >= 8 && strings.EqualFold(auth[:8], "payment ") {
		refused = accept(auth)
		mu.Lock()
		*last = refused
		mu.Unlock()
		if refused == nil {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
			return
		}
	}
	doc, err := challenges()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, c := range doc {
		o, _ := jsonv.AsObject(c)
		w.Header().Add("WWW-Authenticate", mpp.ChallengeHeader(o))
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusPaymentRequired)
	detail := "payment required"
	if refused != nil {
		detail = refused.Error()
	}
	_, _ = w.Write(jsonv.Marshal(jsonv.Obj("type", "https://paymentauth.org/problems/payment-required", "status", 402, "detail", detail)))
}
