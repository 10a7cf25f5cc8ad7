package restjson_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/restjson"
)

// TestDo: what a node's answers become, over a loopback server.
func TestDo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.Write([]byte(`{"a":1}`))
		case "/accepted":
			w.WriteHeader(http.StatusAccepted)
			w.Write([]byte(`"0xab"`))
		case "/boom":
			http.Error(w, `{"message":"INVALID_SIGNATURE"}`, http.StatusBadRequest)
		case "/big":
			w.Write([]byte(`"` + strings.Repeat("x", 100) + `"`))
		case "/text":
			w.Write([]byte(`not json`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	c := restjson.Client{Base: srv.URL + "/", OK: []int{http.StatusAccepted}, Max: 64}
	if o, err := c.Object(ctx, "/ok"); err != nil || o.Len() != 1 {
		t.Fatalf("ok: %v %v", o, err)
	}
	if v, err := c.Do(ctx, http.MethodPost, "/accepted", "application/octet-stream", []byte{1}); err != nil || v != "0xab" {
		t.Fatalf("accepted: %v %v", v, err)
	}
	if v, err := c.Do(ctx, http.MethodGet, "/missing", "", nil); err != nil || v != nil {
		t.Fatalf("a 404: %v %v, want nil, nil", v, err)
	}
	var e *restjson.Error
	if _, err := c.Object(ctx, "/missing"); !errors.As(err, &e) || e.Status != http.StatusNotFound {
		t.Fatalf("Object of a 404: %v", err)
	}
	for path, want := range map[string]string{
		"/boom": "status 400 INVALID_SIGNATURE", "/big": "answer longer than 64 bytes", "/text": "answer is not JSON",
	} {
		if _, err := c.Do(ctx, http.MethodGet, path, "", nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if _, err := (restjson.Client{Base: srv.URL}).Do(ctx, http.MethodGet, "/accepted", "", nil); err == nil {
		t.Error("a 202 read as an answer where OK does not list it")
	}
}

func TestU64(t *testing.T) {
	for text, want := range map[string]bool{`"0"`: true, `"18446744073709551615"`: true, `"18446744073709551616"`: false,
		`"01"`: false, `""`: false, `7`: true, `-1`: false, `1.5`: false} {
		v, err := jsonv.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := restjson.U64(v); ok != want {
			t.Errorf("U64(%s) = %v, want %v", text, ok, want)
		}
	}
}
