// Package interop verifies termsgate's x402 Permit2 payments with the
// official TypeScript facilitators (@x402/evm, pinned in package.json and
// package-lock.json; .ci/run installs it with npm ci): verify.mjs runs
// @x402/evm's exact and upto verify on the payment the gate built and the
// local key signed, and a tampered payment must be refused.
package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/testenv"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/signer"
)

const facilitator = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"

func option(scheme string) *jsonv.Object {
	extra := jsonv.Obj("name", "USDC", "version", "2", "assetTransferMethod", "permit2")
	if scheme == "upto" {
		extra = jsonv.Obj("name", "USDC", "version", "2", "facilitatorAddress", facilitator)
	}
	return jsonv.Obj("scheme", scheme, "network", "eip155:84532", "amount", "10000",
		"asset", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"maxTimeoutSeconds", 300, "extra", extra)
}

// payment is the gate's payment for option, signed by the local key now.
func payment(t *testing.T, p rails.Pairing, o *jsonv.Object) *jsonv.Object {
	t.Helper()
	h := atr.Sum([]byte("termsgate interop terms"))
	doc := jsonv.Obj("x402Version", 2, "resource", jsonv.Obj("url", "https://api.seller.example/v1/report"),
		"accepts", []jsonv.Value{o},
		"extensions", jsonv.Obj("legalContext", jsonv.Obj("info", jsonv.Obj("type", "sha256", "value", h.String(),
			"legalContextUrl", "https://atr.seller.example/"+h.String()))))
	key, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	read, err := p.Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	choice, err := p.Choose(read, key.Account(), nil, time.Now().Unix(), "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Build(choice, nil, h)
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

func verify(t *testing.T, node, scheme string, pay, requirements *jsonv.Object) (bool, string) {
	t.Helper()
	in := jsonv.Obj("scheme", scheme, "payload", pay, "requirements", requirements, "facilitator", facilitator)
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
	valid, _ := o.Get("isValid")
	reason, _ := o.GetString("invalidReason")
	return valid == true, reason
}

func TestOfficialFacilitatorsVerify(t *testing.T) {
	install := "Node.js 20 and npm (Debian: apt-get install nodejs npm)"
	node := testenv.LookPath(t, "node", install)
	if _, err := os.Stat(filepath.Join("node_modules", "@x402", "evm", "package.json")); err != nil {
		testenv.Missing(t, "@x402/evm is not installed: run npm ci in rails/evm/interop")
	}
	for _, c := range []struct {
		p      rails.Pairing
		scheme string
	}{{evm.ExactPermit2{}, "exact"}, {evm.UptoPermit2{}, "upto"}} {
		t.Run(c.scheme, func(t *testing.T) {
			o := option(c.scheme)
			pay := payment(t, c.p, o)
			if ok, why := verify(t, node, c.scheme, pay, o); !ok {
				t.Fatalf("@x402/evm refused termsgate's %s payment: %s\n%s", c.scheme, why, jsonv.String(pay))
			}
			nonce, _ := jsonv.AsObject(get(pay, "payload", "permit2Authorization"))
			n, _ := nonce.GetString("nonce")
			t.Logf("%s payment verified by @x402/evm 2.27 with its nonce written %q", c.scheme, n[:6]+"…")
			// Another nonce (another H) under the same signature: refused.
			forged := pay.Clone()
			a, _ := jsonv.AsObject(get(forged, "payload", "permit2Authorization"))
			a.Set("nonce", "1")
			if ok, _ := verify(t, node, c.scheme, forged, o); ok {
				t.Fatal("@x402/evm accepted a payment whose nonce is not the signed one")
			}
		})
	}
}

func get(v jsonv.Value, path ...string) jsonv.Value {
	for _, k := range path {
		o, ok := jsonv.AsObject(v)
		if !ok {
			return nil
		}
		v, _ = o.Get(k)
	}
	return v
}
