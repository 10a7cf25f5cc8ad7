package near_test

import (
	"context"
	"testing"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/internal/nearintentsseller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/near"
	"github.com/termsgate/termsgate/signer"
)

// BenchmarkNearIntentsBuildSignFinish is mpp/charge/nearintents with the
// ATR in hand: build (the placed challenge read by rails/mpp, its id and
// externalId naming h, the origin's token and deposit address, every
// address's checksum, the transfer's calldata), the signer's EIP-1559
// signature and broadcast to the in-process node, then gate.Finish
// (rebuild, the credential, H read back from externalId).
func BenchmarkNearIntentsBuildSignFinish(b *testing.B) {
	seller := nearintentsseller.New([]byte("abc"), nil)
	doc, err := seller.Challenges(nearintentsseller.RefundTo)
	if err != nil {
		b.Fatal(err)
	}
	atrBytes := []byte("abc")
	h := atr.Sum(atrBytes)
	p := near.NearIntents{}
	read, err := p.Read(doc)
	if err != nil {
		b.Fatal(err)
	}
	key, err := signer.FromHex(signer.AnvilKey, nearintentsseller.Network)
	if err != nil {
		b.Fatal(err)
	}
	wallet := signer.NewEVM(key, seller.Node)
	choice, err := p.Choose(read, key.Account(), nil, time.Now().Unix(), "")
	if err != nil {
		b.Fatal(err)
	}
	chosen := rails.Chosen{Pairing: p.ID(), Choice: choice, Ref: rails.NewRef()}
	g := &gate.Gate{}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cost.CPU()
	for b.Loop() {
		u, err := p.Build(choice, atrBytes, h)
		if err != nil {
			b.Fatal(err)
		}
		r, _ := p.Request(u)
		answer, err := wallet.Sign(ctx, r)
		if err != nil {
			b.Fatal(err)
		}
		f, err := g.Finish(atrBytes, p.ID(), chosen, answer)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := jsonv.AsObject(f.Signed); !ok {
			b.Fatal("no credential")
		}
	}
	b.ReportMetric(float64((cost.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
