package main

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/ccd"
	"github.com/termsgate/termsgate/vectors"
)

// The payment's signedTransaction in its binary form (hex, 0x or not, bare
// or as a block item) inspects to exactly what its JSON form does; a
// binary form broken in its bitmap is not routed to Concordium's reader
// and reads as no transaction.
func TestInspectBareCCDBinary(t *testing.T) {
	payments, err := vectors.Payments()
	if err != nil {
		t.Fatal(err)
	}
	payment, _ := jsonv.AsObject(payments[ccd.ExactID])
	payload, _ := payment.GetObject("payload")
	tx, _ := payload.GetObject("signedTransaction")
	w, err := ccd.ReadWire(tx)
	if err != nil {
		t.Fatal(err)
	}
	bin := hex.EncodeToString(w.Serialize(nil))
	code, want, errs := runCLI(t, jsonv.String(tx), "inspect")
	if code != exitOK || !strings.Contains(want, `"kind":"ccd-signed-transaction"`) {
		t.Fatalf("JSON: exit %d, %s %s", code, want, errs)
	}
	for _, text := range []string{bin, "0x" + bin, "03" + bin, "0x03" + bin} {
		code, out, errs := runCLI(t, text, "inspect")
		if code != exitOK || out != want {
			t.Fatalf("%.24s…: exit %d\n%s\nwant\n%s%s", text, code, out, want, errs)
		}
	}
	// the header's bitmap (after 1+2+3+64 bytes of signatures and the
	// sponsor's zero byte) without its sponsor bit
	broken := bin[:2*71] + "0000" + bin[2*71+4:]
	code, out, errs := runCLI(t, broken, "inspect")
	if code == exitOK || strings.Contains(errs, "ccd.InspectBareBinary") || strings.Contains(out, "ccd-") {
		t.Fatalf("broken bitmap: exit %d, %s %s", code, out, errs)
	}
}
