package main

import (
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/signer"
)

// Solana keys for --network solana:…: --dev-key is the vectors' published
// payer seed (01×32); --key-file a keypair file as solana-keygen writes it
// (a JSON array of 64 bytes, unencrypted: the passphrase is not used).
func init() {
	chainKeys["solana"] = chainKey{
		dev: func(network string) (gate.Signer, error) {
			return signer.SolanaFromSeedHex(signer.SolanaDevSeed, network)
		},
		file: func(path, _, network string) (gate.Signer, error) {
			return signer.SolanaFromKeypairFile(path, network)
		},
	}
}
