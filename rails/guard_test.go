package rails

import (
	"errors"
	"strings"
	"testing"
)

// A reader that panics ends in an error naming the reader and the input
// (clipped to 200 characters), never in a crash; one that returns keeps its
// own answer and error.
func TestGuardTurnsAPanicIntoAnError(t *testing.T) {
	var nilSlice []byte
	_, err := Guard("xrpl.InspectBlob", "paid.json", func() ([20]byte, error) { return [20]byte(nilSlice), nil })
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Reader != "xrpl.InspectBlob" || pe.Input != "paid.json" {
		t.Fatalf("error %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "xrpl.InspectBlob failed on paid.json") || !strings.Contains(msg, "defect in termsgate") {
		t.Fatalf("message %q", msg)
	}
	_, err = Guard("r", strings.Repeat("é", 300), func() (int, error) { panic("boom") })
	if !errors.As(err, &pe) || len(pe.Input) > maxInputName+len("…") || !strings.HasSuffix(pe.Input, "…") {
		t.Fatalf("input %q", pe.Input)
	}
	want := errors.New("not hex")
	if n, err := Guard("r", "in", func() (int, error) { return 7, want }); n != 7 || err != want {
		t.Fatalf("%d %v", n, err)
	}
}
