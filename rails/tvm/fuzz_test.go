package tvm

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// FuzzDecodeBoC: the reader never panics, and what it reads writes back to a
// BoC that reads as the same cell.
func FuzzDecodeBoC(f *testing.F) {
	for _, s := range append(settlementBoCs, commentBoC, stateInitBoC) {
		b, _ := base64.StdEncoding.DecodeString(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeBoC(b)
		if err != nil {
			return
		}
		again, err := DecodeBoC(EncodeBoC(c))
		if err != nil || !again.Equal(c) {
			t.Fatalf("written back: %v", err)
		}
		if c.Depth() > MaxDepth || !bytes.Equal(EncodeBoC(again), EncodeBoC(c)) {
			t.Fatal("not stable")
		}
	})
}
