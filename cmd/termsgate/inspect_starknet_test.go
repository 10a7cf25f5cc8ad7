package main

import (
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/vectors"
)

// Bare Starknet typed data (B6's, as a wallet is asked to sign it) reads
// as starknet.InspectTypedData: the transfer it moves, no payer (the typed
// data names none), the nonce where H's low 250 bits sit.
func TestInspectBareStarknet(t *testing.T) {
	f, err := vectors.Load("x402-exact-starknet.json")
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := f.Get("buyer")
	list, _ := jsonv.AsArray(func() jsonv.Value { o, _ := jsonv.AsObject(rows); v, _ := o.Get("rows"); return v }())
	b6, _ := jsonv.AsObject(list[1])
	in, _ := b6.GetObject("input")
	pres, _ := in.GetObject("presented")
	pl, _ := pres.GetObject("payload")
	oe, _ := pl.GetObject("outsideExecution")
	td, _ := oe.Get("typedData")
	code, out, errs := runCLI(t, jsonv.String(td), "inspect")
	for _, want := range []string{`"kind":"starknet-outside-execution"`, `"network":"starknet:SN_SEPOLIA"`, `"payer":null`,
		`"payee":"0x2dd1b492765c064eac4039e3841aa5f382773b598097a40073bd8b48170ab57"`, `"amount":"10000"`,
		`"payableUntil":"1790000300"`, `"nonce":"0x27816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"`} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Fatalf("exit %d, no %s in %s %s", code, want, out, errs)
		}
	}
	// The payment itself reads through the pairing.
	code, out, errs = runCLI(t, jsonv.String(pres), "inspect")
	for _, want := range []string{`"pairing":"x402/exact/starknet"`, `"h":"0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"`,
		`"payer":"0x3f16efeb2ae57f7d8befb03af08a3a370562dde15149c3506ac2038ffa9be24"`, `"paysOption":true`,
		`"messageHash":"0x6a787debc79af74005cf96e7323999a93496225609a2372645db6bd5968e22d"`} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Fatalf("payment: exit %d, no %s in %s %s", code, want, out, errs)
		}
	}
}
