package stacks

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
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

// FuzzUSDCStacksCredential: any payload transaction and format text reads
// through Bound, Reference, Inspect and InspectTransaction without a panic.
func FuzzUSDCStacksCredential(f *testing.F) {
	raw, _ := hex.DecodeString(m4)
	f.Add(base64.StdEncoding.EncodeToString(raw), TransactionFormat)
	f.Add("", "")
	f.Add("AA==", "stacks_transaction_v2")
	challenge := jsonv.Obj("realm", "api.seller.example", "method", "usdc", "intent", "charge",
		"request", "eyJhbW91bnQiOiIxMDAwMDAwIiwiY3VycmVuY3kiOiJTVDFQUUhRS1YwUkpYWkZZMURHWDhNTlNOWVZFM1ZHWkpTUlRQR1pHTS51c2RjeDo6dXNkY3gtdG9rZW4iLCJyZWNpcGllbnQiOiJTVDNGQlIyQUdLNUg5UUJESDNFRU42REY4RUs4Slk3Ulg4TlFYTU5SUSIsIm1ldGhvZERldGFpbHMiOnsidHlwZSI6InN0YWNrcyIsInN0YWNrcyI6eyJuZXR3b3JrIjoidGVzdG5ldCIsImNoYWluSWQiOiIyMTQ3NDgzNjQ4IiwiY29udHJhY3RBZGRyZXNzIjoiU1QxUFFIUUtWMFJKWFpGWTFER1g4TU5TTllWRTNWR1pKU1JUUEdaR00iLCJjb250cmFjdE5hbWUiOiJ1c2RjeCIsImFzc2V0TmFtZSI6InVzZGN4LXRva2VuIiwiZnVuY3Rpb25OYW1lIjoidHJhbnNmZXIiLCJkZWNpbWFscyI6Nn19fQ",
		"expires", "2026-09-21T14:14:20Z", "id", "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0.0",
		"opaque", "eyJsZWdhbENvbnRleHQiOiJsY3A6c2hhMjU2OjB4YmE3ODE2YmY4ZjAxY2ZlYTQxNDE0MGRlNWRhZTIyMjNiMDAzNjFhMzk2MTc3YTljYjQxMGZmNjFmMjAwMTVhZCIsImxlZ2FsQ29udGV4dFVybCI6Imh0dHBzOi8vYXRyLnNlbGxlci5leGFtcGxlLzB4YmE3ODE2YmY4ZjAxY2ZlYTQxNDE0MGRlNWRhZTIyMjNiMDAzNjFhMzk2MTc3YTljYjQxMGZmNjFmMjAwMTVhZCJ9")
	f.Fuzz(func(t *testing.T, tx, format string) {
		cost.Bound(t, len(tx)+len(format), func() {
			p := jsonv.Obj("challenge", challenge.Clone(), "source", "stacks:2147483648:ST1THWXQ8368SDN2MJGE4BMDKMCHZ2GSVTSQDA7QF",
				"payload", jsonv.Obj("type", "transaction", "transaction", tx, "transactionFormat", format))
			h, err := ChargeUSDC{}.Bound(p)
			if err == nil && h != "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
				t.Fatalf("bound %s", h)
			}
			_, _ = ChargeUSDC{}.Reference(p)
			_, _ = ChargeUSDC{}.Inspect(p)
			if b, err := base64.StdEncoding.DecodeString(tx); err == nil {
				_, _ = InspectTransaction(hex.EncodeToString(b))
			}
		})
	})
}

// FuzzStacksSigningRequest: any transaction bytes, network and nonce text
// in a stacks-contract-call request read through Summarize (as the
// signer does before signing) to a grant or an error; a grant's transfer
// always carries a 32-byte memo and the post-condition.
func FuzzStacksSigningRequest(f *testing.F) {
	raw, _ := hex.DecodeString(m4)
	f.Add(raw, "stacks:2147483648", "0")
	f.Add([]byte{0x80}, "stacks:1", "")
	f.Fuzz(func(t *testing.T, b []byte, network, nonce string) {
		cost.Bound(t, len(b)+len(network)+len(nonce), func() {
			req := jsonv.Obj("kind", KindContractCall, "network", network, "transaction", "0x"+hex.EncodeToString(b))
			if nonce != "" {
				req.Set("nonce", nonce)
			}
			if _, err := (ChargeUSDC{}).Summarize(req); err == nil {
				tx, tr, err := ReadRequest(req)
				if err != nil || !tr.Guarded || len(tx.Args[3]) != 38 {
					t.Fatal("a summarized request that does not read")
				}
			}
		})
	})
}

// c32Encode is the base-32 number with one '0' per leading zero byte: the
// bit-wise writer agrees with big.Int's digits, and ParseAddress reads back
// every address Address writes, for hashes with leading zero bytes too.
func TestC32AgreesWithBigInt(t *testing.T) {
	ref := func(b []byte) string {
		n := new(big.Int).SetBytes(b)
		s := ""
		if n.Sign() > 0 {
			s = strings.ToUpper(n.Text(32))
			s = strings.Map(func(r rune) rune { return rune(c32Alphabet[strings.IndexRune("0123456789ABCDEFGHIJKLMNOPQRSTUV", r)]) }, s)
		}
		for _, c := range b {
			if c != 0 {
				break
			}
			s = "0" + s
		}
		return s
	}
	for i := 0; i < 2000; i++ {
		var h [20]byte
		for j := range h {
			h[j] = byte(i*7 + j*13 + i*j)
		}
		for z := 0; z < i%4; z++ {
			h[z] = 0
		}
		b := append(h[:], byte(i), byte(i>>8), 0, 1)
		if got, want := c32Encode(b), ref(b); got != want {
			t.Fatalf("%x: %s, want %s", b, got, want)
		}
		for _, v := range []byte{22, 26, 20, 21} {
			a := Address(v, h)
			if gv, gh, ok := ParseAddress(a); !ok || gv != v || gh != h {
				t.Fatalf("%s does not read back", a)
			}
		}
	}
}

// TestPrincipalVersionBound: a principal's version is one c32 character, so
// a transaction naming a contract of version 32 or more, or a transfer
// argument of one, is refused as malformed instead of written (which
// indexed past c32's alphabet: a panic).
func TestPrincipalVersionBound(t *testing.T) {
	raw, _ := hex.DecodeString(m4)
	tx, err := DecodeTx(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []byte{31, 32, 40, 255} {
		bad := *tx
		bad.Contract.Version = v
		_, err := DecodeTx(bad.Encode())
		if (err == nil) != (v < 32) {
			t.Fatalf("contract version %d: %v", v, err)
		}
		arg := append([]byte{0x05, v}, make([]byte, 20)...)
		p, ok := principalOf(arg)
		if ok != (v < 32) {
			t.Fatalf("argument version %d read %v", v, ok)
		}
		if ok {
			_ = p.String()
		}
	}
}
