package solanarpc_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
)

const txid = "4H8LN9QqFzzxEJYvsvARSCa63p3uBJticDESYKSgEnSy4KqvjdSyREHRrSnRG2ufyVNWATCFpQdbtUHWcPiWZj8Z"

// A transaction the node holds at confirmed only is found at confirmed and
// not at finalized; one it does not hold is nil, nil.
func TestTransactionFromANode(t *testing.T) {
	wire := []byte{1, 2, 3}
	failure, err := jsonv.Parse([]byte(`{"InstructionError":[2,{"Custom":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	node := &solanarpc.Node{Txs: map[string]solanarpc.NodeTx{txid: {Slot: 7, Wire: wire, Err: failure}}}
	srv := httptest.NewServer(node)
	defer srv.Close()
	c := &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}
	l, err := c.Transaction(context.Background(), txid, "confirmed")
	if err != nil || l == nil || string(l.Wire) != string(wire) || l.Slot != 7 || jsonv.String(l.Err) != `{"InstructionError":[2,{"Custom":1}]}` {
		t.Fatalf("confirmed: %+v (%v)", l, err)
	}
	if l, err := c.Transaction(context.Background(), txid, "finalized"); l != nil || err != nil {
		t.Fatalf("finalized: %+v (%v)", l, err)
	}
	if l, err := c.Transaction(context.Background(), "1111", "confirmed"); l != nil || err != nil {
		t.Fatalf("unknown: %+v (%v)", l, err)
	}
	if node.Calls.Load() != 3 {
		t.Fatalf("%d calls", node.Calls.Load())
	}
}

// Hostile getTransaction answers are errors naming the method, never a
// transaction, and read through a status they are pending unreadable.
func TestHostileTransactionAnswers(t *testing.T) {
	meta := `"meta":{"err":null}`
	tx := `"transaction":["AQID","base64"]`
	for name, result := range map[string]string{
		"a string":              `"nope"`,
		"no meta":               `{"slot":1,` + tx + `}`,
		"no err":                `{"slot":1,` + tx + `,"meta":{}}`,
		"json encoding":         `{"slot":1,"transaction":{"message":{}},` + meta + `}`,
		"not base64":            `{"slot":1,"transaction":["@@@","base64"],` + meta + `}`,
		"negative slot":         `{"slot":-1,` + tx + `,` + meta + `}`,
		"loaded not keys":       `{"slot":1,` + tx + `,"meta":{"err":null,"loadedAddresses":{"writable":["0OIl"],"readonly":[]}}}`,
		"inner index too large": `{"slot":1,` + tx + `,"meta":{"err":null,"innerInstructions":[{"index":0,"instructions":[{"programIdIndex":256,"accounts":[],"data":""}]}]}}`,
		"inner data not base58": `{"slot":1,` + tx + `,"meta":{"err":null,"innerInstructions":[{"index":0,"instructions":[{"programIdIndex":1,"accounts":[0],"data":"0OIl"}]}]}}`,
		"inner not a list":      `{"slot":1,` + tx + `,"meta":{"err":null,"innerInstructions":{"index":0}}}`,
		"huge wire":             `{"slot":1,"transaction":["` + strings.Repeat("A", 8000) + `","base64"],` + meta + `}`,
		"many inner":            `{"slot":1,` + tx + `,"meta":{"err":null,"innerInstructions":[{"index":0,"instructions":[` + strings.Repeat(`{"programIdIndex":1,"accounts":[],"data":""},`, 5000) + `{"programIdIndex":1,"accounts":[],"data":""}]}]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","result":` + result + `,"id":1}`
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
			defer srv.Close()
			c := &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}
			if l, err := c.Transaction(context.Background(), txid, "finalized"); l != nil || err == nil || !strings.Contains(err.Error(), "getTransaction") {
				t.Fatalf("got %+v, %v", l, err)
			}
			r := solanarpc.Reader{Client: c, Of: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"}
			ref := jsonv.Obj("network", r.Of, "transaction", txid, "digest", "0x"+strings.Repeat("00", 32))
			if s := solana.TransferStatus(ref, r); s.State != solana.StatePending || s.Why != solana.WhyUnreadable {
				t.Fatalf("status %+v", s)
			}
		})
	}
}

// Hostile list answers (more entries than asked, wrong shapes) and a first
// available block that is no slot are errors naming the method, and a
// search over them is incomplete.
func TestHostileListAnswers(t *testing.T) {
	entry := `{"signature":"` + txid + `","slot":5,"memo":null}`
	for name, c := range map[string]struct{ first, list string }{
		"first not a slot":   {`"x"`, `[]`},
		"first negative":     {`-1`, `[]`},
		"list not a list":    {`1`, `{"signature":"x"}`},
		"list over limit":    {`1`, `[` + strings.Repeat(entry+`,`, 1000) + entry + `]`},
		"signature too long": {`1`, `[{"signature":"` + strings.Repeat("1", 91) + `","slot":5,"memo":null}]`},
		"no slot":            {`1`, `[{"signature":"` + txid + `","memo":null}]`},
		"memo a number":      {`1`, `[{"signature":"` + txid + `","slot":5,"memo":7}]`},
		"entry a string":     {`1`, `["` + txid + `"]`},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				result := c.list
				if b, _ := io.ReadAll(r.Body); strings.Contains(string(b), "getFirstAvailableBlock") {
					result = c.first
				}
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","result":` + result + `,"id":1}`))
			}))
			defer srv.Close()
			r := solanarpc.Reader{Client: &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}, Of: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"}
			_, errFirst := r.FirstAvailableBlock()
			_, errList := r.Signatures("9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu", "", 1000)
			if errFirst == nil && errList == nil {
				t.Fatal("no error")
			}
			ref := jsonv.Obj("network", r.Of, "feePayer", "9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu", "fromSlot", "1", "digest", "0x"+strings.Repeat("00", 32))
			var h atr.Hash
			if got := solana.Locate(ref, r, h, solana.TransferStatus); got.Complete || got.Found != "" {
				t.Fatalf("located %+v", got)
			}
		})
	}
}

// Hostile getAccountInfo answers are errors, and a nonce read over them
// says the nonce has not moved (nothing is concluded from a bad read).
func TestHostileAccountAnswers(t *testing.T) {
	for name, result := range map[string]string{
		"no context":      `{"value":null}`,
		"no value":        `{"context":{"slot":2000}}`,
		"negative slot":   `{"context":{"slot":-1},"value":null}`,
		"data not base64": `{"context":{"slot":2000},"value":{"owner":"11111111111111111111111111111111","data":["@@","base64"]}}`,
		"owner not a key": `{"context":{"slot":2000},"value":{"owner":"0OIl","data":["","base64"]}}`,
		"json data":       `{"context":{"slot":2000},"value":{"owner":"11111111111111111111111111111111","data":{"parsed":{}}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","result":` + result + `,"id":1}`
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
			defer srv.Close()
			r := solanarpc.Reader{Client: &solanarpc.Client{URL: srv.URL, HTTP: srv.Client()}, Of: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"}
			const account = "EdmxWPmx2WH6WgFfTdu9xfkYf3k1g5wD1zccTVySEEh1"
			if _, err := r.Account(account); err == nil || !strings.Contains(err.Error(), "getAccountInfo") {
				t.Fatalf("got %v", err)
			}
			ref := jsonv.Obj("network", r.Of, "fromSlot", "1000", "nonce", jsonv.Obj("account", account, "value", "5zFCiB2H53Up7CiARBgUrMqLanzAN9dYnyg8JxNNmH1H"))
			if solana.NonceMoved(ref, r) {
				t.Fatal("moved on a bad read")
			}
		})
	}
}
