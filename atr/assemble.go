package atr

import (
	"regexp"

	"github.com/termsgate/termsgate/jsonv"
)

// Assembly is the seller's side of the record, which termsgate needs for its
// demo seller and its tests: one UTF-8 JSON object written in a fixed order,
// {"atrVersion":"1","id":…,<binding slot>:<binding value>, then each party
// slot's bytes exactly as given}. The buyer never assembles or parses an ATR;
// it only hashes the bytes it is served.

// Refusal codes of Assemble.
const (
	CodeSlotName        = "core/slot-name"
	CodeSlotReserved    = "core/slot-reserved"
	CodeSlotDuplicate   = "core/slot-duplicate"
	CodeContentNotJSON  = "core/content-not-json"
	CodeBindingNotJSON  = "core/binding-not-json"
	CodeAssemblyTooLong = "core/too-large"
)

// AssemblyError is a refusal to assemble, with its core/ code.
type AssemblyError struct{ Code string }

func (e *AssemblyError) Error() string { return "atr: cannot assemble: " + e.Code }

// Slot is one party's content: a slot name and the exact JSON bytes it wrote.
type Slot struct {
	Name  string
	Bytes []byte
}

const maxPartySlots = 64

var slotName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Assemble writes the ATR's bytes. maxBytes ≤ 0 means MaxBytes; a larger
// value is capped at MaxBytes. The same inputs always give the same bytes.
func Assemble(id string, bindingSlot string, binding jsonv.Value, content []Slot, maxBytes int) ([]byte, error) {
	refuse := func(code string) ([]byte, error) { return nil, &AssemblyError{Code: code} }
	limit := MaxBytes
	if maxBytes > 0 && maxBytes < limit {
		limit = maxBytes
	}
	if !slotName.MatchString(bindingSlot) {
		return refuse(CodeSlotName)
	}
	if bindingSlot == "atrVersion" || bindingSlot == "id" {
		return refuse(CodeSlotReserved)
	}
	if len(content) > maxPartySlots {
		return refuse(CodeAssemblyTooLong)
	}
	seen := map[string]bool{}
	for _, s := range content {
		if !slotName.MatchString(s.Name) {
			return refuse(CodeSlotName)
		}
		if s.Name == "atrVersion" || s.Name == "id" || s.Name == bindingSlot {
			return refuse(CodeSlotReserved)
		}
		if seen[s.Name] {
			return refuse(CodeSlotDuplicate)
		}
		seen[s.Name] = true
	}
	if !integersOnly(binding, 0) {
		return refuse(CodeBindingNotJSON)
	}
	head := []byte(`{"atrVersion":"1","id":`)
	head = jsonv.AppendString(head, id)
	head = append(head, ',')
	head = jsonv.AppendString(head, bindingSlot)
	head = append(head, ':')
	head = jsonv.AppendMarshal(head, binding)
	total := len(head) + 1
	for _, s := range content {
		total += len(jsonv.AppendString(nil, s.Name)) + 2 + len(s.Bytes)
	}
	if total > limit {
		return refuse(CodeAssemblyTooLong)
	}
	for _, s := range content {
		if len(s.Bytes) >= 3 && s.Bytes[0] == 0xef && s.Bytes[1] == 0xbb && s.Bytes[2] == 0xbf || !jsonv.Valid(s.Bytes, jsonv.MaxDepth) {
			return refuse(CodeContentNotJSON)
		}
	}
	out := make([]byte, 0, total)
	out = append(out, head...)
	for _, s := range content {
		out = append(out, ',')
		out = jsonv.AppendString(out, s.Name)
		out = append(out, ':')
		out = append(out, s.Bytes...)
	}
	return append(out, '}'), nil
}

// integersOnly reports whether a binding value is JSON whose numbers are all
// safe integers, nested at most 64 deep: a binding is compared by value, and
// a fraction would be written differently by different languages.
func integersOnly(v jsonv.Value, depth int) bool {
	switch x := v.(type) {
	case nil, bool, string:
		return true
	case jsonv.Number:
		f := float64(x)
		return f == float64(int64(f)) && f <= jsonv.MaxSafeInteger && f >= -jsonv.MaxSafeInteger
	case []jsonv.Value:
		if depth >= jsonv.MaxDepth {
			return false
		}
		for _, e := range x {
			if !integersOnly(e, depth+1) {
				return false
			}
		}
		return true
	case *jsonv.Object:
		if depth >= jsonv.MaxDepth {
			return false
		}
		for _, m := range x.Members() {
			if !integersOnly(m.Value, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
