package mcpserver_test

import (
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/ledger"
	"github.com/termsgate/termsgate/mcpserver"
	"github.com/termsgate/termsgate/pay"
)

// TestBudgetSurvivesRestart: a server whose policy keeps its budget in a
// ledger store (termsgate mcp --state) starts, after a restart, from what
// was spent before: the budget of one payment, spent by the first server,
// refuses the second server's payment unsigned.
func TestBudgetSurvivesRestart(t *testing.T) {
	f := loadFixture(t)
	s := newSeller(t, f.A)
	path := filepath.Join(t.TempDir(), "state.db")
	start := func() (*countingSigner, func(tool string, args *jsonv.Object) result, func()) {
		store, err := ledger.OpenFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		policy, err := pay.NewPolicy(pay.PolicyConfig{
			Now:    func() time.Time { return f.now },
			Limits: []pay.Limit{{Network: "eip155:84532", MaxAmount: big.NewInt(10000), Budget: big.NewInt(10000)}},
			Budget: ledger.Budget(store),
		})
		if err != nil {
			t.Fatal(err)
		}
		sg := newSigner(t, f)
		cs := connectStdio(t, newServer(t, f, s, mcpserver.Config{Signer: sg, Policy: policy}), nil)
		listTools(t, cs)
		return sg, func(tool string, args *jsonv.Object) result { return call(t, cs, tool, args) }, func() { cs.Close(); store.Close() }
	}

	sg, callTool, stop := start()
	wantOK(t, callTool("atr_transact", jsonv.Obj("pairing", pairing, "document", f.D)))
	if sg.calls.Load() != 1 {
		t.Fatalf("%d signer calls", sg.calls.Load())
	}
	stop()

	sg, callTool, stop = start()
	defer stop()
	r := callTool("atr_transact", jsonv.Obj("pairing", pairing, "document", f.D))
	if d := strAt(t, r.value, "decline", "detail"); !strings.HasPrefix(d, pay.DetailBudgetExhausted+": ") || sg.calls.Load() != 0 {
		t.Fatalf("after the restart: detail %q, %d signer calls; want %s and none", d, sg.calls.Load(), pay.DetailBudgetExhausted)
	}
}
