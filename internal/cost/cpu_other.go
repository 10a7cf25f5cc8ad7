//go:build !unix

package cost

import "time"

var start = time.Now()

// cpu falls back to the wall clock where getrusage is missing.
func cpu() time.Duration { return time.Since(start) }
