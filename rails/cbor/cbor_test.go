package cbor

import (
	"bytes"
	"encoding/hex"
	"testing"

	"golang.org/x/crypto/blake2b"
)

// x402-exact-cardano.json's V1: the CIP-20 auxiliary data carrying H's LCP
// string under label 674 (tag 259, an Alonzo metadata map), 95 bytes, and
// its Blake2b-256.
const (
	auxHex  = "d90103a100a11902a2a1636d7367826d6c63703a7368613235363a3078784062613738313662663866303163666561343134313430646535646165323232336230303336316133393631373761396362343130666636316632303031356164"
	auxHash = "975482a8810b92bc8fa12ecee0826b936ef584e8af3b5abd4530b9f40e69f8fb"
)

func TestAuxiliaryData(t *testing.T) {
	v := Tagged(259, M(U(0), M(U(674), M(T("msg"), A(T("lcp:sha256:0x"),
		T("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))))))
	b := Encode(v)
	if hex.EncodeToString(b) != auxHex || len(b) != 95 {
		t.Fatalf("encoded %x", b)
	}
	if h := blake2b.Sum256(b); hex.EncodeToString(h[:]) != auxHash {
		t.Fatalf("blake2b %x", h)
	}
	d, err := Decode(b)
	if err != nil || !bytes.Equal(Encode(d), b) || !bytes.Equal(d.Raw, b) {
		t.Fatalf("decoded %v", err)
	}
	msg := d.Items[0].Get(0).Get(674)
	if msg == nil || len(msg.Items) != 2 || string(msg.Items[1].Items[1].B) != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatal("label 674 not read")
	}
}

func TestRefusals(t *testing.T) {
	for name, h := range map[string]string{
		"empty":             "",
		"trailing":          "0000",
		"not shortest":      "1817",
		"not shortest u16":  "190017",
		"indefinite array":  "9f00ff",
		"indefinite bytes":  "5f40ff",
		"float":             "f93c00",
		"undefined":         "f7",
		"reserved":          "1c",
		"short bytes":       "4301",
		"bad utf-8":         "61ff",
		"array too long":    "9bffffffffffffffff",
		"duplicate key":     "a2000100 02",
		"map missing value": "a100",
	} {
		b, _ := hex.DecodeString(stripSpaces(h))
		if _, err := Decode(b); err == nil {
			t.Errorf("%s: read", name)
		}
	}
	deep := bytes.Repeat([]byte{0x81}, MaxDepth+2)
	if _, err := Decode(append(deep, 0)); err != ErrTooLarge {
		t.Errorf("depth: %v", err)
	}
	if _, err := Decode(make([]byte, MaxInput+1)); err != ErrTooLarge {
		t.Errorf("size: %v", err)
	}
	many := append([]byte{0x99, 0x20, 0x00}, make([]byte, 0x2000)...)
	if _, err := Decode(many); err != ErrTooLarge {
		t.Errorf("items: %v", err)
	}
}

func stripSpaces(s string) string { return string(bytes.ReplaceAll([]byte(s), []byte(" "), nil)) }

// FuzzDecode: the reader never panics, and what it reads is in the
// shortest form, so it writes back to its own bytes.
func FuzzDecode(f *testing.F) {
	b, _ := hex.DecodeString(auxHex)
	f.Add(b)
	f.Add([]byte{0x82, 0x01, 0x20})
	f.Add([]byte{0xa1, 0x61, 0x61, 0xf5})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode(b)
		if err != nil {
			return
		}
		if !bytes.Equal(Encode(v), b) || !bytes.Equal(v.Raw, b) {
			t.Fatalf("%x written back as %x", b, Encode(v))
		}
	})
}
