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
	// Spin until both the wall time and the process's CPU time are past
	// the bound: on a loaded machine a wall-clock spin gets little CPU.
	Bound(r, 10, func() {
		for start, cpu0 := time.Now(), cpu(); time.Since(start) < FuzzLimit+50*time.Millisecond || cpu()-cpu0 < FuzzLimit/4+50*time.Millisecond; {
		}
	})
	if r.failed == "" {
		t.Fatal("an input computing past the bound passed")
	}
}

// TestOver: what the bound counts as an input's own cost.
func TestOver(t *testing.T) {
	for _, c := range []struct {
		wall, cpu time.Duration
		over      bool
	}{
		{FuzzLimit / 2, FuzzLimit / 2, false},
		{FuzzLimit + time.Millisecond, FuzzLimit, true},
		{FuzzLimit + time.Millisecond, FuzzLimit / 4, true},
		// The run of docs/fuzzing.md: 1.094 s of wall time, 2 ms of CPU.
		{1094 * time.Millisecond, 2 * time.Millisecond, false},
		{WaitLimit + time.Millisecond, 0, true},
	} {
		if got := over(c.wall, c.cpu); got != c.over {
			t.Errorf("over(%v, %v) = %v, want %v", c.wall, c.cpu, got, c.over)
		}
	}
}

func TestCheapest(t *testing.T) {
	busy := func(d time.Duration) func() {
		// Spin on CPU time, what Cheapest measures: a wall-clock spin
		// on a loaded machine gets an arbitrary share of it.
		return func() {
			for start := cpu(); cpu()-start < d; {
			}
		}
	}
	c := Cheapest(3, busy(time.Millisecond), busy(20*time.Millisecond))
	if len(c) != 2 || c[0] <= 0 || c[1] <= c[0] {
		t.Fatalf("costs %v: the longer spin should cost more", c)
	}
}
