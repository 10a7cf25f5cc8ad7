package rails

import (
	"fmt"
	"unicode/utf8"
)

// PanicError is what Guard makes of a reader that panicked: a defect in
// termsgate, never in the input, but reported as the input's failure so
// that no input can crash the CLI, the MCP server or a Go caller.
type PanicError struct {
	Reader string // what was reading, e.g. "xrpl.InspectBlob"
	Input  string // what it read, e.g. "paid.json", at most 200 characters
	Value  any    // what the reader panicked with
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s failed on %s: it panicked (%v); this is a defect in termsgate, please report it with the input", e.Reader, e.Input, e.Value)
}

// maxInputName bounds how much of an input's name an error echoes.
const maxInputName = 200

// Guard runs reader f over input and turns a panic into a *PanicError that
// names the reader and the input: the one guard every reader of outside
// input runs under (the gate's pairing members have their own, which maps
// a panic to the pairing's refusal code).
func Guard[T any](reader, input string, f func() (T, error)) (out T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			out, err = zero, &PanicError{Reader: reader, Input: clip(input), Value: r}
		}
	}()
	return f()
}

func clip(s string) string {
	if len(s) <= maxInputName {
		return s
	}
	cut := maxInputName
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
