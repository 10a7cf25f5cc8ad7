//go:build race

package bomb

const raceEnabled = true
