package cost

import (
	"fmt"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps a failure instead of stopping.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

func TestBound(t *testing.T) {
	r := &recorder{TB: t}
	Bound(r, 10, func() {})
	if r.failed != "" {
		t.Fatalf("a quick input failed: %s", r.failed)
	}
	Bound(r, 10, func() { time.Sleep(FuzzLimit + 50*time.Millisecond) })
	if r.failed == "" {
		t.Fatal("an input over the bound passed")
	}
}

func TestCheapest(t *testing.T) {
	busy := func(d time.Duration) func() {
		return func() {
			for start := time.Now(); time.Since(start) < d; {
			}
		}
	}
	c := Cheapest(3, busy(time.Millisecond), busy(20*time.Millisecond))
	if len(c) != 2 || c[0] <= 0 || c[1] <= c[0] {
		t.Fatalf("costs %v: the longer spin should cost more", c)
	}
}
