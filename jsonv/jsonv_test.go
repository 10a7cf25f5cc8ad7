package jsonv

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
)

func TestRoundTripKeepsOrderAndJSForm(t *testing.T) {
	cases := []struct{ in, out string }{
		{`{"b":1,"a":[true,false,null],"c":{"z":"y"}}`, `{"b":1,"a":[true,false,null],"c":{"z":"y"}}`},
		{`{ "n" : 60.0 }`, `{"n":60}`},
		{`[1e21, 1e-7, 0.000001, 123.456, -0, 1.5e300, 100, 2e-7]`, `[1e+21,1e-7,0.000001,123.456,0,1.5e+300,100,2e-7]`},
		{`"<&> \u2028 é \/ \u0001 \"q\" \\"`, "\"<&> \u2028 é / \\u0001 \\\"q\\\" \\\\\""},
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{`{"b":1,"10":2,"2":3,"01":4}`, `{"2":3,"10":2,"b":1,"01":4}`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`12345678901234567890`, `12345678901234567000`},
	}
	for _, c := range cases {
		v, err := Parse([]byte(c.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", c.in, err)
		}
		if got := String(v); got != c.out {
			t.Errorf("Parse(%s) wrote %s, want %s", c.in, got, c.out)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	bad := []string{
		"", " ", "\xef\xbb\xbf{}", "{} x", "{\"a\":1,}", "[1,]", "01", "1.", ".5", "+1", "-", "1e", "tru",
		"\"\x01\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\xff\"", "{'a':1}", "[", "{\"a\"}", "NaN",
		"\"\\x\"",
	}
	for _, b := range bad {
		if _, err := Parse([]byte(b)); err == nil {
			t.Errorf("Parse(%q) accepted", b)
		}
	}
}

func TestDepthCap(t *testing.T) {
	ok := strings.Repeat("[", 64) + strings.Repeat("]", 64)
	if _, err := Parse([]byte(ok)); err != nil {
		t.Fatalf("64 levels refused: %v", err)
	}
	deep := strings.Repeat("[", 65) + strings.Repeat("]", 65)
	if _, err := Parse([]byte(deep)); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("65 levels: got %v, want ErrTooDeep", err)
	}
	// A hostile depth far past the cap is refused without recursing that far.
	huge := strings.Repeat("[", 1<<20)
	if _, err := Parse([]byte(huge)); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("1 MiB of brackets: got %v", err)
	}
}

func TestCanonicalSortsByUTF16(t *testing.T) {
	v, _ := Parse([]byte(`{"b":{"y":1,"x":2},"a":"\ufb33","\ud83d\ude00":1,"\ufb33":2}`))
	got := string(Canonical(v))
	want := `{"a":"דּ","b":{"x":2,"y":1},"😀":1,"דּ":2}`
	if got != want {
		t.Fatalf("Canonical = %s, want %s", got, want)
	}
}

func TestSafeInt(t *testing.T) {
	for in, want := range map[string]bool{"60": true, "60.0": true, "60.5": false, "-1": false, "9007199254740991": true, "9007199254740992": false, "\"60\"": false} {
		v, _ := Parse([]byte(in))
		if _, ok := AsSafeInt(v); ok != want {
			t.Errorf("AsSafeInt(%s) = %v, want %v", in, ok, want)
		}
	}
}

func TestCloneDoesNotAlias(t *testing.T) {
	v, _ := Parse([]byte(`{"a":{"b":[1]}}`))
	o := v.(*Object)
	c := o.Clone()
	inner, _ := c.GetObject("a")
	inner.Set("c", "new")
	if String(o) != `{"a":{"b":[1]}}` {
		t.Fatalf("clone aliased the original: %s", String(o))
	}
	if !Equal(v, Obj("a", Obj("b", []Value{Number(1)}))) {
		t.Fatal("Equal/Obj disagree")
	}
}

// A copy is laid out in shared slabs: growing, shrinking or rewriting any
// object or array of it must leave its neighbours in the copy, and the
// original, as they were.
func TestCloneSlabsStayApart(t *testing.T) {
	const text = `{"a":{"b":[1,{"x":true},[]],"c":{}},"d":[{"e":null},{"f":"g"}],"h":{"i":{"j":{}}}}`
	v, _ := Parse([]byte(text))
	o := v.(*Object)
	c := o.Clone()
	if String(c) != text {
		t.Fatalf("copy %s", String(c))
	}
	again := c.Clone()
	var objects []*Object
	var walk func(v Value)
	walk = func(v Value) {
		switch x := v.(type) {
		case *Object:
			objects = append(objects, x)
			for _, m := range x.Members() {
				walk(m.Value)
			}
		case []Value:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(c)
	for i, x := range objects {
		x.Set("added", Number(i)) // appends past each object's members
	}
	for _, x := range objects {
		if arr, ok := x.Get("b"); ok {
			list := arr.([]Value)
			list[0] = "rewritten"
			x.Set("b", append(list, "more")) // appends past the array
		}
		x.Delete("added")
	}
	if String(o) != text {
		t.Fatalf("the original changed: %s", String(o))
	}
	if String(again) != text {
		t.Fatalf("a copy of the copy changed: %s", String(again))
	}
	want := `{"a":{"b":["rewritten",{"x":true},[],"more"],"c":{}},"d":[{"e":null},{"f":"g"}],"h":{"i":{"j":{}}}}`
	if String(c) != want {
		t.Fatalf("copy after changes %s, want %s", String(c), want)
	}
	if got := String(Clone([]Value{})); got != "[]" {
		t.Fatalf("empty array %s", got)
	}
	if Clone((*Object)(nil)).(*Object) != nil || Clone([]Value(nil)) == nil {
		t.Fatal("nil copies")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"\ud83d\ude00"`, `1e400`, `[[[[]]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v Value
		var err error
		cost.Bound(t, len(data), func() { v, err = Parse(data) })
		if err != nil {
			return
		}
		out := Marshal(v)
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("our own output %q does not parse: %v", out, err)
		}
		if string(Marshal(again)) != string(out) {
			t.Fatalf("not stable: %q then %q", out, Marshal(again))
		}
	})
}

func TestEncodingJSONInterop(t *testing.T) {
	type wrapper struct {
		Doc *Object `json:"doc"`
	}
	var w wrapper
	if err := json.Unmarshal([]byte(`{"doc":{"z":1,"a":[true,"x"]}}`), &w); err != nil {
		t.Fatal(err)
	}
	if String(w.Doc) != `{"z":1,"a":[true,"x"]}` {
		t.Fatalf("read %s", String(w.Doc))
	}
	out, err := json.Marshal(w)
	if err != nil || string(out) != `{"doc":{"z":1,"a":[true,"x"]}}` {
		t.Fatalf("wrote %s (%v)", out, err)
	}
	if err := json.Unmarshal([]byte(`{"doc":[1]}`), &w); err == nil {
		t.Fatal("an array read as an object")
	}
}

func TestAsInteger(t *testing.T) {
	for in, want := range map[string]int64{"-32602": -32602, "60": 60, "-9007199254740991": -9007199254740991} {
		v, _ := Parse([]byte(in))
		if got, ok := AsInteger(v); !ok || got != want {
			t.Errorf("AsInteger(%s) = %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{"-1.5", "-9007199254740992", "\"-1\"", "null"} {
		v, _ := Parse([]byte(in))
		if _, ok := AsInteger(v); ok {
			t.Errorf("AsInteger(%s) read", in)
		}
	}
}

// A Copier's copies are each other's and its source's strangers: editing
// the source after the Copier is made, or any copy (every object, every
// array element), changes no later copy; and a copy is what Clone makes.
func TestCopierCopiesStayApart(t *testing.T) {
	const text = `{"a":{"b":[1,{"x":true},[]],"c":{}},"d":[{"e":null},{"f":"g"}],"h":"i"}`
	v, _ := Parse([]byte(text))
	c := NewCopier(v)
	v.(*Object).Set("h", "changed after")
	first := c.CopyObject()
	if String(first) != text || String(first) != String(mustParse(t, text).(*Object).Clone()) {
		t.Fatalf("copy %s", String(first))
	}
	var walk func(v Value)
	walk = func(v Value) {
		switch x := v.(type) {
		case *Object:
			for _, m := range x.Members() {
				walk(m.Value)
			}
			x.Set("added", Number(1))
			x.Delete(x.Keys()[0])
		case []Value:
			for i, e := range x {
				walk(e)
				x[i] = "rewritten"
			}
		}
	}
	walk(first)
	if got := String(c.Copy()); got != text {
		t.Fatalf("a copy after the first was edited: %s", got)
	}
	if (&Copier{}).Copy() != nil || NewCopier(nil).CopyObject() != nil {
		t.Fatal("a Copier of nothing copies something")
	}
}

func mustParse(t *testing.T, s string) Value {
	t.Helper()
	v, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
