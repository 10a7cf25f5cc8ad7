package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
)

// TestCancelLongCall: atr_confirm against a seller that never answers the
// ATR fetch reports progress when asked, and a cancelled call ends at once:
// the client's call returns and the server's fetch is aborted (the seller
// sees its request end), long before any timeout.
func TestCancelLongCall(t *testing.T) {
	f := loadFixture(t)
	transports := []struct {
		name    string
		connect func(*testing.T, *mcpserver.Server, *gosdk.ClientOptions) *gosdk.ClientSession
	}{
		{"http", func(t *testing.T, s *mcpserver.Server, o *gosdk.ClientOptions) *gosdk.ClientSession {
			return connectHTTP(t, s, o)
		}},
		{"stdio", func(t *testing.T, s *mcpserver.Server, o *gosdk.ClientOptions) *gosdk.ClientSession {
			return connectStdio(t, s, o)
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newSeller(t, f.A)
			s.setHang()
			progress := make(chan string, 8)
			cs := tr.connect(t, newServer(t, f, s, mcpserver.Config{}), &gosdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *gosdk.ProgressNotificationClientRequest) {
					if r.Params.ProgressToken == "confirm-1" {
						progress <- r.Params.Message
					}
				},
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			params := &gosdk.CallToolParams{Name: "atr_confirm", Arguments: json.RawMessage(jsonv.Marshal(f.confirmArgs()))}
			params.SetProgressToken("confirm-1")
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, params)
				errc <- err
			}()
			select {
			case msg := <-progress:
				if msg == "" {
					t.Fatal("a progress notification without a message")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no progress notification")
			}
			deadline := time.Now().Add(5 * time.Second)
			for s.fetches.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(2 * time.Millisecond)
			}
			cancelled := time.Now()
			cancel()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("the call ended with %v", err)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("the cancelled call did not end")
			}
			select {
			case <-s.released:
			case <-time.After(3 * time.Second):
				t.Fatal("the server's fetch went on after the cancellation")
			}
			if d := time.Since(cancelled); d > 3*time.Second {
				t.Fatalf("the fetch ended %v after the cancellation", d)
			}
		})
	}
}

// TestCancelledNotification: a bare notifications/cancelled (no connection
// closed, no client library) cancels the call it names, over stdio and
// over HTTP (where it comes in a POST of its own).
func TestCancelledNotification(t *testing.T) {
	f := loadFixture(t)
	callLine := `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"atr_confirm","arguments":` + string(jsonv.Marshal(f.confirmArgs())) + `}}`
	cancelled := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42,"reason":"the user gave up"}}`
	waitReleased := func(t *testing.T, s *seller) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for s.fetches.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}

	t.Run("stdio", func(t *testing.T) {
		s := newSeller(t, f.A)
		s.setHang()
		raw := rawStdio(t, newServer(t, f, s, mcpserver.Config{}))
		raw.send(callLine)
		waitReleased(t, s)
		raw.send(cancelled)
		select {
		case <-s.released:
		case <-time.After(3 * time.Second):
			t.Fatal("the fetch went on after notifications/cancelled")
		}
	})

	t.Run("http", func(t *testing.T) {
		s := newSeller(t, f.A)
		s.setHang()
		ts := httptest.NewServer(newServer(t, f, s, mcpserver.Config{}).HTTPHandler(mcpserver.HTTPOptions{}))
		defer ts.Close()
		h := http.Header{}
		h.Set("Mcp-Session-Id", post(t, ts.URL+"/mcp", initialize, nil).header.Get("Mcp-Session-Id"))
		post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
		done := make(chan struct{})
		go func() {
			defer close(done)
			post(t, ts.URL+"/mcp", callLine, h)
		}()
		waitReleased(t, s)
		if r := post(t, ts.URL+"/mcp", cancelled, h); r.status != http.StatusAccepted {
			t.Fatalf("notifications/cancelled: %d %s", r.status, r.body)
		}
		select {
		case <-s.released:
		case <-time.After(3 * time.Second):
			t.Fatal("the fetch went on after notifications/cancelled")
		}
		<-done
	})
}
