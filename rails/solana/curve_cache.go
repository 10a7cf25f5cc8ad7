package solana

import "sync"

// offCurve remembers which program-address candidates are not Ed25519
// points. Deciding it is a field square root, the most expensive step of a
// program-derived address, and a channel payment derives the same
// addresses many times (the build, every read-back, the gate's checks
// before and after signing). The answer depends on the 32 bytes alone, so
// a remembered one is exact; the map is emptied when full, which bounds
// it whatever candidates are asked.
var offCurve = struct {
	sync.Mutex
	m map[Key]bool
}{m: map[Key]bool{}}

const maxOffCurve = 4096

// isOffCurve reports whether k is not a valid Ed25519 point encoding.
func isOffCurve(k Key) bool {
	offCurve.Lock()
	off, ok := offCurve.m[k]
	offCurve.Unlock()
	if ok {
		return off
	}
	off = !onCurve(k[:])
	offCurve.Lock()
	if len(offCurve.m) >= maxOffCurve {
		clear(offCurve.m)
	}
	offCurve.m[k] = off
	offCurve.Unlock()
	return off
}
