package mpp

import (
	"github.com/termsgate/termsgate/internal/base58"
	"github.com/termsgate/termsgate/jsonv"
)

// PairingSolanaSession is the Solana session's pairing (docs/solana.md).
const PairingSolanaSession = "mpp/session/solana"

// CodeSVMInputMalformed refuses a Solana session request whose keys, recent
// blockhash and slot or voucher signer are not well formed.
const CodeSVMInputMalformed = "svm/input-malformed"

func init() {
	methodChecks["session/solana"] = solanaSession
	railNetworks["session/solana"] = solanaSessionNetwork
}

// solanaSessionNetwork: methodDetails.network, which a session must name
// (svm/network-malformed when absent or not one of MPP's three names);
// localnet has no CAIP-2 id (svm/network-undeclared).
func solanaSessionNetwork(d *jsonv.Object) (string, error) {
	if !d.Has("network") {
		return "", refuse(CodeSVMNetworkMalformed)
	}
	return solanaChargeNetwork(d)
}

// SolanaSessionNetwork is a checked Solana session challenge's network,
// read from its methodDetails as Network reads it (for a reader that holds
// the checked challenge already and need not decode its request again).
func SolanaSessionNetwork(details *jsonv.Object) (string, error) {
	return solanaSessionNetwork(details)
}

// isSolanaKey is a string of 32 to 44 base58 characters decoding to 32
// bytes.
func isSolanaKey(v jsonv.Value) bool {
	s, ok := v.(string)
	if !ok || len(s) < 32 || len(s) > 44 {
		return false
	}
	b, ok := base58.Bitcoin.Decode(s)
	return ok && len(b) == 32
}

// solanaSession: no channel named (mpp/channel-named); a network of the
// three (localnet passes here and is refused by the build); the channel
// program, currency (a mint), recipient and recent blockhash keys, the
// recent slot a decimal and the voucher signer client or an operator key
// (svm/input-malformed).
func solanaSession(r, d *jsonv.Object) ([]string, error) {
	if d.Has("channelId") {
		return nil, refuse(CodeChannelNamed)
	}
	if n, _ := d.Get("network"); n != "localnet" {
		if _, err := solanaSessionNetwork(d); err != nil {
			return nil, err
		}
	}
	signerOK := true
	if s, has := d.Get("voucherSigner"); has {
		op, _ := d.Get("operator")
		signerOK = s == "client" || s == "operator" && isSolanaKey(op)
	}
	for _, v := range []jsonv.Value{member(d, "channelProgram"), member(r, "currency"), member(r, "recipient"), member(d, "recentBlockhash")} {
		if !isSolanaKey(v) {
			return nil, refuse(CodeSVMInputMalformed)
		}
	}
	if !signerOK || !isDecimalAt(d, "recentSlot") {
		return nil, refuse(CodeSVMInputMalformed)
	}
	return []string{PairingSolanaSession}, nil
}

func member(o *jsonv.Object, k string) jsonv.Value {
	v, _ := o.Get(k)
	return v
}
