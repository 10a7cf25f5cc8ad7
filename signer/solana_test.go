package signer_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
	"github.com/termsgate/termsgate/signer"
)

const devnet = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"

func TestSolanaKeys(t *testing.T) {
	s, err := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	if err != nil || s.Account() != devnet+":AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9" {
		t.Fatalf("%v %v", s, err)
	}
	// A keypair file as solana-keygen writes it.
	seed, _ := hex.DecodeString(signer.SolanaDevSeed)
	kp := ed25519.NewKeyFromSeed(seed)
	var nums []string
	for _, b := range kp {
		nums = append(nums, strconv.Itoa(int(b)))
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "id.json")
	_ = os.WriteFile(good, []byte("["+strings.Join(nums, ",")+"]"), 0o600)
	f, err := signer.SolanaFromKeypairFile(good, devnet)
	if err != nil || f.Account() != s.Account() {
		t.Fatalf("keypair file: %v %v", f, err)
	}
	nums[63] = strconv.Itoa((int(kp[63]) + 1) % 256)
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte("["+strings.Join(nums, ",")+"]"), 0o600)
	if _, err := signer.SolanaFromKeypairFile(bad, devnet); err == nil {
		t.Fatal("a keypair whose public key is not its seed's was loaded")
	}
	for _, body := range []string{"[1,2,3]", "{}", "[" + strings.Repeat("256,", 63) + "256]"} {
		_ = os.WriteFile(bad, []byte(body), 0o600)
		if _, err := signer.SolanaFromKeypairFile(bad, devnet); err == nil {
			t.Fatalf("loaded %s", body)
		}
	}
	if _, err := signer.SolanaFromSeedHex(signer.SolanaDevSeed, "eip155:1"); err == nil {
		t.Fatal("a Solana key on an EVM network")
	}
}

func TestSolanaSigns(t *testing.T) {
	s, _ := signer.SolanaFromSeedHex(signer.SolanaDevSeed, devnet)
	ctx := context.Background()
	raw := jsonv.Obj("kind", "ed25519-raw", "message", "0x5601", "signer", s.Key().String())
	sig, err := s.Sign(ctx, raw)
	b, ok := solana.Signature64(sig)
	pub := s.Key()
	if err != nil || !ok || !ed25519.Verify(ed25519.PublicKey(pub[:]), []byte{0x56, 0x01}, b) {
		t.Fatalf("ed25519-raw: %v %v", sig, err)
	}
	// Not this key's: refused, as is a message that does not ask it to sign.
	other := jsonv.Obj("kind", "ed25519-raw", "message", "0x5601", "signer", "9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu")
	if _, err := s.Sign(ctx, other); err == nil {
		t.Fatal("signed for another key")
	}
	msg := solana.CompileV0(solana.MustKey("9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu"), solana.SystemProgram, nil)
	if _, err := s.Sign(ctx, jsonv.Obj("kind", "solana-message", "message", "0x"+hex.EncodeToString(msg))); err == nil {
		t.Fatal("signed a message that does not name this key as a signer")
	}
	batch := jsonv.Obj("kind", "batch", "requests", []jsonv.Value{raw, raw})
	if out, err := s.Sign(ctx, batch); err != nil || len(out.([]jsonv.Value)) != 2 {
		t.Fatalf("batch: %v %v", out, err)
	}
	if _, err := s.Sign(ctx, jsonv.Obj("kind", "eip712")); err == nil {
		t.Fatal("signed an eip712 request")
	}
}
