package signer

import (
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
)

// The two test vectors of the Web3 Secret Storage definition
// (https://ethereum.org/developers/docs/data-structures-and-encoding/web3-secret-storage/#test-vectors):
// password "testpassword", key 7a28b5ba….
const (
	wikiKey    = "7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d"
	wikiScrypt = `{"crypto":{"cipher":"aes-128-ctr","cipherparams":{"iv":"83dbcc02d8ccb40e466191a123791e0e"},"ciphertext":"d172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c","kdf":"scrypt","kdfparams":{"dklen":32,"n":262144,"r":1,"p":8,"salt":"ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19"},"mac":"2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097"},"id":"3198bc9c-6672-5ab3-d995-4942343ae5b6","version":3}`
	wikiPBKDF2 = `{"crypto":{"cipher":"aes-128-ctr","cipherparams":{"iv":"6087dab2f9fdbbfaddc31a909735c1e6"},"ciphertext":"5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46","kdf":"pbkdf2","kdfparams":{"c":262144,"dklen":32,"prf":"hmac-sha256","salt":"ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd"},"mac":"517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2"},"id":"3198bc9c-6672-5ab3-d995-4942343ae5b6","version":3}`
)

func TestDecryptKeystoreVectors(t *testing.T) {
	for name, file := range map[string]string{"scrypt": wikiScrypt, "pbkdf2": wikiPBKDF2} {
		key, err := DecryptKeystore([]byte(file), "testpassword")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := hex.EncodeToString(crypto.FromECDSA(key)); got != wikiKey {
			t.Fatalf("%s: key %s", name, got)
		}
		if _, err := DecryptKeystore([]byte(file), "testpassworD"); !errors.Is(err, ErrWrongPassphrase) {
			t.Fatalf("%s: wrong passphrase gave %v", name, err)
		}
	}
}

// TestKeystoreMatchesGoEthereum: what EncryptKeystore writes, go-ethereum's
// keystore opens, and what go-ethereum writes, DecryptKeystore opens.
func TestKeystoreMatchesGoEthereum(t *testing.T) {
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ours, err := EncryptKeystore(key, "correct horse", 1<<12)
	if err != nil {
		t.Fatal(err)
	}
	k, err := keystore.DecryptKey(ours, "correct horse")
	if err != nil || !k.PrivateKey.Equal(key) {
		t.Fatalf("go-ethereum could not open ours: %v\n%s", err, ours)
	}
	if a, err := KeystoreAddress(ours); err != nil || a != crypto.PubkeyToAddress(key.PublicKey).Hex() {
		t.Fatalf("address %s, %v", a, err)
	}
	theirs, err := keystore.EncryptKey(&keystore.Key{Id: k.Id, Address: k.Address, PrivateKey: key}, "battery staple", keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecryptKeystore(theirs, "battery staple")
	if err != nil || !got.Equal(key) {
		t.Fatalf("could not open go-ethereum's: %v", err)
	}
}

// TestDecryptKeystoreRefusesHostileFiles: parameters that would make the
// KDF take gigabytes or hours, and files that name another address, are
// refused before any work.
func TestDecryptKeystoreRefusesHostileFiles(t *testing.T) {
	key, _ := crypto.GenerateKey()
	good, _ := EncryptKeystore(key, "p", 1<<4)
	other, _ := crypto.GenerateKey()
	otherAddr := strings.ToLower(crypto.PubkeyToAddress(other.PublicKey).Hex()[2:])
	for name, c := range map[string]struct {
		file, want string
	}{
		"huge n":      {strings.Replace(wikiScrypt, `"n":262144`, `"n":1073741824`, 1), "out of range"},
		"n not power": {strings.Replace(wikiScrypt, `"n":262144`, `"n":262143`, 1), "out of range"},
		"huge c":      {strings.Replace(wikiPBKDF2, `"c":262144`, `"c":2000000000`, 1), "out of range"},
		"other prf":   {strings.Replace(wikiPBKDF2, `hmac-sha256`, `hmac-sha1`, 1), "out of range"},
		"version 1":   {strings.Replace(wikiScrypt, `"version":3`, `"version":1`, 1), "version 1"},
		"other kdf":   {strings.Replace(wikiScrypt, `"kdf":"scrypt"`, `"kdf":"argon2"`, 1), "kdf"},
		"other addr":  {strings.Replace(string(good), `"address": "`+strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex()[2:]), `"address": "`+otherAddr, 1), "not the address"},
		"not json":    {"not a key file", "not a key file"},
	} {
		var k *ecdsa.PrivateKey
		k, err := DecryptKeystore([]byte(c.file), "p")
		if err == nil || k != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
