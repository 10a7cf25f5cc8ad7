package main

import (
	"flag"
	"fmt"
	"net/http"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/xrpl"
	"github.com/termsgate/termsgate/rails/xrpl/xrplrpc"
	"github.com/termsgate/termsgate/signer"
)

// The XRP Ledger's local signer, for --network xrpl:<id>: --dev-key is the
// vectors' published payer (Ed25519 entropy 01×16), --key-file a file
// holding an XRPL seed (sEd… or a family seed s…), readable by its owner
// only. A seed file has no passphrase.
func init() {
	chainKeys["xrpl"] = chainKey{
		dev: func(network string) (gate.Signer, error) {
			if _, ok := xrpl.NetworkID(network); !ok {
				return nil, fmt.Errorf("--network %q is not xrpl:<network id>", network)
			}
			return signer.XRPLDev(network)
		},
		file: func(path, _, network string) (gate.Signer, error) {
			if _, ok := xrpl.NetworkID(network); !ok {
				return nil, fmt.Errorf("--network %q is not xrpl:<network id>", network)
			}
			return signer.XRPLFromSeedFile(path, network)
		},
		plain: true,
	}
}

// xrplFlags give the XRPL pairings their buyer inputs from a rippled
// JSON-RPC endpoint.
type xrplFlags struct {
	rpc    string
	maxFee uint64
}

func addXRPLFlags(fs *flag.FlagSet) *xrplFlags {
	x := &xrplFlags{}
	fs.StringVar(&x.rpc, "xrpl-rpc", "", "a rippled JSON-RPC URL giving XRPL payments their fee, sequence and last ledger (fee, account_info, ledger_current)")
	fs.Uint64Var(&x.maxFee, "xrpl-max-fee", xrplrpc.DefaultMaxFee, "with --xrpl-rpc: the most drops of fee to pay")
	return x
}

// inputs is pay.Transport.Inputs for the signer's XRPL account: nil without
// --xrpl-rpc or for a signer on another chain.
func (x *xrplFlags) inputs(s gate.Signer, hc *http.Client) func(string) *jsonv.Object {
	acct, ok := rails.ParseAccount(s.Account())
	if x == nil || x.rpc == "" || !ok || acct.Namespace != "xrpl" {
		return nil
	}
	in := &xrplrpc.Inputs{Client: &xrplrpc.Client{URL: x.rpc, HTTP: hc, MaxFee: x.maxFee}, Account: acct.Address}
	return in.For
}
