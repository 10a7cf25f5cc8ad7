package main

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/vectors"
)

// The bare form of a Cardano payment, the payload's base64 CBOR
// transaction (0x84, which as msgpack would be an Algorand map), is read
// as Cardano's with H from its CIP-20 message; the Algorand entry still
// reads as Algorand's.
func TestInspectBareCardano(t *testing.T) {
	payments, err := vectors.Payments()
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := payments["x402/exact/cardano"].(*jsonv.Object).GetObject("payload")
	tx, _ := pl.GetString("transaction")
	code, out, errs := runCLI(t, tx, "inspect")
	for _, want := range []string{`"kind":"cardano-transaction"`, `"payee":"addr_test1vqxk54m7j3q6mrkevcunryrwf4p7e68c93cjk8gzxkhlkpsffv7s0"`,
		`"amount":"2000000"`, `"h":"0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"`,
		`"txId":"0x03f8ca96d5e855493bebd3b1e9d107ab690b404e74ca76ac5fa7717aafb5dc38"`} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Fatalf("exit %d, no %s in %s %s", code, want, out, errs)
		}
	}
	algo, _ := payments["x402/exact/algorand"].(*jsonv.Object).GetObject("payload")
	gv, _ := algo.Get("paymentGroup")
	if code, out, _ := runCLI(t, gv.([]jsonv.Value)[1].(string), "inspect"); code != exitOK || !strings.Contains(out, `"kind":"algorand-signed-transaction"`) {
		t.Fatalf("algorand: exit %d %s", code, out)
	}
	// A transaction cut short is an error, not a crash.
	if code, _, errs := runCLI(t, tx[:40], "inspect"); code != exitUsage || errs == "" {
		t.Fatalf("a cut transaction: exit %d %s", code, errs)
	}
}
