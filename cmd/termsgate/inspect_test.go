package main

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/vectors"
)

// TestInspectTheVectorsPayments: for each shipped pairing, the vector
// file's B6 payment is read by termsgate inspect, which names the pairing
// and the H that B6's check expects, in every form the payment travels in.
func TestInspectTheVectorsPayments(t *testing.T) {
	for file, pairing := range map[string]string{
		"x402-exact-eip155-eip3009.json":    "x402/exact/eip155/eip3009",
		"mpp-charge-evm-authorization.json": "mpp/charge/evm/authorization",
		"mpp-charge-tempo-memo.json":        "mpp/charge/tempo/memo",
		"mpp-charge-tempo-push.json":        "mpp/charge/tempo/push",
		"mpp-session-tempo.json":            "mpp/session/tempo",
		"mpp-subscription-tempo.json":       "mpp/subscription/tempo",
	} {
		t.Run(pairing, func(t *testing.T) {
			f, err := vectors.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			buyer, _ := f.GetObject("buyer")
			rows, _ := buyer.Get("rows")
			var presented jsonv.Value
			var wantH string
			for _, r := range rows.([]jsonv.Value) {
				o := r.(*jsonv.Object)
				if n, _ := o.GetString("name"); n != "B6" {
					continue
				}
				in, _ := o.GetObject("input")
				presented, _ = in.Get("presented")
				exp, _ := o.Get("expect")
				first := exp.([]jsonv.Value)[0].(*jsonv.Object)
				wantH, _ = first.GetString("h")
			}
			if presented == nil || wantH == "" {
				t.Fatal("no B6 row")
			}
			js := jsonv.String(presented)
			forms := map[string]string{"JSON": js}
			if strings.HasPrefix(pairing, "x402/") {
				p, _ := jsonv.AsObject(presented)
				forms["PAYMENT-SIGNATURE"] = x402.EncodeHeader(p)
			} else {
				forms["Authorization"] = "Payment " + base64.RawURLEncoding.EncodeToString([]byte(js))
			}
			for form, text := range forms {
				code, out, errs := runCLI(t, text, "inspect")
				if code != exitOK {
					t.Fatalf("%s: exit %d: %s", form, code, errs)
				}
				v, err := jsonv.Parse([]byte(out))
				if err != nil {
					t.Fatal(err)
				}
				o := v.(*jsonv.Object)
				if p, _ := o.GetString("pairing"); p != pairing {
					t.Fatalf("%s: pairing %q: %s", form, p, out)
				}
				if h, _ := o.GetString("h"); h != wantH {
					t.Fatalf("%s: h %q, want %q", form, h, wantH)
				}
				for _, k := range []string{"network", "asset", "payee", "whereH"} {
					if s, _ := o.GetString(k); s == "" {
						t.Errorf("%s: no %s in %s", form, k, out)
					}
				}
			}
		})
	}
}

func TestInspectOtherForms(t *testing.T) {
	auth := `{"from":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","to":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","value":"10000","validAfter":"0","validBefore":"1790000060","nonce":"0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938"}`
	code, out, errs := runCLI(t, auth, "inspect")
	if code != exitOK || !strings.Contains(out, `"kind":"eip3009-authorization"`) || !strings.Contains(out, `"payer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"`) {
		t.Fatalf("authorization: exit %d %s %s", code, out, errs)
	}
	// The memo vector's signed transaction T, on its own.
	f, _ := vectors.Load("mpp-charge-tempo-memo.json")
	buyer, _ := f.GetObject("buyer")
	rows, _ := buyer.Get("rows")
	var tx string
	for _, r := range rows.([]jsonv.Value) {
		o := r.(*jsonv.Object)
		if n, _ := o.GetString("name"); n == "B6" {
			in, _ := o.GetObject("input")
			p, _ := in.GetObject("presented")
			payload, _ := p.GetObject("payload")
			tx, _ = payload.GetString("signature")
		}
	}
	code, out, errs = runCLI(t, tx, "inspect")
	if code != exitOK || !strings.Contains(out, `"kind":"tempo-transaction"`) || !strings.Contains(strings.ToLower(out), `"transferwithmemo":{"recipient":"0x742d35cc6634c0532925a3b844bc9e7595f8fe00","amount":"1000000"`) {
		t.Fatalf("transaction: exit %d %s %s", code, out, errs)
	}
	if code, _, errs := runCLI(t, `{"x402Version":2}`, "inspect"); code != exitUsage || !strings.Contains(errs, "no pairing reads it") {
		t.Fatalf("not a payment: exit %d %s", code, errs)
	}
}
