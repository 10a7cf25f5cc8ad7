package agreement

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

var atrBytes = []byte(`{"terms":"one report for 0.01 USDC"}`)

func agreementDoc(t *testing.T, url string) *jsonv.Object {
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", url), "accepts", []jsonv.Value{jsonv.Obj(
		"scheme", "exact", "network", "eip155:84532", "amount", "1",
		"asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("name", "USDC", "version", "2"))})
	h := atr.Sum(atrBytes)
	out, err := x402.Advertise(doc, h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// directPay signs with the pairing's own steps: what the gate's Pay does,
// without the gate.
func directPay(calls *int) PayFunc {
	return func(ctx context.Context, p rails.Pairing, chosen rails.Chosen, s rails.Signer, b []byte) (jsonv.Value, error) {
		*calls++
		u, err := p.Build(chosen.Choice, b, atr.Sum(b))
		if err != nil {
			return nil, err
		}
		req, _ := p.Request(u)
		sig, err := s.Sign(ctx, req)
		if err != nil {
			return nil, err
		}
		done, err := p.Complete(u, sig, chosen)
		return done.Signed, err
	}
}

type server struct {
	mu     sync.Mutex
	handle func(w http.ResponseWriter, r *http.Request)
	paid   int
}

func start(t *testing.T, s *server) *loopback.Server {
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if r.Header.Get("PAYMENT-SIGNATURE") != "" {
			s.paid++
		}
		h := s.handle
		s.mu.Unlock()
		h(w, r)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func TestCancellationBeforeAndAfterThePaymentIsSent(t *testing.T) {
	url := "https://api.seller.example/agreement/x"
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	doc := agreementDoc(t, url)

	t.Run("before: the unpaid request is cancelled", func(t *testing.T) {
		s := &server{handle: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }}
		srv := start(t, s)
		calls := 0
		x := &Exchange{Client: srv.Client(), Pairings: rails.NewRegistry(evm.ExactEIP3009{}), Pay: directPay(&calls)}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := x.Run(ctx, atrBytes, url, l, Options{})
		f, ok := err.(*Failure)
		if !ok || f.Code != CodeFailed || f.Detail != DetailSignalBefore || f.Moved != nil || calls != 0 {
			t.Fatalf("got %v, %d signatures", err, calls)
		}
	})

	t.Run("after: the paid loop is cancelled and the payment kept", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := &server{}
		s.handle = func(w http.ResponseWriter, r *http.Request) {
			cancel() // the caller gives up while the agreement settles
			w.WriteHeader(http.StatusAccepted)
		}
		srv := start(t, s)
		calls := 0
		x := &Exchange{Client: srv.Client(), Pairings: rails.NewRegistry(evm.ExactEIP3009{}), Pay: directPay(&calls)}
		approved := &Payment{URL: url, Option: mustArray(doc)[0].(*jsonv.Object), Required: doc}
		_, err := x.Run(ctx, atrBytes, url, l, Options{Approved: approved})
		f, ok := err.(*Failure)
		if !ok || f.Code != CodePending || f.Detail != DetailSignalAfter || f.Moved == nil || calls != 1 || s.paid != 1 {
			t.Fatalf("got %v, %d signatures, %d paid requests", err, calls, s.paid)
		}
	})

	t.Run("cancelled before the call: nothing is asked", func(t *testing.T) {
		s := &server{handle: func(w http.ResponseWriter, r *http.Request) { t.Error("request sent") }}
		srv := start(t, s)
		x := &Exchange{Client: srv.Client(), Pairings: rails.NewRegistry(evm.ExactEIP3009{})}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := x.Run(ctx, atrBytes, url, l, Options{})
		if f, ok := err.(*Failure); !ok || f.Detail != DetailSignalBefore {
			t.Fatalf("got %v", err)
		}
	})
}

func mustArray(doc *jsonv.Object) []jsonv.Value {
	v, _ := doc.Get("accepts")
	a, _ := jsonv.AsArray(v)
	return a
}

func TestStatusAndShapeFailures(t *testing.T) {
	url := "https://api.seller.example/agreement/x"
	l, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	cases := map[string]struct {
		handle func(w http.ResponseWriter, r *http.Request)
		code   string
		detail string
	}{
		"redirect":               {func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) }, CodeFailed, DetailRedirect},
		"404":                    {http.NotFound, CodeFailed, "The agreement URL answered status 404."},
		"402 without the header": {func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(402) }, CodeFailed, DetailNoRequired},
		"402 with JSON that is no object": {func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("PAYMENT-REQUIRED", "WzFd") // [1]
			w.WriteHeader(402)
		}, CodeFailed, DetailNoRequired},
		"200 receipt too large": {func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write(make([]byte, MaxReceiptBytes+1))
		}, CodeFailed, DetailReceiptTooLarge},
		"200 receipt not JSON": {func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }, CodeFailed, DetailNoReceipt},
		"200 receipt not recorded": {func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write(jsonv.Marshal(jsonv.Obj("atrHash", atr.Sum(atrBytes).String(), "agreed", false, "network", "n", "transaction", "t")))
		}, CodeFailed, DetailNotRecorded},
		"unreachable": {func(w http.ResponseWriter, r *http.Request) {
			conn, _, _ := http.NewResponseController(w).Hijack()
			_ = conn.Close()
		}, CodeFailed, DetailUnreachable},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			srv := start(t, &server{handle: c.handle})
			x := &Exchange{Client: srv.Client(), Pairings: rails.NewRegistry(evm.ExactEIP3009{})}
			_, err := x.Run(context.Background(), atrBytes, url, l, Options{})
			f, ok := err.(*Failure)
			if !ok || f.Code != c.code || f.Detail != c.detail {
				t.Fatalf("got %v", err)
			}
		})
	}
	t.Run("an already recorded agreement", func(t *testing.T) {
		srv := start(t, &server{handle: func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write(jsonv.Marshal(jsonv.Obj("atrHash", atr.Sum(atrBytes).String(), "agreed", true, "network", "eip155:84532", "transaction", "0xab", "extra", 1)))
		}})
		x := &Exchange{Client: srv.Client(), Pairings: rails.NewRegistry(evm.ExactEIP3009{})}
		res, err := x.Run(context.Background(), atrBytes, url, l, Options{})
		if err != nil || res.Receipt == nil || res.Receipt.Transaction != "0xab" {
			t.Fatalf("got %v, %v", res, err)
		}
	})
	t.Run("an approval for another URL", func(t *testing.T) {
		x := &Exchange{Pairings: rails.NewRegistry(evm.ExactEIP3009{})}
		doc := agreementDoc(t, url)
		_, err := x.Run(context.Background(), atrBytes, url, l, Options{Approved: &Payment{URL: url + "/other", Option: mustArray(doc)[0].(*jsonv.Object), Required: doc}})
		if f, ok := err.(*Failure); !ok || f.Detail != DetailOtherURL {
			t.Fatalf("got %v", err)
		}
	})
}
