package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/rails/stellar"
)

func TestStellarKeys(t *testing.T) {
	const payer = "stellar:testnet:GBXHUHG5FGYLPD6RHL2MKWMP572O6KUXCZXDZJXS4T57ZTMAKBN7DWXN"
	s, err := (&keyFlags{network: "stellar:testnet", devKey: true}).signer(io.Discard)
	if err != nil || s.Account() != payer {
		t.Fatalf("dev key: %v (%v)", s, err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "stellar.key")
	var seed [32]byte
	for i := range seed {
		seed[i] = 5
	}
	if err := os.WriteFile(file, []byte(stellar.EncodeSeed(seed)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = (&keyFlags{network: "stellar:testnet", keyFile: file}).signer(io.Discard)
	if err != nil || s.Account() != payer {
		t.Fatalf("key file: %v (%v)", s, err)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (&keyFlags{network: "stellar:testnet", keyFile: file}).signer(io.Discard); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a world-readable secret: %v", err)
	}
	bad := filepath.Join(dir, "bad.key")
	if err := os.WriteFile(bad, []byte("SABC"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (&keyFlags{network: "stellar:testnet", keyFile: bad}).signer(io.Discard); err == nil || !strings.Contains(err.Error(), "S…") {
		t.Fatalf("a bad secret: %v", err)
	}
	if _, err := (&keyFlags{network: "stellar:futurenet", devKey: true}).signer(io.Discard); err == nil {
		t.Fatal("futurenet accepted")
	}
}
