package solana_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
)

// oneTx is a Reader holding one landed transaction at finalized.
type oneTx struct {
	sig    string
	landed *solana.Landed
	reads  int
}

func (o *oneTx) Network() string { return "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" }
func (o *oneTx) Transaction(sig, commitment string) (*solana.Landed, error) {
	o.reads++
	if sig != o.sig || commitment != solana.CommitmentFinalized {
		return nil, nil
	}
	return o.landed, nil
}

// A transfer made by a program the transaction calls (an inner
// instruction, its program a key a lookup table loaded) counts as the
// transfer; the same transaction without it is failed no-transfer, and an
// inner program index past every key is no transfer either.
func TestTransferStatusReadsInnerInstructions(t *testing.T) {
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	var payer solana.Key
	copy(payer[:], key.Public().(ed25519.PublicKey))
	router := solana.MustKey("2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4")
	msg := solana.CompileV0(payer, solana.MustKey("EZ3rST5dvHmbanh75jc4PuLfV96vp9fEYBVeNk4FfM1k"), []solana.Ix{{Program: router, Data: []byte{9}}})
	sig := ed25519.Sign(key, msg)
	wire, ok := solana.SignedWire(msg, payer, sig)
	if !ok {
		t.Fatal("wire")
	}
	tx, _, _ := solana.DecodeTx(wire)
	digest := sha256.Sum256(msg)
	ref := jsonv.Obj("network", "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "transaction", solana.Base58(sig), "digest", "0x"+hex.EncodeToString(digest[:]))
	loaded := uint8(len(tx.Keys)) // the first loaded address
	for _, c := range []struct {
		name  string
		inner []solana.Instruction
		want  string
	}{
		{"inner TransferChecked", []solana.Instruction{{Program: loaded, Data: []byte{0x0c, 1}}}, `{"state":"settled","commitment":"finalized"}`},
		{"no inner", nil, `{"state":"failed","why":"no-transfer"}`},
		{"index past the keys", []solana.Instruction{{Program: loaded + 1, Data: []byte{0x0c, 1}}}, `{"state":"failed","why":"no-transfer"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &oneTx{sig: solana.Base58(sig), landed: &solana.Landed{Wire: wire, Loaded: []solana.Key{solana.TokenProgram}, Inner: c.inner}}
			if got := jsonv.String(solana.TransferStatus(ref, r).JSON()); got != c.want {
				t.Fatalf("status %s, want %s", got, c.want)
			}
			if r.reads != 1 {
				t.Fatalf("%d reads", r.reads)
			}
		})
	}
	// A reference it cannot read is pending unreadable with no read.
	r := &oneTx{}
	bad := ref.Clone()
	bad.Set("digest", "0x12")
	if s := solana.TransferStatus(bad, r); s.Why != solana.WhyUnreadable || r.reads != 0 {
		t.Fatalf("bad digest: %+v, %d reads", s, r.reads)
	}
}
