package atr

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

const abcHash = "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

func TestSum(t *testing.T) {
	if got := Sum([]byte("abc")).String(); got != abcHash {
		t.Fatalf("Sum(abc) = %s, want %s", got, abcHash)
	}
	if got := Sum(nil).String(); got != "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("Sum(nil) = %s", got)
	}
}

func TestParseHash(t *testing.T) {
	want := Sum([]byte("abc"))
	for _, s := range []string{abcHash, "0x" + strings.ToUpper(abcHash[2:]), "0xBa7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015aD"} {
		h, err := ParseHash(s)
		if err != nil {
			t.Fatalf("ParseHash(%q): %v", s, err)
		}
		if h != want || !h.Equal(want) {
			t.Fatalf("ParseHash(%q) = %s", s, h)
		}
		if h.String() != abcHash {
			t.Fatalf("String() = %s, want lowercase", h.String())
		}
		if !EqualText(s, want) {
			t.Fatalf("EqualText(%q) = false", s)
		}
	}
	bad := map[string]string{
		"no 0x":        abcHash[2:],
		"0X prefix":    "0X" + abcHash[2:],
		"63 digits":    abcHash[:65],
		"65 digits":    abcHash + "0",
		"non-hex":      abcHash[:10] + "g" + abcHash[11:],
		"empty":        "",
		"just 0x":      "0x",
		"space":        " " + abcHash,
		"trailing nl":  abcHash + "\n",
		"inner space":  abcHash[:10] + " " + abcHash[11:],
		"non-ASCII":    abcHash[:64] + "é",
		"sign":         "0x+" + abcHash[3:],
		"only padding": "0x" + strings.Repeat("0", 63),
	}
	for name, s := range bad {
		if _, err := ParseHash(s); err == nil {
			t.Errorf("%s: ParseHash(%q) accepted", name, s)
		}
		if EqualText(s, want) {
			t.Errorf("%s: EqualText(%q) = true", name, s)
		}
	}
	if _, err := ParseHash(abcHash[:65]); err == nil || !strings.Contains(err.Error(), "64 hex digits") {
		t.Errorf("length error does not say what is wrong: %v", err)
	}
	if _, err := ParseHash(abcHash[:10] + "g" + abcHash[11:]); err == nil || !strings.Contains(err.Error(), "position 10") {
		t.Errorf("digit error does not say where: %v", err)
	}
	if EqualText(abcHash, Sum([]byte("abd"))) {
		t.Error("EqualText of different hashes = true")
	}
	var other Hash
	other[31] = 1
	if want.Equal(other) || other.Equal(Hash{}) {
		t.Error("Equal of different hashes = true")
	}
}

func TestHashText(t *testing.T) {
	h := Sum([]byte("abc"))
	b, err := json.Marshal(struct{ H Hash }{h})
	if err != nil || string(b) != `{"H":"`+abcHash+`"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var v struct{ H Hash }
	if err := json.Unmarshal([]byte(`{"H":"0x`+strings.ToUpper(abcHash[2:])+`"}`), &v); err != nil || v.H != h {
		t.Fatalf("Unmarshal = %s, %v", v.H, err)
	}
	if err := json.Unmarshal([]byte(`{"H":"0x12"}`), &v); err == nil {
		t.Fatal("Unmarshal accepted a short hash")
	}
	if v.H != h {
		t.Fatal("failed Unmarshal changed the value")
	}
}

// ParseHash decodes each digit itself: every byte value, written in lower,
// upper and mixed case, must read as encoding/hex reads it.
func TestParseHashDecodesEveryByte(t *testing.T) {
	for b := 0; b < 256; b++ {
		var raw [32]byte
		for i := range raw {
			raw[i] = byte(b + 7*i) // b at position 0, every other value elsewhere
		}
		lower := hex.EncodeToString(raw[:])
		mixed := []byte(strings.ToUpper(lower))
		for i := 0; i < len(mixed); i += 2 {
			mixed[i] = lower[i]
		}
		for _, digits := range []string{lower, strings.ToUpper(lower), string(mixed)} {
			h, err := ParseHash("0x" + digits)
			if err != nil {
				t.Fatalf("ParseHash(0x%s): %v", digits, err)
			}
			if want, _ := hex.DecodeString(digits); !bytes.Equal(h[:], want) {
				t.Fatalf("ParseHash(0x%s) = %x, want %x", digits, h, want)
			}
		}
	}
}
