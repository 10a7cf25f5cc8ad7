package mcpserver_test

import (
	"slices"
	"strings"
	"testing"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termsgate/termsgate/mcpserver"
)

const anvilAccount = "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"

func toolNames(tools []*gosdk.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return names
}

var (
	noSignerTools = []string{"atr_read", "atr_confirm", "atr_finish", "atr_check", "atr_channel_open", "atr_channel_record_charge"}
	signerTools   = []string{"atr_read", "atr_confirm", "atr_finish", "atr_check", "atr_channel_open", "atr_channel_record_charge", "atr_transact", "atr_agree", "atr_channel_within"}
)

// TestToolLists: the tools each configuration offers, over the built binary
// (stdio) and in process, and the instructions naming the signer's account.
func TestToolLists(t *testing.T) {
	f := loadFixture(t)
	cases := []struct {
		name        string
		session     func(t *testing.T) *gosdk.ClientSession
		tools       []string
		instruction string
	}{
		{"binary without a key", func(t *testing.T) *gosdk.ClientSession { return connectBinary(t, nil) },
			noSignerTools, "holds no wallet"},
		{"binary with --dev-key", func(t *testing.T) *gosdk.ClientSession {
			return connectBinary(t, nil, "--dev-key", "--max-amount", "1000000")
		},
			signerTools, anvilAccount},
		{"in process with a signer", func(t *testing.T) *gosdk.ClientSession {
			return connectHTTP(t, newServer(t, f, nil, mcpserver.Config{Signer: newSigner(t, f)}), nil)
		}, signerTools, anvilAccount},
		{"in process with an agreement signer only", func(t *testing.T) *gosdk.ClientSession {
			return connectHTTP(t, newServer(t, f, nil, mcpserver.Config{AgreementSigner: newSigner(t, f)}), nil)
		}, []string{"atr_read", "atr_confirm", "atr_finish", "atr_check", "atr_channel_open", "atr_channel_record_charge", "atr_agree"}, "pays agreement payments (atr_agree) with the account " + anvilAccount},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := c.session(t)
			tools := listTools(t, cs)
			if got := toolNames(tools); !slices.Equal(got, c.tools) {
				t.Fatalf("tools %v, want %v", got, c.tools)
			}
			if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, c.instruction) || !strings.Contains(ins, "Never sign anything for a seller without a successful atr_confirm") {
				t.Fatalf("instructions lack %q:\n%s", c.instruction, ins)
			}
			for _, tool := range tools {
				checkAnnotations(t, tool)
				if tool.OutputSchema == nil || tool.InputSchema == nil {
					t.Fatalf("%s publishes no input or output schema", tool.Name)
				}
			}
		})
	}
}

// checkAnnotations pins the hints of docs/protocol.md, "The MCP server".
func checkAnnotations(t *testing.T, tool *gosdk.Tool) {
	t.Helper()
	a := tool.Annotations
	if a == nil {
		t.Fatalf("%s has no annotations", tool.Name)
	}
	is := func(p *bool, want bool) bool { return p != nil && *p == want }
	switch tool.Name {
	case "atr_read", "atr_finish", "atr_check", "atr_channel_open", "atr_channel_record_charge":
		if !a.ReadOnlyHint || !is(a.OpenWorldHint, false) {
			t.Fatalf("%s: annotations %+v, want read-only, closed world", tool.Name, a)
		}
	case "atr_confirm":
		if !a.ReadOnlyHint || !is(a.OpenWorldHint, true) {
			t.Fatalf("%s: annotations %+v, want read-only, open world", tool.Name, a)
		}
	case "atr_transact", "atr_agree", "atr_channel_within":
		if a.ReadOnlyHint || !is(a.DestructiveHint, false) || a.IdempotentHint || !is(a.OpenWorldHint, true) {
			t.Fatalf("%s: annotations %+v, want not read-only, not destructive, not idempotent, open world", tool.Name, a)
		}
	default:
		t.Fatalf("unexpected tool %s", tool.Name)
	}
}
