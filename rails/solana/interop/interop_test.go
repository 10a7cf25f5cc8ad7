// Package interop runs the official TypeScript x402 facilitator for
// x402/upto/solana (@x402/svm, pinned in package.json and
// package-lock.json; .ci/run installs it with npm ci) on termsgate's own
// payment: verify.mjs calls @x402/svm's upto facilitator verify on the
// payment the pairing built and the published dev key signed, as the
// vector writes it, with openSlot written as a string, and tampered.
package interop

import (
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/testenv"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

// The fixed inputs of x402-upto-solana.json (vectors/testdata): the devnet
// mint, payee, fee payer and receiver authorizer; the channel's nonce and
// open slot.
const (
	network            = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
	mint               = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
	payTo              = "2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4"
	feePayer           = "9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu"
	receiverAuthorizer = "GyGKxMyg1p9SsHfm15MkNUu1u9TN2JtTspcdmrtGUdse"
	nonce              = "7"
	openSlot           = 341000000
	blockhash          = "EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k"
)

// finalized is the slot the stood-in RPC answers getSlot with: 32 slots
// after the one the buyer opened at, well inside the facilitator's
// freshness window.
const finalized = openSlot + 32

var terms = []byte("termsgate svm interop terms")

// option is the seller's upto option with H placed in extra.memo.
func option(t *testing.T, h atr.Hash) *jsonv.Object {
	t.Helper()
	o := jsonv.Obj("scheme", "upto", "network", network, "amount", "10000", "asset", mint, "payTo", payTo,
		"maxTimeoutSeconds", 60, "extra", jsonv.Obj("feePayer", feePayer, "receiverAuthorizer", receiverAuthorizer,
			"withdrawDelay", 3600, "tokenProgram", solana.TokenProgram.String(), "paymentFlow", "escrow"))
	o, err := solana.PlaceUptoCarrier(o, h)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// payment is the pairing's payment for o, built now and signed by the
// published Solana dev key (signer.SolanaDevSeed).
func payment(t *testing.T, o *jsonv.Object, h atr.Hash) *jsonv.Object {
	t.Helper()
	doc, err := x402.Advertise(jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/quote"),
		"accepts", []jsonv.Value{o}), h, "https://atr.seller.example/"+h.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	key, err := signer.SolanaFromSeedHex(signer.SolanaDevSeed, network)
	if err != nil {
		t.Fatal(err)
	}
	p := solana.Upto{}
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	inputs := jsonv.Obj("nonce", nonce, "openSlot", strconv.Itoa(openSlot), "tokenProgram", solana.TokenProgram.String(),
		"recentBlockhash", blockhash)
	choice, err := p.Choose(read, key.Account(), inputs, time.Now().Unix(), "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, terms, h)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := p.Request(u)
	sig, err := key.Sign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.Complete(u, sig, rails.Chosen{Ref: rails.NewRef()})
	if err != nil {
		t.Fatal(err)
	}
	return done.Signed.(*jsonv.Object)
}

// answer is what verify.mjs reports: @x402/svm's VerifyResponse and the
// stood-in signer's methods verify called, in order.
type answer struct {
	valid           bool
	reason, message string
	calls           []string
}

func verify(t *testing.T, node string, pay, requirements *jsonv.Object) answer {
	t.Helper()
	in := jsonv.Obj("payload", pay, "requirements", requirements, "slot", strconv.Itoa(finalized))
	cmd := exec.Command(node, "verify.mjs")
	cmd.Stdin = strings.NewReader(jsonv.String(in))
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("verify.mjs: %v\n%s", err, stderr)
	}
	v, err := jsonv.Parse(out)
	if err != nil {
		t.Fatalf("verify.mjs answered %q", out)
	}
	o, _ := jsonv.AsObject(v)
	var a answer
	valid, _ := o.Get("isValid")
	a.valid = valid == true
	a.reason, _ = o.GetString("invalidReason")
	a.message, _ = o.GetString("invalidMessage")
	cv, _ := o.Get("calls")
	calls, ok := cv.([]jsonv.Value)
	if !ok {
		t.Fatalf("verify.mjs answered no calls: %s", out)
	}
	for _, c := range calls {
		s, _ := c.(string)
		a.calls = append(a.calls, s)
	}
	return a
}

func payloadOf(t *testing.T, pay *jsonv.Object) *jsonv.Object {
	t.Helper()
	p, ok := pay.GetObject("payload")
	if !ok {
		t.Fatalf("payment without a payload: %s", jsonv.String(pay))
	}
	return p
}

// withSlotString is pay with payload.openSlot written as a decimal string.
func withSlotString(t *testing.T, pay *jsonv.Object, slot string) *jsonv.Object {
	t.Helper()
	c := pay.Clone()
	payloadOf(t, c).Set("openSlot", slot)
	return c
}

// TestOfficialFacilitatorVerify runs @x402/svm 2.27.0's upto facilitator
// verify on the pairing's payment.
func TestOfficialFacilitatorVerify(t *testing.T) {
	node := testenv.LookPath(t, "node", "Node.js 20 and npm (Debian: apt-get install nodejs npm)")
	if _, err := os.Stat(filepath.Join("node_modules", "@x402", "svm", "package.json")); err != nil {
		testenv.Missing(t, "@x402/svm is not installed: run npm ci in rails/solana/interop")
	}
	h := atr.Sum(terms)
	o := option(t, h)
	pay := payment(t, o, h)
	if v, _ := payloadOf(t, pay).Get("openSlot"); jsonv.String(v) != strconv.Itoa(openSlot) {
		t.Fatalf("the pairing wrote openSlot %s, not the number %d", jsonv.String(v), openSlot)
	}
	readsOnVerify := []string{"getSigner", "getSlot"}

	// As the vector writes it (openSlot a JSON number): the facilitator's
	// payload type check refuses it before it decodes the opening or reads
	// the chain.
	t.Run("openSlot-number", func(t *testing.T) {
		a := verify(t, node, pay, o)
		if a.valid || a.reason != "unsupported_payload_type" || len(a.calls) != 0 {
			t.Fatalf("@x402/svm answered %+v to openSlot as a number", a)
		}
		t.Logf("openSlot as a number: refused %q, no chain read", a.reason)
	})

	// The same payment, the same signature, openSlot written as a string:
	// every check of verify passes, with the fee payer's signer looked up
	// and the slot read.
	stringly := withSlotString(t, pay, strconv.Itoa(openSlot))
	t.Run("openSlot-string", func(t *testing.T) {
		a := verify(t, node, stringly, o)
		if !a.valid || !slices.Equal(a.calls, readsOnVerify) {
			t.Fatalf("@x402/svm refused termsgate's payment with openSlot a string: %+v\n%s", a, jsonv.String(stringly))
		}
		t.Logf("openSlot as a string: valid; signer methods called %v", a.calls)
	})

	// Tampered: each is refused, with openSlot a string so the refusal is
	// the tampering's, not the type's.
	wire, err := base64.StdEncoding.DecodeString(mustString(t, payloadOf(t, stringly), "openTransaction"))
	if err != nil || len(wire) < 1+2*64 || wire[0] != 2 {
		t.Fatalf("opening wire %x… (%v): want two signature slots", wire[:min(len(wire), 8)], err)
	}
	badSig := stringly.Clone()
	flipped := slices.Clone(wire)
	flipped[1+64] ^= 1 // the payer's signature (slot 1; the fee payer's is slot 0)
	payloadOf(t, badSig).Set("openTransaction", base64.StdEncoding.EncodeToString(flipped))

	otherH := o.Clone()
	otherExtra, _ := otherH.GetObject("extra")
	otherExtra.Set("memo", solana.Carrier(atr.Sum([]byte("other terms"))))
	otherPay := stringly.Clone()
	otherPay.Set("accepted", otherH)

	for _, c := range []struct {
		name         string
		pay, options *jsonv.Object
		reason, says string
	}{
		{"payer-signature", badSig, o, "invalid_upto_svm_payload_open_transaction", "invalid signature"},
		{"openSlot-not-signed", withSlotString(t, pay, strconv.Itoa(openSlot+1)), o,
			"invalid_upto_svm_payload_open_transaction", "openSlot"},
		{"nonce-not-signed", func() *jsonv.Object { c := stringly.Clone(); payloadOf(t, c).Set("nonce", "8"); return c }(), o,
			"invalid_upto_svm_payload_nonce", "salt"},
		{"another-H", otherPay, otherH, "invalid_upto_svm_payload_open_transaction", "Memo"},
	} {
		t.Run("tampered-"+c.name, func(t *testing.T) {
			a := verify(t, node, c.pay, c.options)
			if a.valid || a.reason != c.reason || !strings.Contains(a.message, c.says) {
				t.Fatalf("@x402/svm answered %+v; want refused %s (%q)", a, c.reason, c.says)
			}
			t.Logf("refused %s: %s", a.reason, a.message)
		})
	}
}

func mustString(t *testing.T, o *jsonv.Object, k string) string {
	t.Helper()
	s, ok := o.GetString(k)
	if !ok {
		t.Fatalf("no %s in %s", k, jsonv.String(o))
	}
	return s
}
