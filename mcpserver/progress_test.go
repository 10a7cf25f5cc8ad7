package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/mcpserver"
)

// TestTransactProgressStartsAtOnce: atr_transact reports its first step
// (progress 1, the fetch and hash check it is about to run) before anything
// slow, so that an agent hears that the call runs while a chain node takes
// its time to give the buyer's inputs, or the seller its time to serve the
// ATR. Nothing is signed while it waits.
func TestTransactProgressStartsAtOnce(t *testing.T) {
	f := loadFixture(t)
	for _, c := range []struct {
		name     string
		hangATR  bool
		provider func(ctx context.Context, pairing string, doc jsonv.Value, account string) (*jsonv.Object, error)
	}{
		{"slow inputs", false, func(ctx context.Context, _ string, _ jsonv.Value, _ string) (*jsonv.Object, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}},
		{"slow fetch", true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSeller(t, f.A)
			if c.hangATR {
				s.setHang()
			}
			sg := newSigner(t, f)
			type note struct {
				n   float64
				msg string
			}
			notes := make(chan note, 8)
			cs := connectHTTP(t, newServer(t, f, s, mcpserver.Config{Signer: sg, InputsFor: c.provider}), &gosdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *gosdk.ProgressNotificationClientRequest) {
					if r.Params.ProgressToken == "transact-1" {
						notes <- note{r.Params.Progress, r.Params.Message}
					}
				},
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			params := &gosdk.CallToolParams{Name: "atr_transact", Arguments: json.RawMessage(jsonv.Marshal(jsonv.Obj("pairing", pairing, "document", f.D)))}
			params.SetProgressToken("transact-1")
			done := make(chan struct{})
			go func() {
				cs.CallTool(ctx, params)
				close(done)
			}()
			select {
			case got := <-notes:
				if got.n != 1 || !strings.Contains(got.msg, "Fetching the ATR") {
					t.Fatalf("first progress %v %q; want 1, the fetch", got.n, got.msg)
				}
			case <-done:
				t.Fatal("the call ended before any progress")
			case <-time.After(5 * time.Second):
				t.Fatal("no progress while the call waits")
			}
			if c.hangATR {
				select {
				case got := <-notes:
					if !strings.HasPrefix(got.msg, "fetching the ATR at https://") {
						t.Fatalf("second progress %q; want the gate's fetch", got.msg)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("no progress from the gate's fetch while it hangs")
				}
			}
			cancel()
			<-done
			if n := sg.calls.Load(); n != 0 {
				t.Fatalf("the signer was called %d times", n)
			}
		})
	}
}
