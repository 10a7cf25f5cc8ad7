package vectors_test

// The XRPL settlement reads' rows run against a loopback rippled stand-in
// (xrplrpc.Ledger) answering tx and ledger in rippled's documented shapes,
// read through xrplrpc's client: the status functions see what a node
// sends, and each row counts the node's calls.

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/rails/xrpl/xrplrpc"
)

// xrplNode starts a loopback rippled for network; broken makes every call
// answer rippled's noNetwork error, as a node out of sync does.
func xrplNode(t *testing.T, network string, broken bool) (*xrplrpc.Ledger, xrplrpc.Reader) {
	t.Helper()
	node := &xrplrpc.Ledger{}
	var h http.Handler = node
	if broken {
		h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			node.Calls.Add(1)
			_, _ = w.Write([]byte(`{"result":{"error":"noNetwork","error_code":17,"error_message":"Not synced to the network.","status":"error"}}`))
		})
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return node, xrplrpc.Reader{Client: &xrplrpc.Client{URL: srv.URL, HTTP: srv.Client()}, Of: network}
}

// landedTx is a row's landed transaction {validated, result, ledgerIndex,
// transactionType, invoiceId?, deletedChannels?} as the node holds it.
func landedTx(t *testing.T, v jsonv.Value) xrplrpc.LedgerTx {
	t.Helper()
	o, ok := jsonv.AsObject(v)
	if !ok {
		t.Fatalf("landed %s", jsonv.String(v))
	}
	tx := jsonv.Obj("TransactionType", str(t, o, "transactionType"))
	if inv, ok := o.GetString("invoiceId"); ok {
		tx.Set("InvoiceID", inv)
	}
	idx, _ := jsonv.AsSafeInt(get(t, o, "ledgerIndex"))
	l := xrplrpc.LedgerTx{TxJSON: tx, Validated: get(t, o, "validated") == true, Result: str(t, o, "result"), LedgerIndex: uint32(idx)}
	if dv, has := o.Get("deletedChannels"); has {
		for _, c := range dv.([]jsonv.Value) {
			l.DeletedChannels = append(l.DeletedChannels, c.(string))
		}
	}
	return l
}

func wantCalls(t *testing.T, node *xrplrpc.Ledger, lo, hi int64) {
	t.Helper()
	if c := node.Calls.Load(); c < lo || c > hi {
		t.Fatalf("%d node calls, want %d…%d", c, lo, hi)
	}
}

func wantXRPLStatus(t *testing.T, got xrpl.Status, want jsonv.Value) {
	t.Helper()
	if g, w := jsonv.String(got.JSON()), jsonv.String(want); g != w {
		t.Fatalf("status %s, want %s", g, w)
	}
}

// xrplStatusRows runs x402-exact-xrpl.json's V4 x402Row, V5 and V6.
func xrplStatusRows(t *testing.T, f *jsonv.Object) {
	t.Run("V4/x402Row", func(t *testing.T) {
		row := obj(t, f, "V4", "x402Row")
		ref := obj(t, row, "ref")
		node, reader := xrplNode(t, str(t, ref, "network"), false)
		node.Hold(str(t, ref, "transaction"), landedTx(t, get(t, row, "landed")))
		wantXRPLStatus(t, xrpl.ChargeStatus(ref, reader), get(t, row, "expect"))
		wantCalls(t, node, 1, 1)
	})
	t.Run("V5", func(t *testing.T) {
		ref := obj(t, f, "V5", "ref")
		for _, rv := range get(t, f, "V5", "rows").([]jsonv.Value) {
			r := rv.(*jsonv.Object)
			t.Run(str(t, r, "case"), func(t *testing.T) {
				txv := get(t, r, "tx")
				node, reader := xrplNode(t, str(t, ref, "network"), txv == "reader-error")
				if o, ok := jsonv.AsObject(txv); ok {
					if o.Has("notFound") {
						v, _ := jsonv.AsSafeInt(get(t, r, "validated"))
						node.Validated = uint32(v)
						if get(t, o, "searchedAll") != true {
							node.HistoryFrom = 1 << 31 // the node lacks the range's ledgers
						}
					} else {
						node.Hold(str(t, ref, "transaction"), landedTx(t, o))
					}
				}
				wantXRPLStatus(t, xrpl.ChargeStatus(ref, reader), get(t, r, "expect"))
				wantCalls(t, node, 1, 2)
			})
		}
	})
	t.Run("V6", func(t *testing.T) {
		// The node holds the Payment the facilitator names, validated; the
		// read is by V2's hash, which no ledger up to the validated 990
		// holds yet.
		v6 := obj(t, f, "V6")
		ref := obj(t, v6, "ref")
		node, reader := xrplNode(t, str(t, ref, "network"), false)
		node.Validated = 990
		node.Hold(str(t, v6, "named"), xrplrpc.LedgerTx{
			TxJSON:    jsonv.Obj("TransactionType", "Payment", "InvoiceID", str(t, ref, "expect")),
			Validated: true, Result: "tesSUCCESS", LedgerIndex: 985,
		})
		wantXRPLStatus(t, xrpl.ChargeStatus(ref, reader), get(t, v6, "expect"))
		wantCalls(t, node, 1, 1)
		if node.TxCalls.Load() != 1 {
			t.Fatalf("%d tx reads", node.TxCalls.Load())
		}
	})
}

// xrplRecoverRow is x402-exact-xrpl.json's agreedRefusals "recover" row: a
// failing node, and nodes whose answers are malformed, are xrpl/unreadable.
func xrplRecoverRow(t *testing.T, f *jsonv.Object, expect string) {
	ref := jsonv.Obj("network", "xrpl:1", "transaction", str(t, f, "V2", "expectReference", "transaction"))
	node, reader := xrplNode(t, "xrpl:1", true)
	_, err := xrpl.InvoiceOf(ref, reader)
	wantRefusal(t, err, expect)
	wantCalls(t, node, 1, 1)
	hash := str(t, ref, "transaction")
	for name, answer := range map[string]string{
		"not JSON":           `{"result":`,
		"no result":          `{"status":"success"}`,
		"tx_json not object": `{"result":{"hash":"` + hash + `","tx_json":"Payment","meta":{"TransactionResult":"tesSUCCESS"},"validated":true,"ledger_index":990,"status":"success"}}`,
		"validated a string": `{"result":{"hash":"` + hash + `","tx_json":{"TransactionType":"Payment"},"meta":{"TransactionResult":"tesSUCCESS"},"validated":"true","ledger_index":990,"status":"success"}}`,
		"another hash":       `{"result":{"hash":"` + strings.Repeat("0", 64) + `","tx_json":{"TransactionType":"Payment"},"meta":{"TransactionResult":"tesSUCCESS"},"validated":true,"ledger_index":990,"status":"success"}}`,
		"no meta":            `{"result":{"hash":"` + hash + `","tx_json":{"TransactionType":"Payment"},"validated":true,"ledger_index":990,"status":"success"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				calls++
				_, _ = w.Write([]byte(answer))
			}))
			t.Cleanup(srv.Close)
			r := xrplrpc.Reader{Client: &xrplrpc.Client{URL: srv.URL, HTTP: srv.Client()}, Of: "xrpl:1"}
			_, err := xrpl.InvoiceOf(ref, r)
			wantRefusal(t, err, expect)
			if calls != 1 {
				t.Fatalf("%d calls", calls)
			}
		})
	}
	t.Run("control", func(t *testing.T) {
		// The same read of a landed Payment recovers its InvoiceID.
		node, reader := xrplNode(t, "xrpl:1", false)
		node.Hold(hash, xrplrpc.LedgerTx{TxJSON: jsonv.Obj("TransactionType", "Payment", "InvoiceID", str(t, f, "V3", "invoiceId")),
			Validated: true, Result: "tesSUCCESS", LedgerIndex: 990})
		h, err := xrpl.InvoiceOf(ref, reader)
		if err != nil || h != str(t, f, "fixed", "H") {
			t.Fatalf("recovered %s, %v", h, err)
		}
	})
}

// xrplFetchPresentedRow is one of mpp-charge-xrpl.json's agreedRefusals
// "fetchPresented …" rows (2–5): a pushed credential naming V3's
// transaction, read from a loopback node that fails, lacks it, holds it
// unvalidated, or holds it validated with the row's result.
func xrplFetchPresentedRow(t *testing.T, i int, row *jsonv.Object, placed *jsonv.Object, blob, wantH string) {
	tx, err := xrpl.DecodePresented(blob)
	if err != nil {
		t.Fatal(err)
	}
	cred := jsonv.Obj("challenge", placed.Clone(), "payload", jsonv.Obj("type", "hash", "hash", strings.ToLower(tx.Hash)))
	landed := xrplrpc.LedgerTx{TxJSON: tx.Fields.JSON(), Blob: blob, Validated: true, Result: "tesSUCCESS", LedgerIndex: 990}
	node, reader := xrplNode(t, "xrpl:1", i == 2)
	switch i {
	case 3:
	case 4:
		landed.Validated, landed.LedgerIndex = false, 0
		node.Hold(tx.Hash, landed)
	case 5:
		landed.Result = str(t, row, "result")
		node.Hold(tx.Hash, landed)
	}
	_, err = xrpl.Charge{}.FetchPresented(cred, reader)
	wantRefusal(t, err, str(t, row, "expect"))
	wantCalls(t, node, 1, 1)
	if i == 3 {
		// Found, but its blob is not: not found as well.
		node.Hold(tx.Hash, xrplrpc.LedgerTx{TxJSON: tx.Fields.JSON(), Validated: true, Result: "tesSUCCESS", LedgerIndex: 990})
		_, err = xrpl.Charge{}.FetchPresented(cred, reader)
		wantRefusal(t, err, str(t, row, "expect"))
		wantCalls(t, node, 3, 3)
		// The control: the blob held too, the credential comes back with it.
		node.Hold(tx.Hash, landed)
		got, err := xrpl.Charge{}.FetchPresented(cred, reader)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := jsonv.AsObject(got); str(t, b, "payload", "blob") != blob {
			t.Fatalf("fetched %s", jsonv.String(got))
		}
		if h, err := (xrpl.Charge{}).Bound(got); err != nil || h != wantH {
			t.Fatalf("bound %s, %v", h, err)
		}
	}
}

// xrplSessionStatusRows runs XS4's open and close rows over XS2's opening.
func xrplSessionStatusRows(t *testing.T, f *jsonv.Object) {
	xs2 := obj(t, f, "XS2")
	open := jsonv.Obj("network", "xrpl:1", "transaction", str(t, xs2, "expectHash"),
		"lastLedgerSequence", get(t, xs2, "lastLedgerSequence"), "fromLedger", 980)
	for _, rv := range get(t, f, "XS4", "rows").([]jsonv.Value) {
		r := rv.(*jsonv.Object)
		t.Run(str(t, r, "case"), func(t *testing.T) {
			node, reader := xrplNode(t, "xrpl:1", false)
			node.Hold(str(t, xs2, "expectHash"), landedTx(t, get(t, r, "landed")))
			wantXRPLStatus(t, xrpl.OpenStatus(open, reader), get(t, r, "expect"))
			wantCalls(t, node, 1, 1)
		})
	}
	closeTx := strings.Repeat("C1", 32)
	closeRef := jsonv.Obj("network", "xrpl:1", "channel", str(t, xs2, "expectChannel"), "transaction", closeTx)
	for _, rv := range get(t, f, "XS4", "closeRows").([]jsonv.Value) {
		r := rv.(*jsonv.Object)
		t.Run("close/"+str(t, r, "case"), func(t *testing.T) {
			node, reader := xrplNode(t, "xrpl:1", false)
			node.Hold(closeTx, landedTx(t, get(t, r, "landed")))
			wantXRPLStatus(t, xrpl.CloseStatus(closeRef, reader), get(t, r, "expect"))
			wantCalls(t, node, 1, 1)
		})
	}
	t.Run("close/not-found", func(t *testing.T) {
		node, reader := xrplNode(t, "xrpl:1", false)
		wantXRPLStatus(t, xrpl.CloseStatus(closeRef, reader), jsonv.Obj("state", "pending", "why", "not-found"))
		wantCalls(t, node, 1, 1)
	})
	t.Run("wrong-reader", func(t *testing.T) {
		node, reader := xrplNode(t, "xrpl:0", false)
		wantXRPLStatus(t, xrpl.OpenStatus(open, reader), jsonv.Obj("state", "pending", "why", "unreadable"))
		wantCalls(t, node, 0, 0)
	})
}
