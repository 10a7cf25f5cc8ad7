package signer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
)

// A keystore file written by go-ethereum's own KeyStore (the file geth and
// Clef keep under keystore/) opens with FromKeystoreFile; a wrong passphrase
// or a missing file is an error that says which.
func TestKeystoreFileFromGoEthereumKeyStore(t *testing.T) {
	dir := t.TempDir()
	ks := keystore.NewKeyStore(dir, keystore.LightScryptN, keystore.LightScryptP)
	priv, _ := crypto.HexToECDSA(strings.TrimPrefix(AnvilKey, "0x"))
	acct, err := ks.ImportECDSA(priv, "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	path := acct.URL.Path
	l, err := FromKeystoreFile(path, "correct horse", "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	if l.Address() != acct.Address {
		t.Fatalf("address %s, want %s", l.Address().Hex(), acct.Address.Hex())
	}

	_, err = FromKeystoreFile(path, "Correct horse", "eip155:84532")
	if !errors.Is(err, ErrWrongPassphrase) || !strings.Contains(err.Error(), "the passphrase does not open this key file") {
		t.Fatalf("wrong passphrase: %v", err)
	}

	_, err = FromKeystoreFile(filepath.Join(dir, "missing.json"), "correct horse", "eip155:84532")
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}

	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte("not a keystore"), 0o600)
	if _, err := FromKeystoreFile(junk, "correct horse", "eip155:84532"); err == nil || errors.Is(err, ErrWrongPassphrase) {
		t.Fatalf("junk file: %v", err)
	}
}
