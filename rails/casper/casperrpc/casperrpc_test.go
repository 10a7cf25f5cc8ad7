package casperrpc

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/casper"
)

func start(t *testing.T, h http.Handler) *Client {
	t.Helper()
	srv, err := loopback.Start(h, "node.casper.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &Client{URL: "https://node.casper.example/rpc", Net: "casper:casper-test", HTTP: srv.Client()}
}

const (
	asset = "17be3c3dc67ddf193b8f64bfc2421826407470f88b3dab68184ebffebdd57f59"
	from  = "0076d080b4e769f0b29c77fc6472d6e425710840c2f46a4506e5544d2ce34f43a3"
	to    = "007a9f9948cb7b258d18f3c5e85780372971b5b40096e724c9e596c284a01445fa"
)

func reference(t *testing.T, h atr.Hash) casper.Reference {
	d, _ := casper.IDDigest(from, to, big.NewInt(7500000000))
	return casper.Reference{Network: "casper:casper-test", Asset: asset, IDDigest: d, SettleBy: 1790000060, H: h}
}

// The signer's chainspec read and the seller's status and recovery, each
// against a node answering in a Casper node's shapes.
func TestReadsFromTheNode(t *testing.T) {
	node := &Node{}
	c := start(t, node)
	ctx := context.Background()
	if name, err := c.ChainspecName(ctx); err != nil || name != "casper-test" {
		t.Fatalf("chainspec %q, %v", name, err)
	}
	h := atr.Sum([]byte("abc"))
	height := uint64(4242)
	e := Execution{PackageHash: asset, EntryPoint: "transfer_with_authorization", From: from, To: to, Value: big.NewInt(7500000000),
		Nonce: h, BlockHeight: &height}
	ref := reference(t, h)
	ref.Transaction = node.Execute(e)
	before := node.Calls.Load()
	if st := casper.PaymentStatus(ctx, ref, c); st.State != "settled" || st.Finality != "finalized" || st.BlockHeight != 4242 {
		t.Fatalf("status %+v", st)
	}
	if node.Calls.Load()-before != 1 {
		t.Fatalf("%d calls for one status", node.Calls.Load()-before)
	}
	if got, err := casper.Recover(ctx, ref.Network, asset, ref.Transaction, c); err != nil || got != h {
		t.Fatalf("recover %v, %v", got, err)
	}
	// Unknown: asked as a Version1 transaction, then as a Deploy.
	before = node.Calls.Load()
	unknown := ref
	unknown.Transaction = strings.Repeat("ab", 32)
	if st := casper.PaymentStatus(ctx, unknown, c); st.Why != "not-found" || node.Calls.Load()-before != 2 {
		t.Fatalf("unknown: %+v (%d calls)", st, node.Calls.Load()-before)
	}
	// Not yet executed, and reverted.
	e.BlockHeight = nil
	pending := ref
	pending.Transaction = node.Execute(e)
	if st := casper.PaymentStatus(ctx, pending, c); st.Why != "not-executed" {
		t.Fatalf("pending %+v", st)
	}
	e.BlockHeight, e.ErrorMessage = &height, "User error: 37000"
	reverted := ref
	reverted.Transaction = node.Execute(e)
	if st := casper.PaymentStatus(ctx, reverted, c); st.State != "failed" || st.Why != "reverted" {
		t.Fatalf("reverted %+v", st)
	}
	// Another package's call with the same arguments is not the payment.
	e.ErrorMessage, e.PackageHash = "", strings.Repeat("00", 32)
	plant := ref
	plant.Transaction = node.Execute(e)
	if st := casper.PaymentStatus(ctx, plant, c); st.Why != "not-this-instrument" {
		t.Fatalf("plant %+v", st)
	}
}

// A Deploy calling the package by hash reads as the same call; a nonce as
// List<U8> reads too; a call by contract name has no package hash.
func TestReadsADeploy(t *testing.T) {
	h := atr.Sum([]byte("abc"))
	deploy := func(session string) jsonv.Value {
		v, err := jsonv.Parse([]byte(`{"api_version":"2.0.0","transaction":{"Deploy":{"hash":"` + strings.Repeat("cd", 32) + `","header":{"chain_name":"casper-test"},` +
			`"payment":{"ModuleBytes":{"module_bytes":"","args":[]}},"session":` + session + `,"approvals":[]}},` +
			`"execution_info":{"block_hash":"` + strings.Repeat("00", 32) + `","block_height":7,"execution_result":{"Version1":{"Success":{"effect":{},"transfers":[],"cost":"1"}}}}}`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	args := `[["from",{"cl_type":"Key","bytes":"` + from + `","parsed":null}],["to",{"cl_type":"Key","bytes":"` + to + `","parsed":null}],` +
		`["value",{"cl_type":"U256","bytes":"0500eb08bf01","parsed":"7500000000"}],` +
		`["nonce",{"cl_type":{"List":"U8"},"bytes":"20000000` + h.String()[2:] + `","parsed":null}]]`
	c, err := ReadTransaction(deploy(`{"StoredVersionedContractByHash":{"hash":"` + asset + `","version":null,"entry_point":"receive_with_authorization","args":` + args + `}}`))
	if err != nil || !c.Executed || c.HasError || c.BlockHeight != 7 || c.PackageHash != asset || c.EntryPoint != "receive_with_authorization" ||
		c.From != from || c.To != to || c.Value.String() != "7500000000" || atr.Hash(c.Nonce) != h {
		t.Fatalf("call %+v, %v", c, err)
	}
	c, err = ReadTransaction(deploy(`{"StoredContractByName":{"name":"token","entry_point":"transfer_with_authorization","args":` + args + `}}`))
	if err != nil || c.PackageHash != "" {
		t.Fatalf("by name: %+v, %v", c, err)
	}
}

func TestNodeFailuresAreErrors(t *testing.T) {
	var e *Error
	for name, body := range map[string]string{
		"not JSON":     `{`,
		"no result":    `{"jsonrpc":"2.0","id":1}`,
		"an error":     `{"jsonrpc":"2.0","id":1,"error":{"code":-32018,"message":"Node request failure"}}`,
		"no execution": `{"jsonrpc":"2.0","id":1,"result":{"transaction":{"Version1":{}},"execution_info":{"execution_result":{"Version2":{}}}}}`,
		"no kind":      `{"jsonrpc":"2.0","id":1,"result":{"transaction":{"Version3":{}}}}`,
	} {
		c := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
		if _, err := c.Transaction(context.Background(), strings.Repeat("ab", 32)); !errors.As(err, &e) {
			t.Fatalf("%s: %v", name, err)
		}
		if st := casper.PaymentStatus(context.Background(), casper.Reference{Network: c.Net, Transaction: strings.Repeat("ab", 32)}, c); st.Why != "unreadable" {
			t.Fatalf("%s: status %+v", name, st)
		}
	}
	c := start(t, &Node{Chainspec: "Casper Test"})
	if _, err := c.ChainspecName(context.Background()); !errors.As(err, &e) {
		t.Fatalf("a chainspec name no network has: %v", err)
	}
}

// FuzzNodeAnswers: any bytes as the node's answer end every reader in a
// value or an error, never a panic.
func FuzzNodeAnswers(f *testing.F) {
	node := &Node{}
	height := uint64(1)
	hash := node.Execute(Execution{PackageHash: asset, EntryPoint: "transfer_with_authorization", From: from, To: to, Value: big.NewInt(1), BlockHeight: &height})
	rec := &rpcanswer.Recorder{Handler: node}
	c := &Client{URL: "http://node.invalid/rpc", Net: "casper:casper-test", HTTP: &http.Client{Transport: rec}}
	ctx := context.Background()
	_, _ = c.ChainspecName(ctx)
	_, _ = c.Transaction(ctx, hash)
	for _, a := range rec.Answers {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		cost.Bound(t, len(body), func() {
			c := &Client{URL: "http://node.invalid/rpc", Net: "casper:casper-test", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}
			_, _ = c.ChainspecName(ctx)
			_, _ = c.Transaction(ctx, hash)
		})
	})
}
