package lightning

import (
	"bytes"
	"sync"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
)

// maxNamedOptions is how many of the x402 slot's accepts are read.
const maxNamedOptions = 32

// ATRNamesInvoice reports whether the ATR's bytes name invoice: they are
// one JSON object whose first members are atrVersion, id and x402, in that
// order, with no member name written twice (readers differ on which of two
// they take, so every reader must find the one x402 slot), and an option of
// that slot's accepts (the first 32) has extra.invoice exactly invoice.
// Only the x402 slot is read. The bytes are at most 1 MiB, without a
// byte-order mark (docs/lightning.md, "invoice-named").
//
// A payment's build runs two or three times (confirm, Finish's check and
// its rebuild) over the same bytes, so the last verdict is remembered with
// a copy of the bytes it was reached on, compared byte for byte.
func ATRNamesInvoice(b []byte, invoice string) bool {
	if len(b) > atr.MaxBytes {
		return false
	}
	lastNamed.Lock()
	if lastNamed.ok && lastNamed.invoice == invoice && bytes.Equal(lastNamed.atr, b) {
		v := lastNamed.verdict
		lastNamed.Unlock()
		return v
	}
	lastNamed.Unlock()
	v := atrNamesInvoice(b, invoice)
	lastNamed.Lock()
	lastNamed.atr, lastNamed.invoice, lastNamed.verdict, lastNamed.ok = append(lastNamed.atr[:0], b...), invoice, v, true
	lastNamed.Unlock()
	return v
}

var lastNamed struct {
	sync.Mutex
	atr     []byte
	invoice string
	verdict bool
	ok      bool
}

func atrNamesInvoice(b []byte, invoice string) bool {
	v, err := jsonv.Parse(b) // strict UTF-8, no byte-order mark, one value
	if err != nil {
		return false
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return false
	}
	names, ok := TopMembers(b)
	if !ok || len(names) < 3 || names[0] != "atrVersion" || names[1] != "id" || names[2] != "x402" {
		return false
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return false
		}
		seen[n] = true
	}
	slot, _ := o.GetObject("x402")
	av, _ := slot.Get("accepts")
	accepts, _ := jsonv.AsArray(av)
	for i, a := range accepts {
		if i == maxNamedOptions {
			break
		}
		opt, _ := jsonv.AsObject(a)
		extra, _ := opt.GetObject("extra")
		if inv, ok := extra.GetString("invoice"); ok && inv == invoice {
			return true
		}
	}
	return false
}

// TopMembers lists the member names of the JSON object b holds, decoded,
// in the order written, repeats kept. b must already have parsed as JSON
// (the scan only walks it); it reports false otherwise.
func TopMembers(b []byte) ([]string, bool) {
	i := 0
	space := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
			i++
		}
	}
	skipString := func() {
		i++
		for i < len(b) && b[i] != '"' {
			if b[i] == '\\' {
				i++
			}
			i++
		}
		i++
	}
	// skipValue walks one value: strings skipped whole, brackets counted.
	skipValue := func() {
		depth := 0
		for i < len(b) {
			switch c := b[i]; {
			case c == '"':
				skipString()
				if depth == 0 {
					return
				}
				continue
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				if depth == 0 {
					return
				}
				depth--
				if depth == 0 {
					i++
					return
				}
			case c == ',' && depth == 0:
				return
			}
			i++
		}
	}
	space()
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i++
	space()
	var names []string
	for i < len(b) && b[i] == '"' {
		start := i
		skipString()
		if i > len(b) {
			return nil, false
		}
		v, err := jsonv.Parse(b[start:i])
		s, ok := jsonv.AsString(v)
		if err != nil || !ok {
			return nil, false
		}
		names = append(names, s)
		space()
		i++ // the colon
		space()
		skipValue()
		space()
		if i >= len(b) || b[i] != ',' {
			break
		}
		i++
		space()
	}
	return names, true
}
