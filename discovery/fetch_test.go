package discovery_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/discovery"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
)

const good = `{"terms":"https://seller.example/terms/v3.md","atrHash":"0xBA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD","x-note":1}`

// seller serves h on loopback TLS and counts the requests it answers.
func seller(t *testing.T, h http.HandlerFunc) (*atr.Fetcher, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}), "seller.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &atr.Fetcher{Client: srv.Client(), Timeout: 2 * time.Second}, &n
}

func TestFetchReadsTheWellKnownDocument(t *testing.T) {
	var path, coding string
	f, n := seller(t, func(w http.ResponseWriter, r *http.Request) {
		path, coding = r.URL.Path, r.Header.Get("Accept-Encoding")
		_, _ = w.Write([]byte(good))
	})
	res, err := discovery.Fetch(context.Background(), f, "https://seller.example")
	if err != nil {
		t.Fatal(err)
	}
	if path != discovery.WellKnownPath || coding != "identity" || n.Load() != 1 {
		t.Fatalf("fetched %q with Accept-Encoding %q, %d requests", path, coding, n.Load())
	}
	if res.URL != "https://seller.example"+discovery.WellKnownPath || string(res.Bytes) != good {
		t.Fatalf("result %s %s", res.URL, res.Bytes)
	}
	if res.Document.ATRHash != "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" || len(res.Ignored) != 1 || res.Ignored[0] != "x-note" {
		t.Fatalf("document %+v, ignored %q", res.Document, res.Ignored)
	}
}

func TestFetchHostileSellers(t *testing.T) {
	big := `{"terms":"https://seller.example/t.md","x":"` + strings.Repeat("a", discovery.MaxBytes) + `"}`
	cases := []struct {
		name string
		h    http.HandlerFunc
		code gate.Code
	}{
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://seller.example/elsewhere.json", http.StatusFound)
		}, discovery.CodeUnfetchable},
		{"404", http.NotFound, discovery.CodeUnfetchable},
		{"gzip", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write([]byte(good))
		}, discovery.CodeUnfetchable},
		{"over 64 KiB", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(big)) }, discovery.CodeTooLarge},
		{"over 1 MiB, streamed", func(w http.ResponseWriter, _ *http.Request) {
			chunk := []byte(strings.Repeat("a", 64<<10))
			for i := 0; i < 20; i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}, discovery.CodeTooLarge},
		{"declares 2 MiB", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", "2097152")
			w.WriteHeader(200)
		}, discovery.CodeTooLarge},
		{"trickles past the deadline", func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i < 100; i++ {
				if _, err := w.Write([]byte(" ")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}, discovery.CodeUnfetchable},
		{"html", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html></html>")) }, discovery.CodeNotJSONObject},
		{"terms over http", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"terms":"http://seller.example/t.md"}`))
		}, discovery.CodeTermsNotHTTPS},
		{"nested too deep", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"terms":"https://seller.example/t.md","x":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`))
		}, discovery.CodeNotJSONObject},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, n := seller(t, c.h)
			if c.name == "trickles past the deadline" {
				f.Timeout = 300 * time.Millisecond
			}
			_, err := discovery.Fetch(context.Background(), f, "https://seller.example/.well-known/legal-context.json")
			var d *gate.Decline
			if !errors.As(err, &d) || d.Code != c.code || d.Detail == "" {
				t.Fatalf("got %v, want a decline %s", err, c.code)
			}
			if n.Load() != 1 {
				t.Fatalf("%d requests, want 1 (no redirect followed, no retry)", n.Load())
			}
		})
	}
}

func TestFetchRefusesWithoutRequesting(t *testing.T) {
	f, n := seller(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(good)) })
	for _, link := range []string{"http://seller.example", "seller.example", "https://user@seller.example/", "https://seller.example /"} {
		_, err := discovery.Fetch(context.Background(), f, link)
		var d *gate.Decline
		if !errors.As(err, &d) || d.Code != discovery.CodeUnfetchable {
			t.Errorf("%q: got %v, want discovery/unfetchable", link, err)
		}
	}
	if n.Load() != 0 {
		t.Fatalf("%d requests, want none", n.Load())
	}
}

func TestFetchDefaultClientRefusesLoopback(t *testing.T) {
	_, n := seller(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(good)) })
	_, err := discovery.Fetch(context.Background(), &atr.Fetcher{Timeout: time.Second}, "https://127.0.0.1/")
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != discovery.CodeUnfetchable || n.Load() != 0 {
		t.Fatalf("got %v after %d requests", err, n.Load())
	}
}

func TestDocumentURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://seller.example":                           "https://seller.example/.well-known/legal-context.json",
		"https://seller.example/":                          "https://seller.example/.well-known/legal-context.json",
		"https://seller.example:8443":                      "https://seller.example:8443/.well-known/legal-context.json",
		"https://seller.example/other.json":                "https://seller.example/other.json",
		"https://seller.example/?q=1":                      "https://seller.example/?q=1",
		"https://seller.example" + discovery.WellKnownPath: "https://seller.example" + discovery.WellKnownPath,
	} {
		if got := discovery.DocumentURL(in); got != want {
			t.Errorf("DocumentURL(%q) = %q, want %q", in, got, want)
		}
	}
}
