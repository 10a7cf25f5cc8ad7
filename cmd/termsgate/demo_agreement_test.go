package main

import (
	"strings"
	"testing"
)

// The agreement demo: approval asked with nothing signed, one agreement
// signature, the receipt for H, then the Cloudflare payment the seller
// accepts, with no signer call for it.
func TestDemoAgreementPaysEndToEnd(t *testing.T) {
	code, out, errs := runCLI(t, "", "demo", "--rail", "agreement")
	if code != exitOK {
		t.Fatalf("demo exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{"approval asked: 1 atomic units", "signer calls so far: 0", "agreement signatures: 1",
		"receipt: agreed to 0x8b1e", "answered 200", "gate signer calls for the main payment: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// The batch demo: the opening in one signer call, a voucher inside the
// channel in one more, both accepted by a seller that recovers every
// signature; other terms' hash declined unsigned.
func TestDemoBatchPaysEndToEnd(t *testing.T) {
	code, out, errs := runCLI(t, "", "demo", "--rail", "batch")
	if code != exitOK {
		t.Fatalf("demo exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{"signer calls: 1, a batch", "recomputed the channel id from H: 200", "charged 2000 of 2000 signed",
		"declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
