package pay_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/termsgatetest"
)

// A paying client for an x402 v2 seller. The seller here is a termsgatetest
// seller on loopback TLS; against a real seller, leave Base and Gate nil:
// then the ATR is fetched only from public addresses.
func ExampleTransport() {
	terms := []byte(`{"atrVersion":"1","note":"the seller's terms"}`)
	seller, err := termsgatetest.Start(termsgatetest.Config{ATR: terms, Body: []byte("the paid report")})
	if err != nil {
		panic(err)
	}
	defer seller.Close()
	base := seller.Transport()

	wallet, _ := signer.FromHex(signer.AnvilKey, "eip155:84532") // a public test key
	policy, err := pay.NewPolicy(pay.PolicyConfig{
		Limits: []pay.Limit{{
			Network:   "eip155:84532",
			Asset:     "0x036CbD53842c5426634e7929541eC2318f3dCF7e", // USDC on Base Sepolia
			MaxAmount: big.NewInt(10_000),                           // 0.01 USDC per payment
			Budget:    big.NewInt(1_000_000),                        // 1 USDC for this process
		}},
		MaxPayable: 5 * time.Minute,
	})
	if err != nil {
		panic(err)
	}
	client := pay.NewClient(&pay.Transport{
		Base:   base,
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: &http.Client{Transport: base}}},
		Signer: wallet,
		Policy: policy,
		Hooks: pay.Hooks{
			BeforeSign: func(_ context.Context, _ *http.Request, s pay.Summary) error {
				fmt.Println("approving", s.Amount, s.AssetName, "to", s.Payee, "on", s.Network)
				return nil // an error here vetoes: nothing is signed
			},
		},
	})

	resp, err := client.Get(seller.URL)
	var d *gate.Decline
	if errors.As(err, &d) {
		fmt.Println("declined, nothing signed:", d.Code, d.Detail)
		return
	}
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))

	r := pay.ResultOf(resp)
	fmt.Println("settled:", r.Settlement.Success, "| bound to these terms:", r.H == atr.Sum(terms))
	fmt.Println("spent:", policy.Spent("eip155:84532", "0x036CbD53842c5426634e7929541eC2318f3dCF7e"))
	// Output:
	// approving 10000 USDC to 0x209693Bc6afc0C5328bA36FaF03C514EF312287C on eip155:84532
	// 200 the paid report
	// settled: true | bound to these terms: true
	// spent: 10000
}
