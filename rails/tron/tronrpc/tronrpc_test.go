package tronrpc

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
	"github.com/termsgate/termsgate/rails/tron"
)

func start(t *testing.T, h http.Handler) *Client {
	t.Helper()
	srv, err := loopback.Start(h, "fullnode.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &Client{URL: "https://fullnode.example", HTTP: srv.Client()}
}

// The vectors' refBlock comes from the node's answer for block 86542765.
func TestInputsFromTheNode(t *testing.T) {
	node := &Node{Number: 86542765}
	copy(node.Hash[:], []byte{0x7d, 0x1d, 0xdb, 0xe0, 0xb0, 0xad, 0xbe, 0x87, 0xd0, 0x2b, 0x3c, 0xdb, 0xba, 0x73, 0xa6, 0xd4, 0x85, 0xff, 0x03, 0x92, 0xab, 0x0e, 0x50, 0x03})
	c := start(t, node)
	in, err := c.Inputs(context.Background(), tron.ExactID)
	want := `{"refBlock":{"number":"86542765","id":"0x00000000052889ad7d1ddbe0b0adbe87d02b3cdbba73a6d485ff0392ab0e5003"},"feeLimit":"100000000"}`
	if err != nil || string(jsonv.Marshal(in)) != want || node.Calls.Load() != 1 {
		t.Fatalf("inputs %s, %v", jsonv.Marshal(in), err)
	}
	if o, err := c.Inputs(context.Background(), "x402/exact/xrpl"); o != nil || err != nil || node.Calls.Load() != 1 {
		t.Fatalf("another pairing: %v %v", o, err)
	}
}

func TestNodeFailuresAreErrors(t *testing.T) {
	var e *Error
	for name, body := range map[string]string{
		"not JSON":          `{`,
		"no id":             `{"block_header":{"raw_data":{"number":1}}}`,
		"id not the number": `{"blockID":"00000000000000027d1ddbe0b0adbe87d02b3cdbba73a6d485ff0392ab0e5003","block_header":{"raw_data":{"number":1}}}`,
		"short id":          `{"blockID":"0001","block_header":{"raw_data":{"number":1}}}`,
	} {
		c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
		if _, err := c.NowBlock(context.Background()); !errors.As(err, &e) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	broken := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	in := &Inputs{Client: broken}
	if o := in.For(tron.ExactID); o != nil || in.Err() == nil || !strings.Contains(in.Err().Error(), "503") {
		t.Fatalf("inputs %v, %v", o, in.Err())
	}
}

// FuzzNodeAnswers: any bytes as getnowblock's answer end in a block or an
// error, never a panic; an accepted block's id begins with its number.
func FuzzNodeAnswers(f *testing.F) {
	rec := &rpcanswer.Recorder{Handler: &Node{Number: 86542765}}
	c := &Client{URL: "http://fullnode.invalid", HTTP: &http.Client{Transport: rec}}
	if _, err := c.NowBlock(context.Background()); err != nil || len(rec.Answers) != 1 {
		f.Fatalf("the stand-in node: %v", err)
	}
	f.Add(rec.Answers[0])
	for _, s := range []string{`{}`, `[]`, ``, `{"blockID":1}`, `{"blockID":"00","block_header":{"raw_data":{"number":-1}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &Client{URL: "http://fullnode.invalid", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
			b, err := c.NowBlock(context.Background())
			if err == nil && beUint64(b.ID[:8]) != b.Number {
				t.Fatalf("accepted %+v", b)
			}
		})
	})
}

// The call keeps its bounds on restjson: an answer over maxAnswer and a
// 404 are this package's Errors, and the API key goes with the request.
func TestNodeCallBounds(t *testing.T) {
	var key string
	big := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key = r.Header.Get("TRON-PRO-API-KEY")
		_, _ = w.Write([]byte(`"` + strings.Repeat("a", maxAnswer) + `"`))
	}))
	big.APIKey = "k1"
	var e *Error
	if _, err := big.NowBlock(context.Background()); !errors.As(err, &e) || !strings.Contains(e.Detail, "longer than") || key != "k1" {
		t.Fatalf("long answer: %v (key %q)", err, key)
	}
	missing := start(t, http.NotFoundHandler())
	if _, err := missing.NowBlock(context.Background()); !errors.As(err, &e) || e.Detail != "status 404" {
		t.Fatalf("404: %v", err)
	}
}
