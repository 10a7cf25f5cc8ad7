// Package cost holds the test helpers that hold hostile-input paths to a
// cost: the one time bound every fuzz target puts on a single input, and the
// process's CPU time, which compares two costs on a shared machine better
// than the wall clock does.
//
// The bound makes a path whose cost grows faster than its input (a quadratic
// object parse, a backtracking reader) a failure the fuzzer can find and
// minimise, not a slow run nobody reads.
package cost

import (
	"runtime"
	"testing"
	"time"
)

// FuzzLimit is what one fuzz input may cost. The inputs a fuzzer makes are
// at most a few hundred KiB, which every decoder here reads in milliseconds
// even under the race detector on a loaded machine; a second leaves room for
// that noise and still catches a superlinear path at those sizes.
const FuzzLimit = time.Second

// Bound runs fn and fails t when its input cost more than FuzzLimit: wall
// time over the limit with at least a quarter of it spent computing in this
// process, or wall time over WaitLimit whatever the CPU. A second of wall
// time with almost no CPU is the machine stalling the worker, not the
// input's own cost (docs/fuzzing.md, "A cheap input over the time bound");
// a path that waits for seconds is still a failure.
func Bound(t testing.TB, inputLen int, fn func()) {
	t.Helper()
	start, cpu0 := time.Now(), cpu()
	fn()
	if d, c := time.Since(start), cpu()-cpu0; over(d, c) {
		t.Fatalf("one input of %d bytes took %v (%v of the process's CPU), over the %v bound: a cost that grows faster than the input", inputLen, d.Round(time.Millisecond), c.Round(time.Millisecond), FuzzLimit)
	}
}

// WaitLimit is the wall time past which an input fails even without
// computing: a decoder has nothing to wait for that long.
const WaitLimit = 5 * FuzzLimit

// over says whether an input that took wall time d and process CPU time c
// is over the bound.
func over(d, c time.Duration) bool {
	return d > WaitLimit || d > FuzzLimit && c >= FuzzLimit/4
}

// Memory runs fn and returns what the heap allocated during it (freed or
// not: a decoder that read a bomb through a small buffer shows here) and how
// much more memory the runtime holds from the operating system after it.
func Memory(fn func()) (allocated, obtained int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc), int64(after.Sys) - int64(before.Sys)
}

// CPU is the process's CPU time so far (user and system, all threads).
func CPU() time.Duration { return cpu() }

// Cheapest runs each of fns n times, taking turns so that a burst of load
// on the machine falls on all of them alike, each run from a freshly
// collected heap, and returns the least process CPU time one run of each
// took (all threads, the collection of its own garbage included). Other
// processes' work does not count, and the least of several runs is the one
// least disturbed by what remains.
func Cheapest(n int, fns ...func()) []time.Duration {
	best := make([]time.Duration, len(fns))
	for i := range best {
		best[i] = time.Duration(1<<63 - 1)
	}
	for range n {
		for i, fn := range fns {
			runtime.GC()
			start := cpu()
			fn()
			best[i] = min(best[i], cpu()-start)
		}
	}
	return best
}
