package x402_test

import (
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
)

const seedDoc = `{"x402Version":2,"resource":{"url":"https://api.seller.example/v1/quote"},"accepts":[{"scheme":"exact","network":"eip155:84532","amount":"10000","asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,"extra":{"name":"USDC","version":"2"}}],"extensions":{"legalContext":{"info":{"type":"sha256","value":"0x8b1e122580ae3f6a8c3d36a24294e1260a87bde70f597279b973e39310072938","legalContextUrl":"https://atr.seller.example/x","legalContextAgreementUrl":"https://pay.seller.example/a"}},"payment-identifier":{"info":{}}}}`

// FuzzReadDocument feeds arbitrary seller documents through the read, the
// choice, the build, the completion and the read-back: none may panic, and
// a payment that completes must read back the hash it was built with.
func FuzzReadDocument(f *testing.F) {
	f.Add([]byte(seedDoc))
	f.Add([]byte(`{"x402Version":2,"accepts":[]}`))
	f.Add([]byte(`[{"x402Version":2}]`))
	p := evm.ExactEIP3009{}
	h := atr.Sum([]byte("abc"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cost.Bound(t, len(data), func() {
			doc, err := jsonv.Parse(data)
			if err != nil {
				return
			}
			read, err := p.Read(doc)
			if err != nil {
				return
			}
			choice, err := p.Choose(read, "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", nil, 1790000000, "ref")
			if err != nil {
				return
			}
			u, err := p.Build(choice, nil, h)
			if err != nil {
				return
			}
			if _, err := p.Request(u); err != nil {
				t.Fatalf("request refused after a build: %v", err)
			}
			sig := "0x11111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"
			done, err := p.Complete(u, sig, chosenRef())
			if err != nil {
				return
			}
			got, err := p.Bound(done.Signed)
			if err != nil || got != h.String() {
				t.Fatalf("bound %q (%v), want %s", got, err, h)
			}
			// The payment must survive the wire.
			if _, err := x402.DecodeHeader(x402.EncodeHeader(done.Signed)); err != nil {
				t.Fatalf("payment does not round-trip: %v", err)
			}
		})
	})
}

// FuzzDecodeHeader: arbitrary header text never panics, and whatever it
// accepts re-encodes to exactly the same header (one reading only).
func FuzzDecodeHeader(f *testing.F) {
	f.Add(x402.EncodeHeader(jsonv.Obj("x402Version", 2)))
	f.Add("eyJ4NDAyVmVyc2lvbiI6Mn0")
	f.Add("77u/eyJ4NDAyVmVyc2lvbiI6Mn0=")
	f.Fuzz(func(t *testing.T, header string) {
		cost.Bound(t, len(header), func() {
			o, err := x402.DecodeHeader(header)
			if err != nil {
				return
			}
			if again, err := x402.DecodeHeader(x402.EncodeHeader(o)); err != nil || !jsonv.Equal(o, again) {
				t.Fatalf("accepted %q but its re-encoding reads differently (%v)", header, err)
			}
		})
	})
}
