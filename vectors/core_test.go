package vectors_test

// core-vectors.json: V1–V3 assembled byte for byte, the refusals V5a–V5e,
// and the JSON depth rows JD1–JD7 wherever termsgate reads JSON. (The LK link
// rows and the plain hash checks are in core_links_test.go.)

import (
	"bytes"
	"encoding/base64"
	"errors"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/x402"
)

func TestCoreAssembly(t *testing.T) {
	f := load(t, "core-vectors.json")
	for _, r := range get(t, f, "vectors").([]jsonv.Value) {
		name := str(t, r, "name")
		o, _ := jsonv.AsObject(r)
		if !o.Has("binding") {
			continue // V6-plant is bytes only: core_links_test.go hashes it
		}
		t.Run(name, func(t *testing.T) {
			b := get(t, r, "binding").([]jsonv.Value)
			var content []atr.Slot
			for _, c := range get(t, r, "content").([]jsonv.Value) {
				pair := c.([]jsonv.Value)
				content = append(content, atr.Slot{Name: pair[0].(string), Bytes: unhex(t, pair[1].(string))})
			}
			got, err := atr.Assemble(str(t, r, "id"), b[0].(string), b[1], content, 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := unhex(t, str(t, r, "expectBytesHex")); !bytes.Equal(got, want) {
				t.Fatalf("bytes\n got %s\nwant %s", got, want)
			}
			if h := atr.Sum(got).String(); h != str(t, r, "expectHash") {
				t.Fatalf("hash %s", h)
			}
		})
	}
}

func TestCoreRefusals(t *testing.T) {
	f := load(t, "core-vectors.json")
	binding := jsonv.Obj("k", "v")
	ok := []atr.Slot{{Name: "terms", Bytes: []byte(`"x"`)}}
	inputs := map[string]func(t *testing.T, r jsonv.Value) ([]byte, error){
		"V5a": func(*testing.T, jsonv.Value) ([]byte, error) {
			return atr.Assemble("id-1", "bind", binding, []atr.Slot{{Name: "id", Bytes: []byte(`1`)}}, 0)
		},
		"V5b": func(t *testing.T, r jsonv.Value) ([]byte, error) {
			return atr.Assemble("id-1", "bind", binding, []atr.Slot{{Name: "offer", Bytes: unhex(t, str(t, r, "contentHex"))}}, 0)
		},
		"V5c": func(t *testing.T, r jsonv.Value) ([]byte, error) {
			return atr.Assemble("id-1", "bind", binding, []atr.Slot{{Name: "offer", Bytes: unhex(t, str(t, r, "contentHex"))}}, 0)
		},
		"V5d": func(*testing.T, jsonv.Value) ([]byte, error) {
			return atr.Assemble("id-1", "bind", jsonv.Obj("n", 1.5), ok, 0)
		},
		"V5e": func(*testing.T, jsonv.Value) ([]byte, error) {
			return atr.Assemble("id-1", "bind", binding, ok, 40)
		},
	}
	for _, r := range get(t, f, "refusals").([]jsonv.Value) {
		name := str(t, r, "name")
		t.Run(name, func(t *testing.T) {
			in, ok := inputs[name]
			if !ok {
				t.Fatalf("no input for refusal row %s", name)
			}
			_, err := in(t, r)
			var ae *atr.AssemblyError
			if !errors.As(err, &ae) || ae.Code != str(t, r, "expect") {
				t.Fatalf("got %v, want %s", err, str(t, r, "expect"))
			}
		})
	}
	// The controls: the same inputs made well are assembled.
	if _, err := atr.Assemble("id-1", "bind", binding, ok, 0); err != nil {
		t.Fatalf("control refused: %v", err)
	}
}

func TestCoreJSONDepth(t *testing.T) {
	f := load(t, "core-vectors.json")
	for _, r := range get(t, f, "jsonDepth", "rows").([]jsonv.Value) {
		t.Run(str(t, r, "name"), func(t *testing.T) {
			text := []byte(str(t, r, "text"))
			accept := get(t, r, "accept") == true
			_, err := jsonv.Parse(text)
			if (err == nil) != accept {
				t.Fatalf("seller JSON reader: accept = %v (%v), want %v", err == nil, err, accept)
			}
			if jsonv.Valid(text, jsonv.MaxDepth) != accept {
				t.Fatalf("content scanner disagrees")
			}
			// The PAYMENT-REQUIRED decoder reads objects only, with the same cap.
			_, err = x402.DecodeHeader(base64.StdEncoding.EncodeToString(text))
			if !accept && !errors.Is(err, jsonv.ErrTooDeep) {
				t.Fatalf("header decoder let a too-deep document through: %v", err)
			}
			if accept && text[0] == '{' && err != nil {
				t.Fatalf("header decoder refused a document within the cap: %v", err)
			}
		})
	}
}
