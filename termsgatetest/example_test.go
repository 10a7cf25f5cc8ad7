package termsgatetest_test

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

// payingClient is what a program that pays would build: a pay.Transport
// with a wallet and limits, here pointed at the test seller.
func payingClient(seller *termsgatetest.Seller, network string) *http.Client {
	wallet, _ := signer.FromHex(signer.AnvilKey, network) // a published test key: never hold value with it
	policy, err := pay.NewPolicy(pay.PolicyConfig{
		Limits:     []pay.Limit{{Network: network, MaxAmount: big.NewInt(1_000_000)}},
		MaxPayable: 10 * time.Minute,
	})
	if err != nil {
		panic(err)
	}
	return pay.NewClient(&pay.Transport{
		Base:   seller.Transport(),
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: seller.Client()}},
		Signer: wallet,
		Policy: policy,
	})
}

// Pay an x402 seller that publishes its terms: the client fetches them,
// checks their hash, signs a payment bound to it, and gets the resource.
func ExampleNewSeller() {
	seller := termsgatetest.NewSeller()
	defer seller.Close()

	resp, err := payingClient(seller, "eip155:84532").Get(seller.URL)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Print(resp.StatusCode, " ", string(body))
	fmt.Println("bound to the terms:", pay.ResultOf(resp).H.String() == seller.Hash())
	fmt.Printf("%+v\n", seller.Counts())
	// Output:
	// 200 {"report":"paid"}
	// bound to the terms: true
	// {Unpaid:1 Paid:1 Rejected:0 ATRFetches:1 Agreements:0}
}

// Pay an MPP seller (a Tempo charge) the same way.
func ExampleNewMPPSeller() {
	seller := termsgatetest.NewMPPSeller()
	defer seller.Close()

	resp, err := payingClient(seller, "eip155:42431").Get(seller.URL)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.StatusCode, seller.Counts().Paid)
	// Output:
	// 200 1
}

// A seller whose link serves other bytes than the terms it advertises:
// the payment is declined with hash-mismatch and nothing is signed.
func ExampleSeller_Lie() {
	seller := termsgatetest.NewSeller()
	defer seller.Close()
	seller.Lie([]byte(`{"terms":"something else"}`))

	_, err := payingClient(seller, "eip155:84532").Get(seller.URL)
	var d *gate.Decline
	if errors.As(err, &d) {
		fmt.Println(d.Code, "|", d.Detail)
	}
	fmt.Println("payments the seller saw:", seller.Counts().Paid+seller.Counts().Rejected)
	// Output:
	// hash-mismatch | The bytes the link served do not hash to the advertised ATR hash.
	// payments the seller saw: 0
}

// A seller whose link answers too late: the fetch's deadline declines it,
// and the cause says it was the deadline.
func ExampleSeller_SetDelay() {
	seller := termsgatetest.NewSeller()
	defer seller.Close()
	seller.SetDelay(time.Second)

	wallet, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: seller.Client(), Timeout: 100 * time.Millisecond}}
	client := pay.NewClient(&pay.Transport{Base: seller.Transport(), Gate: g, Signer: wallet, Policy: mustPolicy()})
	_, err := client.Get(seller.URL)
	var d *gate.Decline
	if errors.As(err, &d) {
		fmt.Println(d.Code, "| deadline:", errors.Is(err, context.DeadlineExceeded))
	}
	// Output:
	// atr-unfetchable | deadline: true
}

func mustPolicy() *pay.Policy {
	p, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{Network: "eip155:84532", MaxAmount: big.NewInt(10_000)}}})
	if err != nil {
		panic(err)
	}
	return p
}
