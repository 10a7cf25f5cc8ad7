package xrplrpc_test

import (
	"context"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/rpcanswer"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/rails/xrpl/xrplrpc"
)

// FuzzNodeAnswers: whatever rippled answers (any bytes as the JSON-RPC
// response body) ends fee, account_info, ledger_current and the inputs of
// each pairing built from them in a value or an error, never a panic,
// within the fuzz bound. An accepted fee is 1 to MaxFee drops, and an
// accepted sequence or ledger index is the integer the answer said.
func FuzzNodeAnswers(f *testing.F) {
	const payer = "r3sNTMefq5gsRumMYsNznnX6yzzxVH6dTC"
	rec := &rpcanswer.Recorder{Handler: &xrplrpc.Ledger{Current: 95000000, BaseFee: 10, OpenFee: 12, Accounts: map[string]uint32{payer: 4711}}}
	c := &xrplrpc.Client{URL: "http://rippled.invalid/", HTTP: &http.Client{Transport: rec}}
	if _, err := c.Inputs(context.Background(), xrpl.ExactID, payer, nil); err != nil || len(rec.Answers) != 3 {
		f.Fatalf("the loopback ledger's inputs: %v (%d answers)", err, len(rec.Answers))
	}
	_, _ = c.Sequence(context.Background(), "rpjfAeE3DeeHPFnN2PgGFW5YxnZFAjrEyN") // actNotFound
	for _, a := range rec.Answers {
		f.Add(a)
	}
	for _, s := range []string{
		`{"result":{"status":"success","drops":{"base_fee":"10","open_ledger_fee":"12","median_fee":"5000","minimum_fee":"10"},"ledger_current_index":95000000}}`,
		`{"result":{"status":"success","account_data":{"Account":"` + payer + `","Sequence":4711,"Balance":"100000000"},"ledger_current_index":95000000,"validated":false}}`,
		`{"result":{"status":"success","ledger_current_index":95000000}}`,
		`{"result":{"status":"success","drops":{"base_fee":"10","open_ledger_fee":"10"},"account_data":{"Account":"` + payer + `","Sequence":1},"ledger_current_index":4294967295}}`,
		`{"result":{"status":"error","error":"actNotFound","error_message":"Account not found.","request":{"command":"account_info"}}}`,
		`{"result":{"status":"success","drops":{"base_fee":"0","open_ledger_fee":"99999999999999999999"}}}`,
		`{"result":{"status":"success","account_data":{"Account":"` + payer + `","Sequence":-1},"ledger_current_index":1.5}}`,
		`{"result":[]}`, `{"result":"success"}`, `[]`, ``, `{"result":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c := &xrplrpc.Client{URL: "http://rippled.invalid/", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)},
			Now: func() time.Time { return time.Unix(1_800_000_000, 0) }}
		ctx := context.Background()
		// said is result.k as an integer, if the answer has one.
		said := func(path ...string) (int64, bool) {
			v, err := jsonv.Parse(body)
			o, _ := jsonv.AsObject(v)
			o, _ = o.GetObject("result")
			for _, k := range path[:len(path)-1] {
				o, _ = o.GetObject(k)
			}
			n, _ := o.Get(path[len(path)-1])
			i, ok := jsonv.AsSafeInt(n)
			return i, err == nil && ok
		}
		cost.Bound(t, len(body), func() {
			if fee, err := c.Fee(ctx); err == nil {
				if n, err := strconv.ParseUint(fee, 10, 64); err != nil || n == 0 || n > xrplrpc.DefaultMaxFee {
					t.Fatalf("fee %q accepted", fee)
				}
			}
			if seq, err := c.Sequence(ctx, payer); err == nil {
				if n, ok := said("account_data", "Sequence"); !ok || n != int64(seq) {
					t.Fatalf("sequence %d accepted from %q", seq, body)
				}
			}
			if cur, err := c.LedgerCurrent(ctx); err == nil {
				if n, ok := said("ledger_current_index"); !ok || n != int64(cur) {
					t.Fatalf("ledger %d accepted from %q", cur, body)
				}
			}
			for _, p := range []string{xrpl.ExactID, xrpl.ChargeID, xrpl.SessionID} {
				_, _ = c.Inputs(ctx, p, payer, &xrplrpc.Session{Deposit: "1000000", PublicKey: []byte{2, 1}, SettleDelay: 3600})
			}
		})
	})
}

// FuzzSettlementAnswers: whatever rippled answers to tx and ledger ends
// every settlement read (ChargeStatus, OpenStatus, CloseStatus, InvoiceOf,
// FetchPresented's blob read) in a status or a refusal, never a panic,
// within the fuzz bound. A settled status names the ledger the answer
// said, and a blob is accepted only when it hashes to the transaction
// asked.
func FuzzSettlementAnswers(f *testing.F) {
	const hash = "03EA72FAE414FF229A6F54C19C81D0A203BE8D2B4313CAC8BA00EC867917B863"
	node := &xrplrpc.Ledger{Validated: 1001}
	node.Hold(hash, xrplrpc.LedgerTx{TxJSON: jsonv.Obj("TransactionType", "Payment", "InvoiceID", hash), Blob: "1200",
		Validated: true, Result: "tesSUCCESS", LedgerIndex: 990, Delivered: "1000000", DeletedChannels: []string{hash}})
	rec := &rpcanswer.Recorder{Handler: node}
	r := xrplrpc.Reader{Client: &xrplrpc.Client{URL: "http://rippled.invalid/", HTTP: &http.Client{Transport: rec}}, Of: "xrpl:1"}
	ref := jsonv.Obj("network", "xrpl:1", "transaction", hash, "expect", hash, "lastLedgerSequence", 1000, "fromLedger", 980)
	if s := xrpl.ChargeStatus(ref, r); s.State != xrpl.StateSettled {
		f.Fatalf("the loopback node's status: %+v", s)
	}
	_, _ = r.TxBlob(hash)
	_, _ = r.ValidatedLedger()
	_, _, _ = r.Tx(strings.Repeat("00", 32), &xrpl.Range{Min: 980, Max: 1000})
	for _, a := range rec.Answers {
		f.Add(a)
	}
	for _, s := range []string{
		`{"result":{"error":"txnNotFound","searched_all":true,"status":"error"}}`,
		`{"result":{"hash":"` + hash + `","tx_json":{"TransactionType":"Payment"},"meta":{"TransactionResult":"tecPATH_DRY","AffectedNodes":[{"DeletedNode":{"LedgerEntryType":"PayChannel","LedgerIndex":"zz"}}]},"validated":true,"ledger_index":-1,"status":"success"}}`,
		`{"result":{"hash":"` + hash + `","tx_blob":"ABCD","validated":true,"status":"success"}}`,
		`{"result":{"ledger_index":1.5,"validated":true,"status":"success"}}`,
		`{"result":[]}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := xrplrpc.Reader{Client: &xrplrpc.Client{URL: "http://rippled.invalid/", HTTP: &http.Client{Transport: rpcanswer.Fixed(body)}}, Of: "xrpl:1"}
		cost.Bound(t, len(body), func() {
			if s := xrpl.ChargeStatus(ref, r); s.State == xrpl.StateSettled && (s.LedgerIndex < 0 || s.LedgerIndex > 1<<32-1) {
				t.Fatalf("settled at %d", s.LedgerIndex)
			}
			_ = xrpl.OpenStatus(ref, r)
			_ = xrpl.CloseStatus(jsonv.Obj("network", "xrpl:1", "channel", hash, "transaction", hash), r)
			_, _ = xrpl.InvoiceOf(ref, r)
			if blob, err := r.TxBlob(hash); err == nil && blob != "" {
				raw, _ := hex.DecodeString(blob)
				if xrpl.TxHash(raw) != hash {
					t.Fatalf("blob %s accepted for %s", blob, hash)
				}
			}
		})
	})
}
