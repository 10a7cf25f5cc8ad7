package gate_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/termsgatetest"
)

// A Go service pays a seller's 402 through the gate: the terms are fetched
// and compared with the advertised hash before the wallet is asked to sign,
// and the signed EIP-3009 nonce is that hash. (The seller here is a
// termsgatetest seller on loopback TLS; with a real one, pass your own
// *http.Client.)
func Example() {
	seller, err := termsgatetest.Start(termsgatetest.Config{ATR: []byte(`{"terms":"one report, 0.01 USDC"}`), Body: []byte("the report")})
	if err != nil {
		panic(err)
	}
	defer seller.Close()
	client := seller.Client()

	// The seller answers 402 with PAYMENT-REQUIRED.
	resp, _ := client.Get(seller.URL)
	resp.Body.Close()
	doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
	if err != nil {
		fmt.Println("unreadable 402:", err)
		return
	}

	wallet, _ := signer.FromHex(signer.AnvilKey, "eip155:84532")
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	paid, err := g.Transact(context.Background(), doc, evm.ExactEIP3009ID, wallet, nil)
	if err != nil {
		fmt.Println("not paid:", err) // a *gate.Decline: errors.As(err, &d)
		return
	}
	fmt.Println("agreed to", len(paid.Bytes), "bytes of terms with hash", paid.H)

	// Present the payment.
	req, _ := http.NewRequest(http.MethodGet, seller.URL, nil)
	req.Header.Set("PAYMENT-SIGNATURE", x402.EncodeHeader(paid.Signed))
	resp, _ = client.Do(req)
	resp.Body.Close()
	fmt.Println("seller answered", resp.StatusCode)
	// Output:
	// agreed to 33 bytes of terms with hash 0x21a99393a5eebeea15ee3e283a49ade7ba9c834390211a51be3d495b7ce7fd4a
	// seller answered 200
}
