package xrplrpc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/xrpl"
)

const payer = "r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC"

func newLedger(t *testing.T) (*Ledger, *Client) {
	l := &Ledger{Current: 980, BaseFee: 10, OpenFee: 12, Accounts: map[string]uint32{payer: 7}}
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	return l, &Client{URL: srv.URL, HTTP: srv.Client(), Now: func() time.Time { return time.Unix(1_800_000_000, 0) }}
}

func TestInputsFromTheLedger(t *testing.T) {
	l, c := newLedger(t)
	in, err := c.Inputs(context.Background(), xrpl.ExactID, payer, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonv.String(in); got != `{"fee":"12","sequence":7,"lastLedgerSequence":1000,"validUntil":1800000210}` {
		t.Fatalf("inputs %s", got)
	}
	if l.Calls.Load() != 3 {
		t.Fatalf("%d calls", l.Calls.Load())
	}
	in, err = c.Inputs(context.Background(), xrpl.SessionID, payer, &Session{Deposit: "1000000", PublicKey: []byte{0xED, 1}, SettleDelay: 3600})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonv.String(in); got != `{"deposit":"1000000","xrpl":{"publicKey":"0xed01","settleDelay":3600,"fee":"12","sequence":7,"lastLedgerSequence":1000},"validUntil":1800000210}` {
		t.Fatalf("session inputs %s", got)
	}
}

func TestLedgerFailuresAreErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		ledger  func(*Ledger)
		handler http.HandlerFunc
		account string
		want    string
	}{
		{name: "unknown account", account: "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN", want: `account_info: rippled error "actNotFound"`},
		{name: "fee above the cap", ledger: func(l *Ledger) { l.OpenFee = 5000 }, want: "is not within 1…1000"},
		{name: "status 503", handler: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }, want: "status 503"},
		{name: "not JSON", handler: func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) }, want: "not JSON"},
		{name: "no result", handler: func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"id":1}`)) }, want: "no result"},
		{name: "endless answer", handler: func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"result":"` + strings.Repeat("a", maxAnswer+10)))
		}, want: "longer than"},
		{name: "sequence not a number", handler: func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"result":{"status":"success","drops":{"base_fee":"10","open_ledger_fee":"10"},"account_data":{"Account":"` + payer + `","Sequence":"7"}}}`))
		}, want: "Sequence is not a u32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, client := newLedger(t)
			if c.ledger != nil {
				c.ledger(l)
			}
			if c.handler != nil {
				srv := httptest.NewServer(c.handler)
				defer srv.Close()
				client = &Client{URL: srv.URL, HTTP: srv.Client()}
			}
			account := payer
			if c.account != "" {
				account = c.account
			}
			in, err := client.Inputs(context.Background(), xrpl.ChargeID, account, nil)
			var e *Error
			if in != nil || !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, %v; want an error with %q", in, err, c.want)
			}
		})
	}
}

func TestTransportInputsKeepTheError(t *testing.T) {
	_, c := newLedger(t)
	in := &Inputs{Client: c, Account: payer}
	if o := in.For(xrpl.ChargeID); o == nil || in.Err() != nil {
		t.Fatalf("%v %v", o, in.Err())
	}
	in.Account = "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN"
	if o := in.For(xrpl.ChargeID); o != nil || in.Err() == nil {
		t.Fatalf("%v %v", o, in.Err())
	}
}

// The call keeps its bounds on restjson: an answer over maxAnswer and a
// 404 are this package's Errors naming the method, and the request is a
// POST to the URL exactly as given.
func TestLedgerCallBounds(t *testing.T) {
	var path, method string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, method = r.URL.Path, r.Method
		if r.URL.Path == "/missing/" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`"` + strings.Repeat("a", maxAnswer) + `"`))
	}))
	defer srv.Close()
	var e *Error
	c := &Client{URL: srv.URL + "/rpc/", HTTP: srv.Client()}
	if _, err := c.Fee(context.Background()); !errors.As(err, &e) || e.Method != "fee" || !strings.Contains(e.Detail, "longer than") ||
		path != "/rpc/" || method != http.MethodPost {
		t.Fatalf("long answer: %v (%s %s)", err, method, path)
	}
	c.URL = srv.URL + "/missing/"
	if _, err := c.Fee(context.Background()); !errors.As(err, &e) || e.Detail != "status 404" {
		t.Fatalf("404: %v", err)
	}
}
