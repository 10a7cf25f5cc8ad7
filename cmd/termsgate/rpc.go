package main

import (
	"errors"
	"flag"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/signer"
	"github.com/termsgate/termsgate/signer/evmrpc"
)

// --rpc: the JSON-RPC node a signer that broadcasts (mpp/charge/tempo/push)
// sends through, taking its fees, gas and receipt from it. Without it such a
// payment is declined before anything is signed: termsgate never broadcasts
// with signer.DefaultTempoFees' placeholder fees.

func (k *keyFlags) addRPCFlag(fs *flag.FlagSet) {
	fs.StringVar(&k.rpc, "rpc", "", "an http(s) JSON-RPC node of --network's chain, for payments the signer broadcasts (mpp/charge/tempo/push); without it they are declined")
}

// checkRPC refuses --rpc for a chain whose signer does not broadcast through
// it.
func (k *keyFlags) checkRPC(otherChain bool) error {
	if k.rpc != "" && otherChain {
		return errors.New("--rpc serves eip155 networks; --network " + k.network + " is not one")
	}
	return nil
}

// withNode gives an EVM key the node of --rpc, when one is named.
func (k *keyFlags) withNode(l *signer.Local, err error) (gate.Signer, error) {
	if err != nil {
		return nil, err
	}
	if k.rpc == "" {
		return l, nil
	}
	node, err := evmrpc.Dial(k.rpc)
	if err != nil {
		return nil, errors.New("--rpc: " + err.Error())
	}
	return signer.NewTempo(l, node), nil
}
