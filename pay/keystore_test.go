package pay_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"

	"github.com/termsgate/termsgate/pay"
	"github.com/termsgate/termsgate/signer"
)

// A real encrypted keystore pays; the wrong passphrase is a clear error
// before anything is requested.
func TestKeystoreSignerPaysAndWrongPassphraseIsClear(t *testing.T) {
	priv, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	key := &keystore.Key{Id: uuid.New(), Address: crypto.PubkeyToAddress(priv.PublicKey), PrivateKey: priv}
	blob, err := keystore.EncryptKey(key, "correct horse", keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(path, blob, 0o600); err != nil {
		t.Fatal(err)
	}

	_, err = signer.FromKeystoreFile(path, "wrong", network)
	if !errors.Is(err, signer.ErrWrongPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}

	ks, err := signer.FromKeystoreFile(path, "correct horse", network)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, nil)
	e.signer = &countingSigner{Signer: ks}
	e.transport.Signer = e.signer
	resp, body, err := get(t, e.client, e.seller.ResourceURL())
	if err != nil || resp.StatusCode != 200 || string(body) != paidBody {
		t.Fatalf("%v %v %q (seller: %v)", err, resp, body, e.seller.LastRejection())
	}
	r := pay.ResultOf(resp)
	if r.Settlement.Payer != key.Address.Hex() || r.Summary.Payer != key.Address.Hex() {
		t.Fatalf("payer %s / %s, want %s", r.Settlement.Payer, r.Summary.Payer, key.Address.Hex())
	}
}
