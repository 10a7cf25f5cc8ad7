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

// FuzzDecode: the reader never panics, what it reads is in the shortest
// form, so it writes back to its own bytes, and it holds as many items as
// the first pass counted (the slab is sized right).
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
		if n, c := items(v), countItems(b); n != c {
			t.Fatalf("%x: %d items read, %d counted", b, n, c)
		}
	})
}

// TestDecoderCaps: the item cap holds at its edge with the slabs in use
// (MaxItems items read, one more refused), as does the depth cap, and a
// first pass that cannot finish leaves the refusal to the reader.
func TestDecoderCaps(t *testing.T) {
	// an array of MaxItems-1 zeros: MaxItems items in all
	n := MaxItems - 1
	b := append(AppendHead(nil, Array, uint64(n)), make([]byte, n)...)
	v, err := Decode(b)
	if err != nil || len(v.Items) != n {
		t.Fatalf("MaxItems items: %v", err)
	}
	b = append(AppendHead(nil, Array, uint64(n+1)), make([]byte, n+1)...)
	if _, err := Decode(b); err != ErrTooLarge {
		t.Fatalf("MaxItems+1 items: %v", err)
	}
	deep := append(bytes.Repeat([]byte{0x81}, MaxDepth), 0)
	if _, err := Decode(deep); err != nil {
		t.Fatalf("depth %d: %v", MaxDepth, err)
	}
	if _, err := Decode(append([]byte{0x81}, deep...)); err != ErrTooLarge {
		t.Fatalf("depth %d: %v", MaxDepth+1, err)
	}
	// the heads count, but the text is not UTF-8: the reader refuses it
	if _, err := Decode([]byte{0x82, 0x61, 0xff, 0x00}); err != ErrMalformed {
		t.Fatalf("bad utf-8 in an array: %v", err)
	}
}

// TestDecoderSlab: a decode allocates a fixed few times, not once per item,
// and the items share no room: appending to one array's items leaves its
// sibling's as they were.
func TestDecoderSlab(t *testing.T) {
	b, _ := hex.DecodeString(auxHex)
	if n := testing.AllocsPerRun(100, func() { _, _ = Decode(b) }); n > 3 {
		t.Errorf("Decode of %d items: %v allocations", countItems(b), n)
	}
	v, err := Decode([]byte{0x82, 0x82, 0x01, 0x02, 0x82, 0x03, 0x04})
	if err != nil {
		t.Fatal(err)
	}
	v.Items[0].Items = append(v.Items[0].Items, U(9))
	if w := v.Items[1]; len(w.Items) != 2 || w.Items[0].N != 3 || w.Items[1].N != 4 {
		t.Fatalf("the sibling reads %x", Encode(w))
	}
	if got := Encode(v.Items[0]); !bytes.Equal(got, []byte{0x83, 0x01, 0x02, 0x09}) {
		t.Fatalf("appended: %x", got)
	}
}

// items counts v's items, v among them.
func items(v *Value) int {
	n := 1
	for _, c := range v.Items {
		n += items(c)
	}
	return n
}

// TestEncodeSize: Encode's one allocation is the encoding's exact size,
// at every head width.
func TestEncodeSize(t *testing.T) {
	b, _ := hex.DecodeString(auxHex)
	v, _ := Decode(b)
	for _, v := range []*Value{v, U(23), U(24), U(255), U(256), U(1 << 16), U(1 << 32), B(make([]byte, 300)),
		Tagged(1<<40, A(T("x"), M(U(1), &Value{Major: Neg, N: 1 << 20}))), A(make([]*Value, 0)...)} {
		got := Encode(v)
		if len(got) != cap(got) || len(got) != v.size() {
			t.Errorf("%x: length %d, capacity %d", got, len(got), cap(got))
		}
		if n := testing.AllocsPerRun(20, func() { Encode(v) }); n != 1 {
			t.Errorf("%x: %v allocations", got, n)
		}
	}
}
