package vectors_test

// a2a-legal-context.json: fixed, A1 (the Agent Card entry, the
// A2A-Extensions rows), A2 (placed, read back, another hash, an http link),
// A3 (a bare legalContext key is not read), binding, and every agreed
// refusal row, through rails/a2a.

import (
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/a2a"
)

// wantA2A compares a result (or its refusal) with a row's expect.
func wantA2A(t *testing.T, expect jsonv.Value, got jsonv.Value, err error) {
	t.Helper()
	if e, ok := jsonv.AsObject(expect); ok && e.Has("refused") {
		wantRefusal(t, err, str(t, e, "code"))
		return
	}
	if err != nil {
		t.Fatalf("refused %v, want %s", err, jsonv.Marshal(expect))
	}
	if string(jsonv.Marshal(got)) != string(jsonv.Marshal(expect)) {
		t.Fatalf("got %s\nwant %s", jsonv.Marshal(got), jsonv.Marshal(expect))
	}
}

func TestA2ALegalContext(t *testing.T) {
	f := load(t, "a2a-legal-context.json")
	fixed := obj(t, f, "fixed")
	H, L := str(t, fixed, "H"), str(t, fixed, "L")
	t.Run("fixed", func(t *testing.T) {
		uris := get(t, fixed, "uris").([]jsonv.Value)
		if len(uris) != len(a2a.URIs) || uris[0] != a2a.URIs[0] || str(t, fixed, "URI") != a2a.URIs[0] {
			t.Fatalf("uris %v", a2a.URIs)
		}
	})
	t.Run("A1", func(t *testing.T) {
		wantA2A(t, get(t, f, "A1", "expectAgentExtension"), a2a.AgentExtension(false), nil)
		for _, rv := range get(t, f, "A1", "requested").([]jsonv.Value) {
			r, _ := jsonv.AsObject(rv)
			v, _ := r.Get("value")
			s, present := v.(string)
			if got := a2a.Requested(s, present); got != get(t, r, "expect") {
				t.Errorf("requested(%v) = %v", v, got)
			}
		}
	})
	t.Run("A2", func(t *testing.T) {
		a := obj(t, f, "A2")
		placed, err := a2a.Place(get(t, a, "task"), H, L, "", false)
		wantA2A(t, get(t, a, "expectPlaced"), placed, err)
		h, link, err := a2a.Read(placed)
		wantA2A(t, get(t, a, "expectRead"), jsonv.Obj("h", h, "link", link), err)
		_, err = a2a.Place(placed, str(t, a, "placeOther", "h"), L, "", false)
		wantA2A(t, get(t, a, "placeOther", "expect"), nil, err)
		_, err = a2a.Place(get(t, a, "task"), H, str(t, a, "httpLink", "link"), "", false)
		wantA2A(t, get(t, a, "httpLink", "expect"), nil, err)
	})
	t.Run("A3", func(t *testing.T) {
		_, _, err := a2a.Read(get(t, f, "A3", "task"))
		wantA2A(t, get(t, f, "A3", "expect"), nil, err)
	})
	t.Run("binding", func(t *testing.T) {
		if !get(t, f, "binding", "refused").(bool) || str(t, f, "binding", "code") != a2a.CodeNoSignedPlace {
			t.Fatal("binding")
		}
		wantRefusal(t, rails.Refuse(a2a.CodeNoSignedPlace), str(t, f, "binding", "code"))
	})
	for _, rv := range get(t, f, "agreedRefusals", "rows").([]jsonv.Value) {
		r, _ := jsonv.AsObject(rv)
		t.Run("agreedRefusals/"+str(t, r, "case"), func(t *testing.T) {
			args := expandRepeat(get(t, r, "args")).([]jsonv.Value)
			expect := get(t, r, "expect")
			switch str(t, r, "call") {
			case "agentExtension":
				o, _ := jsonv.AsObject(args[0])
				req, _ := o.Get("required")
				wantA2A(t, expect, a2a.AgentExtension(req == true), nil)
			case "requested":
				s, present := args[0].(string)
				if got := a2a.Requested(s, present); got != expect {
					t.Fatalf("requested = %v", got)
				}
			case "place":
				h, _ := args[1].(string)
				link, _ := args[2].(string)
				ext, present := "", false
				if len(args) > 3 {
					ext, present = args[3].(string)
				}
				got, err := a2a.Place(args[0], h, link, ext, present)
				wantA2A(t, expect, got, err)
			case "read":
				h, link, err := a2a.Read(args[0])
				wantA2A(t, expect, jsonv.Obj("h", h, "link", link), err)
			default:
				t.Fatalf("call %s", str(t, r, "call"))
			}
		})
	}
}
