package signer

import (
	"fmt"
	"os"

	"github.com/ethereum/go-ethereum/accounts/keystore"
)

// FromKeystore decrypts a go-ethereum (Web3 Secret Storage v3) keystore JSON
// with passphrase and returns a signer for its key on network.
func FromKeystore(keyJSON []byte, passphrase, network string) (*Local, error) {
	key, err := keystore.DecryptKey(keyJSON, passphrase)
	if err != nil {
		return nil, fmt.Errorf("signer: keystore: %w", err)
	}
	return NewLocal(key.PrivateKey, network), nil
}

// FromKeystoreFile is FromKeystore on a file.
func FromKeystoreFile(path, passphrase, network string) (*Local, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signer: keystore: %w", err)
	}
	return FromKeystore(data, passphrase, network)
}
