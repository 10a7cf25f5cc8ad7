package signer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"

	"github.com/termsgate/termsgate/jsonv"
)

func TestLocalAccountIsTheAnvilAddress(t *testing.T) {
	l, err := FromHex(AnvilKey, "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Account(); got != "eip155:84532:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" {
		t.Fatalf("account %s", got)
	}
}

func TestLocalRefusesWhatItCannotSign(t *testing.T) {
	l, _ := FromHex(AnvilKey, "eip155:84532")
	for _, req := range []*jsonv.Object{
		jsonv.Obj("kind", "solana-message"),
		jsonv.Obj("kind", "eip712"),
		jsonv.Obj("kind", "eip712", "typedData", jsonv.Obj("primaryType", "Nope")),
	} {
		if _, err := l.Sign(context.Background(), req); err == nil {
			t.Errorf("signed %s", jsonv.String(req))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Sign(ctx, jsonv.Obj("kind", "eip712")); err == nil {
		t.Error("signed after cancellation")
	}
}

func TestKeystoreRoundTripAndWrongPassphrase(t *testing.T) {
	priv, _ := crypto.HexToECDSA(strings.TrimPrefix(AnvilKey, "0x"))
	key := &keystore.Key{Id: uuid.New(), Address: crypto.PubkeyToAddress(priv.PublicKey), PrivateKey: priv}
	blob, err := keystore.EncryptKey(key, "correct horse", keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	l, err := FromKeystore(blob, "correct horse", "eip155:84532")
	if err != nil {
		t.Fatal(err)
	}
	if l.Address() != key.Address {
		t.Fatalf("address %s", l.Address())
	}
	if _, err := FromKeystore(blob, "wrong", "eip155:84532"); !errors.Is(err, ErrWrongPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
}

func TestLocalSignsABatchInOrder(t *testing.T) {
	l, _ := FromHex(AnvilKey, "eip155:84532")
	td := func(nonce string) *jsonv.Object {
		return jsonv.Obj("domain", jsonv.Obj("name", "X", "chainId", 1),
			"types", jsonv.Obj("M", []jsonv.Value{jsonv.Obj("name", "n", "type", "bytes32")}),
			"primaryType", "M", "message", jsonv.Obj("n", nonce))
	}
	a := "0x" + strings.Repeat("11", 32)
	b := "0x" + strings.Repeat("22", 32)
	one := func(n string) *jsonv.Object { return jsonv.Obj("kind", "eip712", "typedData", td(n)) }
	got, err := l.Sign(context.Background(), jsonv.Obj("kind", "batch", "requests", []jsonv.Value{one(a), one(b)}))
	if err != nil {
		t.Fatal(err)
	}
	wantA, _ := l.Sign(context.Background(), one(a))
	wantB, _ := l.Sign(context.Background(), one(b))
	list, ok := got.([]jsonv.Value)
	if !ok || len(list) != 2 || list[0] != wantA || list[1] != wantB {
		t.Fatalf("batch answers %v", got)
	}
	for _, bad := range []*jsonv.Object{
		jsonv.Obj("kind", "batch"),
		jsonv.Obj("kind", "batch", "requests", []jsonv.Value{}),
		jsonv.Obj("kind", "batch", "requests", []jsonv.Value{"x"}),
		jsonv.Obj("kind", "batch", "requests", []jsonv.Value{jsonv.Obj("kind", "batch", "requests", []jsonv.Value{one(a)})}),
		jsonv.Obj("kind", "batch", "requests", make([]jsonv.Value, 9)),
	} {
		if _, err := l.Sign(context.Background(), bad); err == nil {
			t.Errorf("signed %s", jsonv.String(bad))
		}
	}
}
