package main

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/vectors"
)

// The bare forms of the Algorand and Tron payments: a signed transaction
// in base64 msgpack (a payment group's entry) and a signed transaction in
// lowercase hex (the x402 payload's), each inspected with H read from
// where its pairing puts it.
func TestInspectBareAlgorandAndTron(t *testing.T) {
	payments, err := vectors.Payments()
	if err != nil {
		t.Fatal(err)
	}
	algo, _ := payments["x402/exact/algorand"].(*jsonv.Object).GetObject("payload")
	gv, _ := algo.Get("paymentGroup")
	entry := gv.([]jsonv.Value)[1].(string)
	tronPayload, _ := payments["x402/exact/tron/lcp-trc20-memo"].(*jsonv.Object).GetObject("payload")
	tx, _ := tronPayload.GetString("transaction")
	const h = `"h":"0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"`
	for name, c := range map[string]struct{ in, kind, payer string }{
		"algorand": {entry, "algorand-signed-transaction", "RKEOHXLUBHYZL7KS3MWTZOS5OLFGOCN7DWKBEG7TOSEADNAPN5OOTUNSLE"},
		"tron":     {tx, "tron-transaction", "TYBNgWfhGuNzdLtjKtxXTfskAhTbMcqbaG"},
	} {
		code, out, errs := runCLI(t, c.in, "inspect")
		if code != exitOK || !strings.Contains(out, `"kind":"`+c.kind+`"`) || !strings.Contains(out, `"payer":"`+c.payer+`"`) || !strings.Contains(out, h) {
			t.Fatalf("%s: exit %d %s %s", name, code, out, errs)
		}
	}
	// A Tron transaction cut short is an error naming the reader, not a crash.
	if code, _, errs := runCLI(t, tx[:40], "inspect"); code != exitUsage || errs == "" {
		t.Fatalf("a cut transaction: exit %d %s", code, errs)
	}
}
