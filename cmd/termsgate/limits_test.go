package main

import (
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
