package bomb

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/andybalholm/brotli"
)

// zeroCounter counts what it is written and fails on a non-zero byte.
type zeroCounter struct {
	n       int64
	nonZero bool
}

func (z *zeroCounter) Write(p []byte) (int, error) {
	for _, c := range p {
		if c != 0 {
			z.nonZero = true
		}
	}
	z.n += int64(len(p))
	return len(p), nil
}

// TestBombsDecodeToSize: each bomb is what it claims, a few KiB to 1 MiB
// that decode to 1 GiB of zeros. Under the race detector, which makes the
// decoders some ten times slower, the first 16 MiB are checked.
func TestBombsDecodeToSize(t *testing.T) {
	limit := int64(Size)
	if raceEnabled {
		limit = 16 << 20
	}
	gz, err := gzip.NewReader(bytes.NewReader(Gzip()))
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]io.Reader{"brotli": brotli.NewReader(bytes.NewReader(Brotli)), "gzip": gz} {
		var z zeroCounter
		if _, err := io.Copy(&z, io.LimitReader(r, limit)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if z.n != limit || z.nonZero {
			t.Fatalf("%s: decoded %d bytes (non-zero: %v), want %d zeros", name, z.n, z.nonZero, limit)
		}
		if limit == Size {
			if n, _ := r.Read(make([]byte, 1)); n != 0 {
				t.Fatalf("%s: more than %d bytes", name, Size)
			}
		}
	}
	if len(Brotli) > 4<<10 || len(Gzip()) > 1200<<10 {
		t.Fatalf("brotli %d bytes, gzip %d bytes", len(Brotli), len(Gzip()))
	}
	t.Logf("brotli %d bytes, gzip %d bytes, each %d decoded", len(Brotli), len(Gzip()), Size)
}
