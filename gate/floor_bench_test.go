package gate_test

import (
	"context"
	"crypto/sha256"
	"io"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/signer"
)

// BenchmarkTransactFloor is what BenchmarkTransactEIP3009 cannot avoid: one
// GET of the ATR over the same keep-alive loopback TLS, SHA-256 of its
// bytes and one secp256k1 signature with the same key.
func BenchmarkTransactFloor(b *testing.B) {
	b.Run("atr=138B", func(b *testing.B) { benchmarkFloor(b, atrA) })
}

func benchmarkFloor(b *testing.B, body []byte) {
	bb := newBench(b, body)
	key, err := crypto.HexToECDSA(signer.AnvilKey[2:])
	if err != nil {
		b.Fatal(err)
	}
	client := bb.g.Fetcher.Client
	link := "https://atr.seller.example/" + atr.Sum(body).String()
	get := func() []byte {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, link, nil)
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || len(got) != len(body) {
			b.Fatalf("%d bytes, %v", len(got), err)
		}
		return got
	}
	get() // warms the keep-alive connection
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		h := sha256.Sum256(get())
		if _, err := crypto.Sign(h[:], key); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
