package stripe_test

import (
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/stripeseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/stripe"
)

// BenchmarkStripeChargeBuildSignFinish is mpp/charge/stripe with the ATR in
// hand: build (the placed challenge read by rails/mpp, its id, opaque and
// legal_context naming h, the token written into the credential), no
// signer (nothing is signed), then gate.Finish (rebuild, complete, the
// echoed challenge read back to no-signed-place).
func BenchmarkStripeChargeBuildSignFinish(b *testing.B) {
	bench(b, stripe.ChargeID, stripe.Charge{}, jsonv.Obj(stripe.InputSPT, "spt_1N4Zv32eZvKYlo2CPhVPkJlW"))
}

// BenchmarkStripeSubscriptionBuildSignFinish is the same for
// mpp/subscription/stripe, whose build also reads the subscription's
// period and payment method types.
func BenchmarkStripeSubscriptionBuildSignFinish(b *testing.B) {
	bench(b, stripe.SubscriptionID, stripe.Subscription{}, jsonv.Obj(stripe.InputPaymentMethod, "pm_1Qabc32eZvKYlo2C7b8H1234"))
}

func bench(b *testing.B, id string, p rails.Pairing, inputs *jsonv.Object) {
	seller := stripeseller.New(id, []byte("abc"), nil)
	doc, err := seller.Challenges()
	if err != nil {
		b.Fatal(err)
	}
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	choice, err := p.Choose(read, "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", inputs, time.Now().Unix(), "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: id, Choice: choice, Ref: rails.NewRef()}
	g := &gate.Gate{}
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		u, err := p.Build(choice, atrBytes, h)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Request(u); err == nil {
			b.Fatal("a signing request")
		}
		f, err := g.Finish(atrBytes, id, chosen, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := jsonv.AsObject(f.Signed); !ok {
			b.Fatal("no credential")
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
