package main

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/vectors"
)

// The bare form of an Aptos payment, the payload's base64 transaction in
// x402's form, is read as Aptos's: the transfer it moves, H nowhere in it;
// the Sui and Cardano entries still read as theirs.
func TestInspectBareAptos(t *testing.T) {
	payments, err := vectors.Payments()
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := payments["x402/exact/aptos"].(*jsonv.Object).GetObject("payload")
	tx, _ := pl.GetString("transaction")
	code, out, errs := runCLI(t, tx, "inspect")
	for _, want := range []string{`"kind":"aptos-transaction"`, `"payee":"0xe8ca094fec460329aaccc2a644dc73c5e39f1a2ad6e97f82b6cbdc1a5949b9ea"`,
		`"amount":"99900000"`, `"sequenceNumber":"218"`, `"signatureVerifies":false`} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Fatalf("exit %d, no %s in %s %s", code, want, out, errs)
		}
	}
	for pairing, kind := range map[string]string{"x402/exact/sui": "sui-transaction", "x402/exact/cardano": "cardano-transaction"} {
		p, _ := payments[pairing].(*jsonv.Object).GetObject("payload")
		other, _ := p.GetString("transaction")
		if code, out, _ := runCLI(t, other, "inspect"); code != exitOK || !strings.Contains(out, `"kind":"`+kind+`"`) {
			t.Fatalf("%s: exit %d %s", pairing, code, out)
		}
	}
}
