package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/loopback"
	"github.com/termsgate/termsgate/internal/x402seller"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	commands["demo"] = command{"pay a local TLS seller end to end, offline", runDemo}
}

// demoATR is the shared vectors' record A (buyer.json): 138 bytes the gate
// never parses, only hashes.
var demoATR = mustHex("7b2261747256657273696f6e223a2231222c226964223a2230663866616435622d643963622d343639662d613136352d373038363737323839353065222c2278343032223a7b227a223a312e302c2261223a226361665c7530306539227d2c2273656c6c6572223a7b226e6f7465223a22436166c3a920e280942033302064c3ad617320e29c93227d7d")

// demoBody is what the demo's seller sells.
var demoBody = []byte(`{"report":"ETH/USD 3150.42","as_of":"2026-12-01"}`)

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
	rail := fs.String("rail", "x402", "the rail to pay: x402 (x402/exact/eip155/eip3009) or mpp-tempo (mpp/charge/tempo/memo)")
	settle := fs.Bool("settle", false, "x402 only: settle the payment on an in-process EVM (go-ethereum's simulated chain) and read H back from the landed log")
	if err := parseFlags(fs, args); err != nil {
		return exitUsage
	}
	if *settle {
		if *rail != "x402" {
			fmt.Fprintf(stderr, "termsgate demo: --settle settles the x402 rail, not %q\n", *rail)
			return exitUsage
		}
		if settleDemo == nil {
			fmt.Fprintln(stderr, settleHint)
			return exitUsage
		}
		return settleDemo(stdout, stderr)
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
	seller := x402seller.New(demoATR, demoBody)
	srv, err := loopback.Start(seller)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate demo: cannot start the local seller:", err)
		return exitFailure
	}
	defer srv.Close()
	payer, err := signer.FromHex(signer.AnvilKey, "eip155:84532")
	if err != nil {
		fmt.Fprintln(stderr, "termsgate demo:", err)
		return exitFailure
	}
	wallet := &countingSigner{Signer: payer}
	policy, err := pay.NewPolicy(pay.PolicyConfig{Limits: []pay.Limit{{
		Network: "eip155:84532", Asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
		MaxAmount: big.NewInt(50_000), Budget: big.NewInt(1_000_000), // 0.05 USDC a payment, 1 USDC in all
	}}})
	if err != nil {
		fmt.Fprintln(stderr, "termsgate demo:", err)
		return exitFailure
	}
	transport := &pay.Transport{
		Base:   srv.Transport(),
		Gate:   &gate.Gate{Fetcher: &atr.Fetcher{Client: srv.Client()}},
		Signer: wallet,
		Policy: policy,
		Hooks: pay.Hooks{
			BeforeSign: func(_ context.Context, _ *http.Request, s pay.Summary) error {
				say("   fetched the terms; SHA-256 matches the advertised H = %s", s.H)
				say("   the policy allows it; the signature would grant %s atomic units of %s (%s) on %s to %s, payable until %s",
					s.Amount, s.AssetName, s.Asset, s.Network, s.Payee, s.PayableUntil.UTC().Format(time.RFC3339))
				return nil
			},
			AfterSign: func(_ context.Context, _ *http.Request, r *pay.Result) {
				nonce, _ := jsonv.AsString(path(r.Signed, "payload", "authorization", "nonce"))
				say("   signed an EIP-3009 authorization whose nonce is H: %s", nonce)
				say("3. the same GET again, with PAYMENT-SIGNATURE (%d bytes)", len(r.Header))
			},
			Declined: func(_ context.Context, _ *http.Request, d *gate.Decline) {
				say("   declined %s: %s", d.Code, d.Detail)
			},
		},
	}
	client := pay.NewClient(transport)

	say("termsgate demo: a seller on %s (TLS, loopback only) sells %s", srv.Listener.Addr(), seller.ResourceURL())
	say("payer: %s (the published Anvil development key; never hold value with it)", payer.Account())
	say("")
	say("1. GET %s", seller.ResourceURL())
	say("   the seller answers 402 with PAYMENT-REQUIRED, advertising its terms' hash and link")
	say("2. the gate fetches the terms, compares SHA-256 of the exact bytes with H, asks the policy, and only then signs")
	resp, err := client.Get(seller.ResourceURL())
	if err != nil {
		fmt.Fprintln(stderr, "termsgate demo: not paid:", err)
		return exitDeclined
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	res := pay.ResultOf(resp)
	if resp.StatusCode != http.StatusOK || res == nil || res.Settlement == nil {
		fmt.Fprintf(stderr, "termsgate demo: the seller refused the payment (%d): %v\n", resp.StatusCode, seller.LastRejection())
		return exitFailure
	}
	say("   the seller checked the signature (it recovers to %s), the nonce (the hash of the terms", res.Settlement.Payer)
	say("   it serves), the amount and the payee, and answered %d: %s", resp.StatusCode, body)
	say("   agreed terms kept with the payment: %d bytes, H = %s", len(res.ATR), res.H)
	say("")
	say("4. the same seller now serves other bytes at the link while its 402 still advertises H")
	seller.Lie(append(append([]byte(nil), demoATR...), ' '))
	before := wallet.n
	_, err = client.Get(seller.ResourceURL())
	var d *gate.Decline
	if !errors.As(err, &d) || d.Code != gate.HashMismatch {
		fmt.Fprintln(stderr, "termsgate demo: the changed terms were not declined:", err)
		return exitFailure
	}
	say("   signer calls for it: %d; nothing was sent", wallet.n-before)
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

// demoPrinters are a demo's two outputs: say writes a line of the story to
// stdout; fail writes why the demo could not go on to stderr and returns
// code.
func demoPrinters(stdout, stderr io.Writer) (say func(format string, a ...any), fail func(code int, a ...any) int) {
	say = func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	fail = func(code int, a ...any) int {
		fmt.Fprintln(stderr, append([]any{"termsgate demo:"}, a...)...)
		return code
	}
	return say, fail
}
