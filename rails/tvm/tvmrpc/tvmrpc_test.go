package tvmrpc

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/tvm"
)

// The vectors' wallet, Jetton master and Jetton wallet (x402-exact-tvm.json's fixed).
const (
	wallet = "0:1da21a6e33ef22840029ae77900f61ba820b94e813a3b7bef4e3ea471007645f"
	jetton = "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe"
	jw     = "0:1111111111111111111111111111111111111111111111111111111111111111"
)

func start(t *testing.T, h http.Handler) *Client {
	t.Helper()
	srv, err := loopback.Start(h, "toncenter.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &Client{URL: "https://toncenter.example", HTTP: srv.Client(), Wallet: wallet, Jetton: jetton}
}

// The vectors' inputs (walletId 2147483409, seqno 5, the Jetton wallet,
// 0.05 TON) come from the stand-in's two answers.
func TestInputsFromTheNode(t *testing.T) {
	node := &Node{Wallet: wallet, Jetton: jetton, JettonWallet: jw, Seqno: 5, WalletID: 2147483409}
	c := start(t, node)
	in, err := c.Inputs(context.Background(), tvm.ExactID)
	want := `{"walletId":2147483409,"seqno":5,"jettonWallet":"` + jw + `","attachNanotons":"50000000"}`
	if err != nil || string(jsonv.Marshal(in)) != want || node.Calls.Load() != 2 {
		t.Fatalf("inputs %s, %v (%d calls)", jsonv.Marshal(in), err, node.Calls.Load())
	}
	if o, err := c.Inputs(context.Background(), "x402/exact/xrpl"); o != nil || err != nil || node.Calls.Load() != 2 {
		t.Fatalf("another pairing: %v %v", o, err)
	}
	c.Jetton = jw // a Jetton the wallet holds none of
	if _, err := c.JettonWallet(context.Background()); err == nil {
		t.Fatal("no Jetton wallet read as one")
	}
}

func TestNodeFailuresAreErrors(t *testing.T) {
	var e *Error
	for name, body := range map[string]string{
		"not JSON":     `{`,
		"uninit":       `{"status":"uninit","seqno":0,"wallet_id":1}`,
		"seqno text":   `{"status":"active","seqno":"05","wallet_id":1}`,
		"no wallet id": `{"status":"active","seqno":5}`,
		"id too large": `{"status":"active","seqno":5,"wallet_id":4294967296}`,
	} {
		c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
		if _, err := c.WalletInfo(context.Background()); !errors.As(err, &e) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for name, body := range map[string]string{
		"two":           `{"jetton_wallets":[{"address":"` + jw + `","owner":"` + wallet + `","jetton":"` + jetton + `"},{}]}`,
		"another owner": `{"jetton_wallets":[{"address":"` + jw + `","owner":"` + jw + `","jetton":"` + jetton + `"}]}`,
		"friendly":      `{"jetton_wallets":[{"address":"EQCSQzpXbL5WxNzIbZS0l6LPGKm6qcgoP-oo6kPrPCXP7Ttj","owner":"` + wallet + `","jetton":"` + jetton + `"}]}`,
	} {
		c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
		if _, err := c.JettonWallet(context.Background()); !errors.As(err, &e) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	broken := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	in := &Inputs{Client: broken}
	if o := in.For(tvm.ExactID); o != nil || in.Err() == nil || !strings.Contains(in.Err().Error(), "503") {
		t.Fatalf("inputs %v, %v", o, in.Err())
	}
}

// FuzzNodeAnswers: any bytes as either answer end in a value or an error,
// never a panic; accepted values are in range.
func FuzzNodeAnswers(f *testing.F) {
	node := &Node{Wallet: wallet, Jetton: jetton, JettonWallet: jw, Seqno: 5, WalletID: 2147483409}
	rec := &rpcanswer.Recorder{Handler: node}
	c := &Client{URL: "http://toncenter.invalid", HTTP: &http.Client{Transport: rec}, Wallet: wallet, Jetton: jetton}
	if _, err := c.Inputs(context.Background(), tvm.ExactID); err != nil || len(rec.Answers) != 2 {
		f.Fatalf("the stand-in node: %v", err)
	}
	for _, a := range rec.Answers {
		f.Add(a)
	}
	for _, s := range []string{`{}`, `[]`, ``, `{"jetton_wallets":[1]}`, `{"status":"active","seqno":-1,"wallet_id":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &Client{URL: "http://toncenter.invalid", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}, Wallet: wallet, Jetton: jetton}
			if w, err := c.WalletInfo(context.Background()); err == nil && (w.Seqno >= 1<<32 || w.WalletID >= 1<<32) {
				t.Fatalf("accepted %+v", w)
			}
			if a, err := c.JettonWallet(context.Background()); err == nil {
				if _, ok := tvm.ParseAddress(a); !ok {
					t.Fatalf("accepted %q", a)
				}
			}
		})
	})
}

// The call keeps its bounds on restjson: an answer over maxAnswer is this
// package's Error naming the path without its query, and the API key and
// the query go with the request.
func TestNodeCallBounds(t *testing.T) {
	var key, addr string
	c := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, addr = r.Header.Get("X-API-Key"), r.URL.Query().Get("address")
		_, _ = w.Write([]byte(`"` + strings.Repeat("a", maxAnswer) + `"`))
	}))
	c.APIKey = "k1"
	var e *Error
	if _, err := c.WalletInfo(context.Background()); !errors.As(err, &e) || e.Path != "/api/v3/walletInformation" ||
		!strings.Contains(e.Detail, "longer than") || key != "k1" || addr != wallet {
		t.Fatalf("long answer: %v (key %q, address %q)", err, key, addr)
	}
}
