package vectors_test

// The Solana settlement reads' rows run against a loopback JSON-RPC node
// (solanarpc.Node) answering getTransaction in the documented shape, read
// through solanarpc's client: the status functions see what a node sends.

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
)

// svmNode starts a loopback node for network; broken makes every call a
// JSON-RPC error, as a node that is behind answers.
func svmNode(t *testing.T, network string, broken bool) (*solanarpc.Node, solanarpc.Reader) {
	t.Helper()
	node := &solanarpc.Node{Txs: map[string]solanarpc.NodeTx{}}
	var h http.Handler = node
	if broken {
		h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			node.Calls.Add(1)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is behind by 42 slots"},"id":1}`))
		})
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return node, solanarpc.Reader{Client: &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}, Of: network}
}

func wireBytes(t *testing.T, b64 string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// svmStatusRows runs status rows {at, err?, expect}: the node holds wire
// under ref's transaction at "finalized", only at "confirmed", not at all
// (at null), or fails every read ("reader-error"). Each row reads through
// status and must give expect exactly, in at most two calls.
func svmStatusRows(t *testing.T, rows jsonv.Value, ref *jsonv.Object, wire []byte, status func(*jsonv.Object, solana.Reader) solana.Status) {
	t.Helper()
	network, txid := str(t, ref, "network"), str(t, ref, "transaction")
	list, ok := jsonv.AsArray(rows)
	if !ok || len(list) == 0 {
		t.Fatal("no rows")
	}
	for i, rv := range list {
		r, _ := jsonv.AsObject(rv)
		at, _ := r.Get("at")
		name := fmt.Sprintf("%d-%v", i, at)
		if at == nil {
			name = fmt.Sprintf("%d-null", i)
		}
		if e, _ := r.Get("err"); e != nil {
			name += "-err"
		}
		t.Run(name, func(t *testing.T) {
			node, reader := svmNode(t, network, at == "reader-error")
			errv, _ := r.Get("err")
			switch at {
			case "finalized", "confirmed":
				node.Txs[txid] = solanarpc.NodeTx{Slot: 1000050, Wire: wire, Err: errv, Finalized: at == "finalized"}
			case nil, "reader-error":
			default:
				t.Fatalf("unknown at %v", at)
			}
			got := status(ref, reader)
			if g, w := jsonv.String(got.JSON()), jsonv.String(get(t, r, "expect")); g != w {
				t.Fatalf("status %s, want %s", g, w)
			}
			if c := node.Calls.Load(); c < 1 || c > 2 {
				t.Fatalf("%d calls", c)
			}
		})
	}
}

// fakeSignature is a distinct, well-formed signature for list entries the
// rows describe but do not spell out.
func fakeSignature(tag string, i int) string {
	d := sha256.Sum256([]byte(fmt.Sprintf("%s %d", tag, i)))
	e := sha256.Sum256(d[:])
	return solana.Base58(append(d[:], e[:]...))
}

// locateNode is a node for a search: the fee payer's list and the lowest
// slot it holds.
func locateNode(t *testing.T, network, address string, first uint64, list []solanarpc.NodeListed) (*solanarpc.Node, solanarpc.Reader) {
	t.Helper()
	node, reader := svmNode(t, network, false)
	node.FirstAvailable = first
	node.Lists = map[string][]solanarpc.NodeListed{address: list}
	return node, reader
}

// scriptedNode answers as a node does, from a script: each getTransaction
// the next entry of txs (the wire, or null), getAccountInfo one account
// (nil: none; failing: a node error) at slot, getFirstAvailableBlock first.
// It counts the reads of each.
type scriptedNode struct {
	mu                    sync.Mutex
	wire                  []byte
	txs                   []bool // true: the wire; false: null
	owner                 string
	data                  []byte // nil with owner "": no account
	failing               bool
	slot, first           uint64
	txReads, accountReads int
}

func (n *scriptedNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.mu.Lock()
	defer n.mu.Unlock()
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	v, _ := jsonv.Parse(raw)
	o, _ := jsonv.AsObject(v)
	method, _ := o.GetString("method")
	answer := func(result jsonv.Value) {
		_, _ = w.Write(jsonv.Marshal(jsonv.Obj("jsonrpc", "2.0", "result", result, "id", 1)))
	}
	switch method {
	case "getTransaction":
		landed := n.txReads < len(n.txs) && n.txs[n.txReads]
		n.txReads++
		if !landed {
			answer(nil)
			return
		}
		answer(jsonv.Obj("slot", n.slot, "transaction", []jsonv.Value{base64.StdEncoding.EncodeToString(n.wire), "base64"},
			"meta", jsonv.Obj("err", nil, "innerInstructions", []jsonv.Value{})))
	case "getAccountInfo":
		n.accountReads++
		if n.failing {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is behind"},"id":1}`))
			return
		}
		var value jsonv.Value
		if n.owner != "" {
			value = jsonv.Obj("data", []jsonv.Value{base64.StdEncoding.EncodeToString(n.data), "base64"}, "executable", false,
				"lamports", 1447680, "owner", n.owner, "rentEpoch", 18446744073709551615.0, "space", len(n.data))
		}
		answer(jsonv.Obj("context", jsonv.Obj("apiVersion", "2.2.0", "slot", n.slot), "value", value))
	case "getFirstAvailableBlock":
		answer(n.first)
	default:
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}`))
	}
}

func (n *scriptedNode) reader(t *testing.T, network string) solanarpc.Reader {
	srv := httptest.NewServer(n)
	t.Cleanup(srv.Close)
	return solanarpc.Reader{Client: &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}, Of: network}
}
