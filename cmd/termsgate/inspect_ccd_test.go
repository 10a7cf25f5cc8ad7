package main

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/ccd"
	"github.com/termsgate/termsgate/vectors"
)

// A bare Concordium transaction (B6's payment's signedTransaction, and the
// same without signatures, as the wallet signs it) reads as
// ccd.InspectBare: the transfer it moves, no network (the transaction
// names none), H from the memo; the payment itself reads through the
// pairing, and a form that is not the SDK's is refused with its code.
func TestInspectBareCCD(t *testing.T) {
	payments, err := vectors.Payments()
	if err != nil {
		t.Fatal(err)
	}
	payment, _ := jsonv.AsObject(payments[ccd.ExactID])
	payload, _ := payment.GetObject("payload")
	tx, _ := payload.GetObject("signedTransaction")
	unsigned := tx.Clone()
	unsigned.Delete("signatures")
	common := []string{`"pairing":null`, `"network":null`, `"payer":"3ezotrLdEJLzM7cwvpkGtxGcmSFJ8MZMySUvQynXeV3P8s8wcg"`,
		`"payee":"4PnJd77jiMZB3HheYkrynfUGzZtpSERjpzy954eDD3krRf1Wpx"`, `"asset":"CCD"`, `"amount":"1000000"`, `"decimals":6`,
		`"payableUntil":"1790000060"`, `"h":"0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"`,
		`"whereH":"payload.memo: `, `"nonce":"7"`, `"sponsor":"4SMYM3fzSqs6DBqMgPDWnq4XTiT2YXFCUD2dV3rPmtG42ocYtd"`}
	for name, tc := range map[string]struct {
		in   *jsonv.Object
		want []string
	}{
		"signed":   {tx, append([]string{`"kind":"ccd-signed-transaction"`, `"senderSignatures":1`}, common...)},
		"unsigned": {unsigned, append([]string{`"kind":"ccd-transaction"`, `"senderSignatures":0`}, common...)},
	} {
		code, out, errs := runCLI(t, jsonv.String(tc.in), "inspect")
		for _, want := range tc.want {
			if code != exitOK || !strings.Contains(out, want) {
				t.Fatalf("%s: exit %d, no %s in %s %s", name, code, want, out, errs)
			}
		}
	}
	code, out, errs := runCLI(t, jsonv.String(payment), "inspect")
	for _, want := range []string{`"pairing":"x402/exact/ccd"`, `"network":"ccd:4221332d34e1694168c2a0c0b3fd0f27"`, `"paysOption":true`} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Fatalf("payment: exit %d, no %s in %s %s", code, want, out, errs)
		}
	}
	bad := tx.Clone()
	bad.Set("network", "ccd:4221332d34e1694168c2a0c0b3fd0f27")
	code, out, errs = runCLI(t, jsonv.String(bad), "inspect")
	if code == exitOK || !strings.Contains(errs, "ccd/transaction-malformed") || !strings.Contains(errs, "members other than") {
		t.Fatalf("an extra member: exit %d, %s %s", code, out, errs)
	}
}
