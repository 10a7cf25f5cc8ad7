package vectors_test

// The Solana settlement reads' rows run against a loopback JSON-RPC node
// (solanarpc.Node) answering getTransaction in the documented shape, read
// through solanarpc's client: the status functions see what a node sends.

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
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
