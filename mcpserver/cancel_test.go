package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/internal/jsonv"
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
