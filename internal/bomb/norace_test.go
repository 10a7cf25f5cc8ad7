//go:build !race

package bomb

const raceEnabled = false
