package near

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
)

// TestWrittenOnceAgrees: the payment's bytes written from the action's
// borsh bytes are Signed.Encode's, the hash over them is SHA-256 of the
// NEP-461 prefix and the action, and hex0x is 0x and hex, for V2 and its
// action with every byte changed in turn.
func TestWrittenOnceAgrees(t *testing.T) {
	raw, _ := base64.StdEncoding.DecodeString(v2)
	s, err := DecodeSigned(raw)
	if err != nil {
		t.Fatal(err)
	}
	enc := s.Action.Encode()
	if got := signedBytes(enc, s.SigType, s.Sig); string(got) != string(s.Encode()) || string(got) != string(raw) {
		t.Fatalf("signedBytes wrote %x, Encode %x", got, s.Encode())
	}
	if len(enc) != len(raw)-65 {
		t.Fatalf("the action is %d bytes of %d", len(enc), len(raw))
	}
	for i := range enc {
		b := append([]byte(nil), enc...)
		b[i] ^= 0x5a
		var p [4]byte
		binary.LittleEndian.PutUint32(p[:], NEP461Delegate)
		if want := sha256.Sum256(append(p[:], b...)); signingHashOf(b) != want {
			t.Fatalf("byte %d: signingHashOf is not the NEP-461 hash", i)
		}
		if r := (&reader{b: b}); true {
			if d, err := readDelegate(r); err == nil && len(r.b) == 0 && string(d.Encode()) == string(b) && d.SigningHash() != signingHashOf(b) {
				t.Fatalf("byte %d: SigningHash and signingHashOf differ", i)
			}
		}
		if got := hex0x(b[:i]); got != "0x"+hex.EncodeToString(b[:i]) {
			t.Fatalf("hex0x(%x) = %s", b[:i], got)
		}
	}
	long := []byte(strings.Repeat("\x01\xfe", 300))
	if got := hex0x(long); got != "0x"+hex.EncodeToString(long) {
		t.Fatal("hex0x of 600 bytes differs")
	}
	if s.Action.SigningHash() != signingHashOf(enc) {
		t.Fatal("V2's hash differs")
	}
}
