package mcppay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
)

// The bounds on what a paid server's answer may carry into the payment
// path. A PaymentRequired document is a few hundred bytes; x402's header
// form of one is capped at 64 KiB (rails/x402.MaxHeaderChars), and the JSON
// form gets the same. The depth is far above any real document's (five)
// and far below what would cost anything to walk.
const (
	// MaxRequiredBytes bounds the PaymentRequired document (x402) or the
	// challenge list (MPP) read from a tool's answer.
	MaxRequiredBytes = 64 << 10
	// MaxMetaBytes bounds a result's _meta read for the settlement.
	MaxMetaBytes = 64 << 10
	// MaxDepth bounds the nesting of what is read from _meta or the
	// payment-required document.
	MaxDepth = 16
	// MaxMessageBytes bounds one JSON-RPC message the proxy relays (as the
	// MCP server does, mcpserver.MaxMessageBytes).
	MaxMessageBytes = 8 << 20
)

// errTooLarge and errDuplicate are the strict reader's refusals.
var (
	errTooLarge  = errors.New("larger than the bound")
	errDuplicate = errors.New("a member name repeats")
)

// strictValue reads raw as one JSON value of at most maxBytes bytes, nested
// at most maxDepth deep, in which no object repeats a member name (equal, or
// equal ignoring case: encoding/json readers on the seller's side match
// names ignoring case, so two such names would be read differently by two
// readers). jsonv does the grammar and the depth; the name check is one
// pass of encoding/json's tokenizer over text already known to be bounded.
func strictValue(raw []byte, maxBytes, maxDepth int) (jsonv.Value, error) {
	if len(raw) > maxBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", errTooLarge, len(raw), maxBytes)
	}
	v, err := jsonv.ParseDepth(raw, maxDepth)
	if err != nil {
		return nil, err
	}
	if err := distinctNames(raw); err != nil {
		return nil, err
	}
	return v, nil
}

// distinctNames walks raw's tokens and refuses an object with two names
// equal ignoring case.
func distinctNames(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		top := len(stack) - 1
		if top >= 0 && stack[top].object && stack[top].wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:top]
				valueEnded(stack)
				continue
			}
			name, _ := tok.(string)
			folded := strings.ToLower(name)
			if stack[top].names[folded] {
				return fmt.Errorf("%w: %q", errDuplicate, name)
			}
			stack[top].names[folded] = true
			stack[top].wantKey = false
			continue
		}
		switch d, _ := tok.(json.Delim); d {
		case '{':
			stack = append(stack, frame{object: true, names: map[string]bool{}, wantKey: true})
			continue
		case '[':
			stack = append(stack, frame{})
			continue
		case '}', ']':
			stack = stack[:top]
		}
		valueEnded(stack)
	}
}

// valueEnded: a value ended, so its object, if it is in one, waits for the
// next name.
func valueEnded(stack []frame) {
	if n := len(stack) - 1; n >= 0 && stack[n].object {
		stack[n].wantKey = true
	}
}

type frame struct {
	object  bool
	names   map[string]bool
	wantKey bool
}

// strictObject is strictValue for a JSON object.
func strictObject(raw []byte, maxBytes, maxDepth int) (*jsonv.Object, error) {
	v, err := strictValue(raw, maxBytes, maxDepth)
	if err != nil {
		return nil, err
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return o, nil
}
