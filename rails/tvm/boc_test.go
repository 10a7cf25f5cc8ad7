package tvm

import (
	"encoding/hex"
	"testing"
)

// BoCs of x402-exact-tvm.json (pytoniq-core's output): V1's comment, V2b's
// state init and V3's four settlement BoCs.
const (
	commentBoC    = "te6cckEBAQEAUwAAogAAAABsY3A6c2hhMjU2OjB4YmE3ODE2YmY4ZjAxY2ZlYTQxNDE0MGRlNWRhZTIyMjNiMDAzNjFhMzk2MTc3YTljYjQxMGZmNjFmMjAwMTVhZLfLPfg="
	commentHash   = "ee089534c301c6cc8f14677965b4f3497d27d10d8166e5d83495acc9bbdc96de"
	stateInitBoC  = "te6cckEBAwEANgACATQBAgAI3q2+7wBRgAAAAD///4jFRHHuugT4yv6pbZaeXS65ZTOE347KCQ35ukQA2ge3riAa6z05"
	stateInitHash = "6e1691b4371386ec5126b3bd61b991397c798f0b78435f44d4046f7fae460990"
)

var settlementBoCs = []string{
	"te6cckECBwEAAQ0AAWBCAA7RDTcZ95FCABTXO8gHsN1BBcp0CdHb33px9SOIA7IvgAAAAAAAAAAAAAAAAAEBAaFzaW50f///EWqxO7wAAAAFu0fJlVoOBKpeW/jR3+3pFQR8KrMk8OaQCvUPBPgBGd+Cw2uoONmHiZ97f/QoBEs1KmsQu2rGGt04YqMPsapcAKACAgoOw8htAwMEAAABaGIACIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIigF9eEAAAAAAAAAAAAAAAAAAEFAWEPin6lAAAAAAAAAAAicQgBJIZ0rtl8rYm5kNspaS9FnjFTdVOQUH/UUdSH1nhLn9oDBgAcAAAAAGludm9pY2UtNDKRrcKa",
	"te6cckECBwEAASQAAWBCAA7RDTcZ95FCABTXO8gHsN1BBcp0CdHb33px9SOIA7IvgAAAAAAAAAAAAAAAAAEBAaFzaW50f///EWqxO7wAAAAFmIPbC8bT0kiZmBYBlmtWwe3Uw9a/C4b2hVoLfcZYm7rSlkuKQnyvvIsqSWmfbQTJgTwx0HJe+d/X8dbEFXgIwqACAgoOw8htAwMEAAABaGIACIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIigF9eEAAAAAAAAAAAAAAAAAAEFAWEPin6lAAAAAAAAAAAicQgBJIZ0rtl8rYm5kNspaS9FnjFTdVOQUH/UUdSH1nhLn9oDBgBKAAAAAP+6eBa/jwHP6kFBQN5driIjsANho5YXepy0EP9h8gAVrV5Npsw=",
	"te6cckECCAEAAVkAAWBCAA7RDTcZ95FCABTXO8gHsN1BBcp0CdHb33px9SOIA7IvgAAAAAAAAAAAAAAAAAEBAaFzaW50f///EWqxO7wAAAAFvC9fLxLPQwmt1Mqk+QB3oYz0Bjru5LSzII0xeoGz3S9tJQn0uFVgOmU9UMx6AaKTi142MdpUZKc7SFKthfKIwmACAgoOw8htAwMFAgoOw8htAwQFAAABaGIACIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIigF9eEAAAAAAAAAAAAAAAAAAEGAWEPin6lAAAAAAAAAAAicQgBJIZ0rtl8rYm5kNspaS9FnjFTdVOQUH/UUdSH1nhLn9oDBwCiAAAAAGxjcDpzaGEyNTY6MHhiYTc4MTZiZjhmMDFjZmVhNDE0MTQwZGU1ZGFlMjIyM2IwMDM2MWEzOTYxNzdhOWNiNDEwZmY2MWYyMDAxNWFkKXfJQg==",
	"te6cckECBwEAAVAAAWBCAA7RDTcZ95FCABTXO8gHsN1BBcp0CdHb33px9SOIA7IvgAAAAAAAAAAAAAAAAAEBAaFzaW50f///EWqxO7wAAAAFmSDz/gBlNlON5gH47Go3vuJ4ZvDoUr2P2IVD0n8iWOBIswH1SiuYAh6BLIh8oQtAo0XggDQKZc0K/fjdh8YNQaACAgoOw8htAwMEAAABaGIACIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIigF9eEAAAAAAAAAAAAAAAAAAEFAWEPin6lAAAAAAAAAAAicQgBJIZ0rtl8rYm5kNspaS9FnjFTdVOQUH/UUdSH1nhLn9oDBgCiAAAAAGxjcDpzaGEyNTY6MHhiYTc4MTZiZjhmMDFjZmVhNDE0MTQwZGU1ZGFlMjIyM2IwMDM2MWEzOTYxNzdhOWNiNDEwZmY2MWYyMDAxNWFkRIi87w==",
}

func TestBoCRoundTrip(t *testing.T) {
	c, err := DecodeBoC64(commentBoC)
	if err != nil {
		t.Fatal(err)
	}
	if h := c.Hash(); hex.EncodeToString(h[:]) != commentHash || c.Bits() != 648 {
		t.Fatalf("hash %x bits %d", h, c.Bits())
	}
	if got := EncodeBoC64(c); got != commentBoC {
		t.Fatalf("re-encoded %s", got)
	}
	si, err := DecodeBoC64(stateInitBoC)
	if err != nil {
		t.Fatal(err)
	}
	if h := si.Hash(); hex.EncodeToString(h[:]) != stateInitHash {
		t.Fatalf("state init hash %x", h)
	}
	for _, s := range append(settlementBoCs, stateInitBoC) {
		c, err := DecodeBoC64(s)
		if err != nil {
			t.Fatal(err)
		}
		if EncodeBoC64(c) != s {
			t.Errorf("%s: re-encoded differently", s[:16])
		}
	}
}

func TestBoCRefusals(t *testing.T) {
	raw, _ := DecodeBoC64(commentBoC)
	good := EncodeBoC(raw)
	flip := func(i int, x byte) []byte { b := append([]byte(nil), good...); b[i] ^= x; return b }
	for name, b := range map[string][]byte{
		"empty":     nil,
		"magic":     flip(0, 1),
		"crc":       flip(len(good)-1, 1),
		"data":      flip(20, 1),
		"trailing":  append(append([]byte(nil), good...), 0),
		"truncated": good[:len(good)-1],
		"two roots": flip(7, 3),
		"exotic":    flip(11, 8),
		"too large": make([]byte, MaxBocBytes+1),
	} {
		if _, err := DecodeBoC(b); err == nil {
			t.Errorf("%s: read", name)
		}
	}
	for _, s := range []string{"not a boc!", "AAAA", "", "te6cckEBAQEAUwAAogAAAABsY3A6"} {
		if _, err := DecodeBoC64(s); err == nil {
			t.Errorf("%q read", s)
		}
	}
	// a reference to itself or to an earlier cell is no tree
	self := []byte{0xb5, 0xee, 0x9c, 0x72, 0x01, 0x01, 0x01, 0x01, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00}
	if _, err := DecodeBoC(self); err == nil {
		t.Error("a self reference read")
	}
}

func TestBuilderBounds(t *testing.T) {
	b := NewBuilder()
	for i := 0; i < MaxCellBits; i++ {
		b.Bit(true)
	}
	if _, err := b.End(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Bit(true).End(); err == nil {
		t.Error("1024 bits sealed")
	}
	e, _ := NewBuilder().End()
	b = NewBuilder()
	for i := 0; i < 5; i++ {
		b.Ref(e)
	}
	if _, err := b.End(); err == nil {
		t.Error("5 references sealed")
	}
	s := e.Parse()
	if _, err := s.Bit(); err == nil {
		t.Error("read past the end")
	}
	if _, err := s.Ref(); err == nil {
		t.Error("a missing reference read")
	}
}
