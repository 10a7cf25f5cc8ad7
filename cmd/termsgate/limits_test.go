package main

import (
	"flag"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// A command that holds a signer and was given no limit does not start: exit
// 2 naming --max-amount, before anything is read or fetched. A limit spelled
// wrongly is the same, not a refusal of every payment later.
func TestCommandsThatSignNeedLimits(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "--dev-key"},
		{"transact", "--dev-key"},
		{"agree", "--dev-key", "--url", "https://pay.seller.example/a", "atr.bin"},
		{"channel-within", "--dev-key"},
	} {
		code, _, errs := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(errs, "--max-amount is required") {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--network", "EIP155:84532", "--max-amount", "1"}, "namespace is lowercase"},
		{[]string{"--network", "eip155:084532", "--max-amount", "1"}, "without leading zeros"},
		{[]string{"--network", "eip155: 84532", "--max-amount", "1"}, "not a CAIP-2 chain id"},
		{[]string{"--max-amount", "1 000"}, `--max-amount "1 000" is not a decimal`},
		{[]string{"--max-amount", "1", "--budget", "-5"}, `--budget "-5" is not a decimal`},
		{[]string{"--max-amount", "1", "--asset", "USDC"}, `"USDC" is not an asset address`},
		{[]string{"--max-amount", "1", "--payee", "bob"}, `"bob" is not a payee address`},
	} {
		for _, cmd := range []string{"mcp", "transact"} {
			code, _, errs := runCLI(t, "", append([]string{cmd, "--dev-key"}, c.args...)...)
			if code != exitUsage || !strings.Contains(errs, c.want) {
				t.Errorf("%s %v: exit %d, %s", cmd, c.args, code, errs)
			}
		}
	}
}

// --max-usd and --budget-usd: limits in US dollars over the USD stablecoin
// table, on pay (its own limit flags) and on every command that signs
// (limitFlags: transact, agree, channel-within, mcp).
func TestLimitsInUSD(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	s := newPaySeller(t) // 10000 atomic units of Base Sepolia USDC: $0.01
	payUSD := func(args ...string) (int, string, string) {
		return runCLI(t, "", append([]string{"pay", "--dev-key", "--state", state}, append(args, s.ResourceURL())...)...)
	}
	if code, _, errs := payUSD("--max-usd", "0.01"); code != exitOK {
		t.Fatalf("--max-usd 0.01 for $0.01: exit %d: %s", code, errs)
	}
	code, out, errs := payUSD("--max-usd", "0.009999")
	if code != exitDeclined || !strings.Contains(out, `"detail":"policy/amount-above-maximum: 10000 of eip155:84532 0x036CbD53842c5426634e7929541eC2318f3dCF7e ($0.01, at most $0.009999)"`) {
		t.Fatalf("--max-usd 0.009999: exit %d %s %s", code, out, errs)
	}
	// The total counts in --state across the runs given it (the payment
	// above was not): two of $0.01 are within $0.02, a third is not.
	for i := range 2 {
		if code, _, errs := payUSD("--max-usd", "1", "--budget-usd", "0.02"); code != exitOK {
			t.Fatalf("payment %d within --budget-usd 0.02: exit %d: %s", i+1, code, errs)
		}
	}
	code, out, errs = payUSD("--max-usd", "1", "--budget-usd", "0.02")
	if code != exitDeclined || !strings.Contains(out, "policy/budget-exhausted") || !strings.Contains(out, "budget $0.02 in all") ||
		!strings.Contains(errs, "the budget in US dollars is spent (budget $0.02 in all)") {
		t.Fatalf("third payment past --budget-usd 0.02: exit %d %s %s", code, out, errs)
	}
	if s.signatures() != 3 {
		t.Fatalf("%d payments sent, want 3", s.signatures())
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-usd", "ten"}, `--max-usd: "ten" is not a number of US dollars`},
		{[]string{"--max-usd", "1", "--budget-usd", "-1"}, `--budget-usd: "-1" is not a number of US dollars`},
		{[]string{"--max-usd", "1", "--asset", "0x1111111111111111111111111111111111111111"}, "is no USD stablecoin termsgate knows"},
		{[]string{"--max-usd", "1", "--network", "eip155:10"}, "termsgate knows no USD stablecoin on eip155:10"},
	} {
		for _, cmd := range []string{"mcp", "transact"} {
			code, _, errs := runCLI(t, "", append([]string{cmd, "--dev-key", "--state", state}, c.args...)...)
			if code != exitUsage || !strings.Contains(errs, c.want) {
				t.Errorf("%s %v: exit %d, %s", cmd, c.args, code, errs)
			}
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	l := addLimitFlags(fs)
	if err := fs.Parse([]string{"--max-usd", "0.10", "--budget-usd", "5", "--state", state}); err != nil {
		t.Fatal(err)
	}
	p, err := l.policy("eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.String(); !strings.Contains(got, "at most $0.1 per payment of any asset on eip155:84532") || !strings.Contains(got, "$5 in all across every asset") {
		t.Fatalf("policy %s", got)
	}
}

// --origin: only these origins are paid; a redirect before the 402 to
// another one is declined with nothing signed.
func TestPayOrigin(t *testing.T) {
	s := newPaySeller(t)
	moved := "https://seller.example/v1/moved"
	old := payClient
	payClient = func(private bool) *http.Client {
		c := old(private)
		base := c.Transport
		c.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.URL.String() == moved { // seller.example sends the buyer on to the seller's resource
				return &http.Response{StatusCode: http.StatusFound, Header: http.Header{"Location": {s.ResourceURL()}}, Body: http.NoBody, Request: r}, nil
			}
			return base.RoundTrip(r)
		})
		return c
	}
	t.Cleanup(func() { payClient = old })
	state := filepath.Join(t.TempDir(), "state")
	code, out, errs := runCLI(t, "", "pay", "--dev-key", "--state", state, "--max-amount", "10000", "--origin", "https://seller.example", moved)
	if code != exitDeclined || !strings.Contains(out, `"detail":"policy/origin-not-allowed: https://api.seller.example:443 (redirected from https://seller.example:443)"`) {
		t.Fatalf("exit %d %s %s", code, out, errs)
	}
	if s.signatures() != 0 || s.ATRFetches.Load() != 0 {
		t.Fatalf("%d payments, %d fetches", s.signatures(), s.ATRFetches.Load())
	}
	code, _, errs = runCLI(t, "", "pay", "--dev-key", "--state", state, "--max-amount", "10000", "--origin", "https://seller.example", "--origin", "https://api.seller.example", moved)
	if code != exitOK || s.signatures() != 1 {
		t.Fatalf("both listed: exit %d, %d payments: %s", code, s.signatures(), errs)
	}
	if code, _, errs := runCLI(t, "", "pay", "--dev-key", "--max-amount", "1", "--origin", "api.seller.example", moved); code != exitUsage || !strings.Contains(errs, "is not an origin") {
		t.Fatalf("a host for --origin: exit %d %s", code, errs)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// --limit adds a limit beside --max-amount's: a payment in an asset the
// first limit does not name is refused, signing nothing, with a hint that
// names the --limit that would judge it; given that --limit, it is paid, and
// a --limit below its amount refuses it.
func TestPayLimitFlag(t *testing.T) {
	s := newPaySeller(t)
	state := filepath.Join(t.TempDir(), "state")
	other := "0x1111111111111111111111111111111111111111"
	asset, _ := s.Option.GetString("asset")
	amount, _ := s.Option.GetString("amount")
	base := []string{"pay", "--dev-key", "--state", state, "--max-amount", "1000000", "--asset", other}
	code, out, errs := runCLI(t, "", append(base, s.ResourceURL())...)
	if code != exitDeclined || !strings.Contains(out, "policy/asset-not-allowed") ||
		!strings.Contains(errs, "hint: the limits on eip155:84532 name other assets; --limit eip155:84532/"+asset+"=N allows this one") {
		t.Fatalf("without --limit: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "", append(base, "--limit", "eip155:84532/"+asset+"=1", s.ResourceURL())...)
	if code != exitDeclined || !strings.Contains(out, "policy/amount-above-maximum") {
		t.Fatalf("--limit below the amount: exit %d\n%s\n%s", code, out, errs)
	}
	if s.signatures() != 0 {
		t.Fatalf("%d payments after refusals", s.signatures())
	}
	code, _, errs = runCLI(t, "", append(base, "--limit", "eip155:84532/"+asset+"="+amount, s.ResourceURL())...)
	if code != exitOK || s.signatures() != 1 {
		t.Fatalf("--limit at the amount: exit %d, %d payments: %s", code, s.signatures(), errs)
	}
	for _, bad := range []string{"eip155:84532", "eip155=5", "eip155:84532=-1", "eip155:84532=1.5"} {
		for _, cmd := range []string{"pay", "transact"} {
			args := []string{cmd, "--dev-key", "--state", state, "--max-amount", "1", "--limit", bad, s.ResourceURL()}
			if code, _, errs := runCLI(t, "", args...); code != exitUsage || !strings.Contains(errs, "--limit") {
				t.Fatalf("%s --limit %s: exit %d, %s", cmd, bad, code, errs)
			}
		}
	}
}
