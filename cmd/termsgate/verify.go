package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/rails/xrpl/xrplrpc"
)

// --verify-settlement: after the seller accepts the payment, read its
// transaction from the chain (--xrpl-rpc, --stellar-rpc) and say what does
// not hold; pay then exits 1 (docs/paying-client.md, "Checking settlement").

func addVerifyFlag(fs *flag.FlagSet, v *bool) {
	fs.BoolVar(v, "verify-settlement", false, "read the paid transaction from the chain (XRPL: --xrpl-rpc; Stellar: --stellar-rpc) and exit 1 unless it landed, from the payer, to the payee, for the amount, carrying H")
}

// verifier is the pay.Verifier of --network's chain, with its RPC flag.
func (f *payFlags) verifier(hc *http.Client) (*pay.Verifier, error) {
	network := f.keys.network
	switch {
	case strings.HasPrefix(network, "xrpl:"):
		if f.xrpl.rpc == "" {
			return nil, errors.New("--verify-settlement on " + network + " reads the ledger through --xrpl-rpc URL")
		}
		r := xrplrpc.Reader{Client: &xrplrpc.Client{URL: f.xrpl.rpc, HTTP: hc}, Of: network}
		return &pay.Verifier{XRPL: map[string]xrpl.Reader{network: r}}, nil
	case strings.HasPrefix(network, "stellar:"):
		if f.stellar.rpc == "" {
			return nil, errors.New("--verify-settlement on " + network + " reads the ledger through --stellar-rpc URL")
		}
		r := sorobanrpc.Reader{Client: &sorobanrpc.Client{URL: f.stellar.rpc, HTTP: hc}, Of: network}
		return &pay.Verifier{Stellar: map[string]stellar.Reader{network: r}}, nil
	}
	return nil, errors.New("--verify-settlement reads XRPL and Stellar settlements; --network " + network + " is neither")
}

// reportVerification says what the chain showed; false when it does not
// hold.
func reportVerification(stderr io.Writer, res *pay.Result) bool {
	v := res.Verified
	if v == nil {
		fmt.Fprintln(stderr, "termsgate: settlement NOT checked: the seller did not accept the payment")
		return false
	}
	if v.OK() {
		fmt.Fprintf(stderr, "termsgate: settlement checked on chain: transaction %s %s\n", termText(v.Transaction), termText(jsonv.String(v.Status)))
		return true
	}
	fmt.Fprintf(stderr, "termsgate: settlement does NOT hold: %s (transaction %s, %s)\n", strings.Join(v.Problems, ", "),
		termText(v.Transaction), termText(jsonv.String(v.Status)))
	return false
}
