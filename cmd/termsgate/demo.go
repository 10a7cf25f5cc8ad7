package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/jsonv"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/x402"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	commands["demo"] = command{"pay a local TLS seller end to end, offline", runDemo}
}

// demoATR is the shared vectors' record A (buyer.json): 138 bytes the gate
// never parses, only hashes.
var demoATR = mustHex("7b2261747256657273696f6e223a2231222c226964223a2230663866616435622d643963622d343639662d613136352d373038363737323839353065222c2278343032223a7b227a223a312e302c2261223a226361665c7530306539227d2c2273656c6c6572223a7b226e6f7465223a22436166c3a920e280942033302064c3ad617320e29c93227d7d")

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func runDemo(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rail := fs.String("rail", "x402", "the rail to pay: x402 (x402/exact/eip155/eip3009)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if d, ok := demos[*rail]; ok {
		return d(stdout, stderr)
	}
	fmt.Fprintf(stderr, "termsgate demo: unknown rail %q (known: %s)\n", *rail, demoNames())
	return exitUsage
}

// demos maps a --rail value to its demo; rails add themselves.
var demos = map[string]func(stdout, stderr io.Writer) int{"x402": demoX402}

func demoNames() string {
	s := ""
	for n := range demos {
		if s != "" {
			s += ", "
		}
		s += n
	}
	return s
}

func demoX402(stdout, stderr io.Writer) int {
	start := time.Now()
	say := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	seller := x402seller.New(demoATR, []byte(`{"report":"ETH/USD 3150.42","as_of":"2026-12-01"}`))
	srv, err := loopback.Start(seller)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate demo: cannot start the local seller:", err)
		return exitFailure
	}
	defer srv.Close()
	client := srv.Client()
	payer, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		fmt.Fprintln(stderr, "termsgate demo:", err)
		return exitFailure
	}
	g := &gate.Gate{Fetcher: &atr.Fetcher{Client: client}}
	ctx := context.Background()

	say("termsgate demo: a seller on %s (TLS, loopback only) sells %s", srv.Listener.Addr(), seller.ResourceURL())
	say("payer: %s (the published Anvil development key; never hold value with it)", payer.Account())
	say("")
	say("1. GET %s", seller.ResourceURL())
	resp, err := client.Get(seller.ResourceURL())
	if err != nil {
		fmt.Fprintln(stderr, "termsgate demo:", err)
		return exitFailure
	}
	drain(resp)
	doc, err := x402.DecodeHeader(resp.Header.Get("PAYMENT-REQUIRED"))
	if err != nil {
		fmt.Fprintln(stderr, "termsgate demo: the seller's PAYMENT-REQUIRED:", err)
		return exitFailure
	}
	offer, err := g.Read(doc, evm.ExactEIP3009ID)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate demo:", err)
		return exitFailure
	}
	opt, _ := jsonv.AsObject(offer.Options[0])
	amount, _ := opt.GetString("amount")
	network, _ := opt.GetString("network")
	say("   %d Payment Required: %s atomic units of USDC on %s", resp.StatusCode, amount, network)
	say("   advertised terms H = %s", offer.H)
	say("   at %s", offer.Link)
	say("")
	say("2. the gate fetches the terms, compares SHA-256 of the bytes with H, and only then signs")
	res, err := g.Transact(ctx, doc, evm.ExactEIP3009ID, payer, nil)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate demo: declined:", err)
		return exitDeclined
	}
	say("   fetched %d bytes; SHA-256 = %s: matches", len(res.Bytes), res.H)
	nonce, _ := jsonv.AsString(path(res.Signed, "payload", "authorization", "nonce"))
	sig, _ := jsonv.AsString(path(res.Signed, "payload", "signature"))
	say("   signed an EIP-3009 authorization whose nonce is H: %s", nonce)
	say("   signature %s…", sig[:20])
	say("")
	say("3. GET again with PAYMENT-SIGNATURE")
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, seller.ResourceURL(), nil)
	req.Header.Set("PAYMENT-SIGNATURE", x402.EncodeHeader(res.Signed))
	paid, err := client.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate demo:", err)
		return exitFailure
	}
	body, _ := io.ReadAll(io.LimitReader(paid.Body, 1<<16))
	paid.Body.Close()
	if paid.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "termsgate demo: the seller refused the payment (%d): %v\n", paid.StatusCode, seller.LastRejection())
		return exitFailure
	}
	receipt, _ := x402.DecodeHeader(paid.Header.Get("PAYMENT-RESPONSE"))
	payerSeen, _ := receipt.GetString("payer")
	say("   the seller checked the signature (it recovers to %s), the nonce (the hash of the terms it serves),", payerSeen)
	say("   the amount and the payee, and answered %d: %s", paid.StatusCode, body)
	say("")
	say("4. the same seller now serves other bytes at the link while its 402 still advertises H")
	seller.Lie(append(append([]byte(nil), demoATR...), ' '))
	calls := &countingSigner{Signer: payer}
	_, err = g.Transact(ctx, doc, evm.ExactEIP3009ID, calls, nil)
	var d *gate.Decline
	if !errors.As(err, &d) {
		fmt.Fprintln(stderr, "termsgate demo: the changed terms were not declined:", err)
		return exitFailure
	}
	say("   declined %s: %s", d.Code, d.Detail)
	say("   signer calls: %d", calls.n)
	say("")
	say("paid end to end in %s, offline.", time.Since(start).Round(time.Millisecond))
	return exitOK
}

type countingSigner struct {
	gate.Signer
	n int
}

func (c *countingSigner) Sign(ctx context.Context, req *jsonv.Object) (jsonv.Value, error) {
	c.n++
	return c.Signer.Sign(ctx, req)
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}

func path(v jsonv.Value, keys ...string) jsonv.Value {
	for _, k := range keys {
		o, ok := jsonv.AsObject(v)
		if !ok {
			return nil
		}
		v, _ = o.Get(k)
	}
	return v
}
