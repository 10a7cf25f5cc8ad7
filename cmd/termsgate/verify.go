package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/rails/solana/solanarpc"
	"github.com/termsgate/termsgate/rails/stellar"
	"github.com/termsgate/termsgate/rails/stellar/sorobanrpc"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/rails/xrpl/xrplrpc"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// --verify-settlement: after the seller accepts the payment, read its
// transaction from the chain (eip155: --rpc; solana: --solana-rpc; XRPL:
// --xrpl-rpc; Stellar: --stellar-rpc) and say what does not hold; pay then
// exits 3 (docs/paying-client.md, "Checking settlement").

func addVerifyFlag(fs *flag.FlagSet, v *bool) {
	fs.BoolVar(v, "verify-settlement", false, "read the paid transaction from the chain (eip155: --rpc; Solana: --solana-rpc; XRPL: --xrpl-rpc; Stellar: --stellar-rpc) and exit 3 unless it landed, from the payer, to the payee, for the amount, carrying H")
}

// verifier is the pay.Verifier of --network's chain, with its RPC flag. An
// eip155 node is asked its chain id first: a node of another chain is a
// usage error, before anything is signed.
func (f *payFlags) verifier(ctx context.Context, hc *http.Client) (*pay.Verifier, error) {
	network := f.keys.network
	switch {
	case strings.HasPrefix(network, "eip155:"):
		if f.keys.rpc == "" {
			return nil, errors.New("--verify-settlement on " + network + " reads the receipt through --rpc URL")
		}
		c, err := gethrpc.DialOptions(ctx, f.keys.rpc, gethrpc.WithHTTPClient(hc))
		if err != nil {
			return nil, errors.New("--rpc: " + err.Error())
		}
		r, err := evmrpc.New(c).Reader(ctx)
		if err != nil {
			return nil, errors.New("--rpc: reading the chain id: " + err.Error())
		}
		if r.Network() != network {
			return nil, errors.New("--rpc serves " + r.Network() + ", not --network " + network)
		}
		return &pay.Verifier{EVM: map[string]evm.Reader{network: r}}, nil
	case strings.HasPrefix(network, "solana:"):
		if f.solana.rpc == "" {
			return nil, errors.New("--verify-settlement on " + network + " reads the transaction through --solana-rpc URL")
		}
		r := solanarpc.Reader{Client: &solanarpc.Client{URL: f.solana.rpc, HTTP: hc}, Of: network, Ctx: ctx}
		return &pay.Verifier{Solana: map[string]solana.Reader{network: r}}, nil
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
	return nil, errors.New("--verify-settlement reads eip155, Solana, XRPL and Stellar settlements; --network " + network + " is none of them")
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
