package main

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/loopback"
)

// discoverSeller serves body at every path on loopback TLS and points the
// commands' client at it.
func discoverSeller(t *testing.T, h http.HandlerFunc) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	srv, err := loopback.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1); h(w, r) }), "seller.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	old := stepsClient
	stepsClient = func(bool) atr.Doer { return srv.Client() }
	t.Cleanup(func() { stepsClient = old })
	return &n
}

func TestDiscoverPrintsTheDocument(t *testing.T) {
	var path string
	n := discoverSeller(t, func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path
		_, _ = w.Write([]byte(`{"x":1,"atrHash":"0xBA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD","terms":"https://seller.example/t.md"}`))
	})
	code, out, errs := runCLI(t, "", "discover", "https://seller.example")
	if code != exitOK || n.Load() != 1 || path != "/.well-known/legal-context.json" {
		t.Fatalf("exit %d after %d requests for %q: %s %s", code, n.Load(), path, out, errs)
	}
	for _, want := range []string{
		`"url":"https://seller.example/.well-known/legal-context.json"`,
		`"document":{"terms":"https://seller.example/t.md","atrHash":"0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}`,
		`"ignored":["x"]`, `"etag":"\"`, `"bytes":124`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s: %s", want, out)
		}
	}
}

func TestDiscoverDeclines(t *testing.T) {
	n := discoverSeller(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "https://seller.example/other", http.StatusFound)
		case "/http-terms":
			_, _ = w.Write([]byte(`{"terms":"http://seller.example/t.md"}`))
		default:
			_, _ = w.Write([]byte(`{"terms":"https://seller.example/t.md","x":"` + strings.Repeat("a", 70000) + `"}`))
		}
	})
	for path, want := range map[string]string{
		"/redirect":   `"code":"discovery/unfetchable"`,
		"/http-terms": `"code":"discovery/terms-not-https"`,
		"/large":      `"code":"discovery/too-large"`,
	} {
		code, out, errs := runCLI(t, "", "discover", "https://seller.example"+path)
		if code != exitDeclined || !strings.Contains(out, want) || !strings.Contains(errs, "declined") {
			t.Errorf("%s: exit %d, out %s, err %s", path, code, out, errs)
		}
	}
	if n.Load() != 3 {
		t.Fatalf("%d requests, want 3", n.Load())
	}
	if code, _, _ := runCLI(t, "", "discover", "http://seller.example"); code != exitDeclined || n.Load() != 3 {
		t.Fatalf("an http link: exit %d after %d requests", code, n.Load())
	}
	if code, _, _ := runCLI(t, "", "discover"); code != exitUsage {
		t.Fatalf("no argument: exit %d", code)
	}
}
