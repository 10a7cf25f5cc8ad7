package stacks

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"github.com/termsgate/termsgate/internal/cost"
)

// m4 is mpp-charge-usdc-stacks.json's M4 wireHex: the transfer signed by
// the key whose scalar is 1.
const m4 = "80800000000400751e76e8199196d454941c45d1b3a323f1433bd6000000000000000000000000000003e80000f0648e9ea0216b4603e41c41ff38edbee7d1af46a5429207104301d6e535cad2064914e9b208c7ab8e67fa6a94bd6ec0ec2667eedeb2803ed95a9d31e7e0ca3c01020000000101021a751e76e8199196d454941c45d1b3a323f1433bd61a6d78de7b0625dfbfc16c3a8a5735f6dc3dc3f2ce0575736463780b75736463782d746f6b656e0100000000000f4240021a6d78de7b0625dfbfc16c3a8a5735f6dc3dc3f2ce057573646378087472616e736665720000000401000000000000000000000000000f4240051a751e76e8199196d454941c45d1b3a323f1433bd6051adebc095099629badb11b9d5335e874d12f1f1d450a0200000020ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

// The codec reads M4 and writes it back, its txid is the vector's, its
// addresses are the fixture's, and signing its SIP-005 hash with the
// scalar-1 key (RFC 6979) gives its signature byte for byte.
func TestM4(t *testing.T) {
	raw, _ := hex.DecodeString(m4)
	tx, err := DecodeTx(raw)
	if err != nil {
		t.Fatal(err)
	}
	if id := TxID(raw); hex.EncodeToString(id[:]) != "4621fc1b170fb322aa8572f6ee51c44981596188c2b0f2f31753d96fffad6baa" {
		t.Fatalf("txid %x", id)
	}
	if a := Address(26, tx.Signer); a != "ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF" {
		t.Fatalf("sender %s", a)
	}
	if a := Address(tx.Contract.Version, tx.Contract.Hash) + "." + tx.Contract.Name; a != "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.usdcx" {
		t.Fatalf("contract %s", a)
	}
	for _, s := range []string{"ST3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8NQXMNRQ", "ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF"} {
		if v, h, ok := ParseAddress(s); !ok || Address(v, h) != s {
			t.Fatalf("%s does not read", s)
		}
	}
	if _, _, ok := ParseAddress("ST3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8NQXMNRR"); ok {
		t.Fatal("a bad checksum read")
	}
	var one [32]byte
	one[31] = 1
	key := secp256k1.PrivKeyFromBytes(one[:])
	h := tx.SigHash()
	c := ecdsa.SignCompact(key, h[:], true)
	sig := append([]byte{c[0] - 31}, c[1:]...)
	if !bytes.Equal(sig, tx.Signature[:]) {
		t.Fatalf("signature %x, want %x", sig, tx.Signature)
	}
	if _, err := DecodeTx(append(raw, 0)); err == nil {
		t.Fatal("a trailing byte read")
	}
}

// FuzzDecodeTx: any bytes decode to a transaction that writes back to
// them, or an error; never a panic.
func FuzzDecodeTx(f *testing.F) {
	raw, _ := hex.DecodeString(m4)
	f.Add(raw)
	f.Fuzz(func(t *testing.T, b []byte) {
		cost.Bound(t, len(b), func() {
			tx, err := DecodeTx(b)
			if err == nil && !bytes.Equal(tx.Encode(), b) {
				t.Fatal("decoded bytes do not write back")
			}
		})
	})
}
