package vectors_test

// The fixture chain reader the settlement rows read through: one network,
// one receipt as a row gives it (an object, null for "the node holds none",
// or the string "reader-error" for a failed read), and fixed finalized and
// safe heads.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
)

type fixtureReader struct {
	network         string
	receipt         jsonv.Value
	finalized, safe uint64
	receipts        int // how many receipt reads were made
}

var _ evm.Reader = (*fixtureReader)(nil)

func (r *fixtureReader) Network() string { return r.network }

func (r *fixtureReader) Receipt(string) (jsonv.Value, error) {
	r.receipts++
	if r.receipt == "reader-error" {
		return nil, errors.New("transport")
	}
	return r.receipt, nil
}

func (r *fixtureReader) Head(tag string) (uint64, error) {
	if tag == evm.TagFinalized {
		return r.finalized, nil
	}
	return r.safe, nil
}

// readerFor is the MPP files' fixture reader: finalized and safe at 100.
func readerFor(network string, receipt jsonv.Value) *fixtureReader {
	return &fixtureReader{network: network, receipt: receipt, finalized: 100, safe: 100}
}

// blockOf reads a row's decimal block number.
func blockOf(t testing.TB, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("block %q: %v", s, err)
	}
	return n
}

// wantStatus compares a status with a row's expected JSON, byte for byte.
func wantStatus(t testing.TB, got evm.Status, want jsonv.Value, what string) {
	t.Helper()
	if g, w := jsonv.String(got.JSON()), jsonv.String(want); g != w {
		t.Fatalf("%s: status %s, want %s", what, g, w)
	}
}

// receiptOf is a fixture receipt {status: 1, blockNumber, logs}.
func receiptOf(block string, logs ...jsonv.Value) *jsonv.Object {
	if logs == nil {
		logs = []jsonv.Value{}
	}
	return jsonv.Obj("status", 1, "blockNumber", block, "logs", logs)
}

// logOf is a fixture log {address, topics, data}.
func logOf(address string, data string, topics ...string) *jsonv.Object {
	ts := make([]jsonv.Value, len(topics))
	for i, s := range topics {
		ts[i] = s
	}
	return jsonv.Obj("address", address, "topics", ts, "data", data)
}

// topicOf is a 32-byte topic holding an address, lowercase.
func topicOf(address string) string {
	return "0x" + strings.Repeat("0", 24) + strings.ToLower(strings.TrimPrefix(address, "0x"))
}

// wordOf is a 32-byte word holding n.
func wordOf(n uint64) string { return fmt.Sprintf("0x%064x", n) }
