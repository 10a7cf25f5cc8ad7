package bcs

import "testing"

// ULEB128 lengths are read only in their shortest form and within u32, and
// a length is refused when its elements cannot follow.
func TestCanonicalLengths(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want uint32
		ok   bool
	}{
		{[]byte{0}, 0, true}, {[]byte{0x7f}, 127, true}, {[]byte{0x80, 1}, 128, true},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 1<<32 - 1, true},
		{[]byte{0x80, 0}, 0, false}, {[]byte{0xff, 0xff, 0xff, 0xff, 0x1f}, 0, false}, {[]byte{0x80}, 0, false},
	} {
		r := NewReader(c.in)
		v := r.ULEB128()
		if (r.Done() == nil) != c.ok || c.ok && v != c.want {
			t.Fatalf("%x: %d, %v", c.in, v, r.Err())
		}
		if c.ok {
			w := &Writer{}
			w.ULEB128(v)
			if string(w.B) != string(c.in) {
				t.Fatalf("%d writes %x", v, w.B)
			}
		}
	}
	r := NewReader([]byte{5, 1, 2})
	if r.Len(1, 100); r.Err() == nil {
		t.Fatal("5 elements from 2 bytes")
	}
	r = NewReader([]byte{2})
	if r.Bool(); r.Err() == nil {
		t.Fatal("a bool of 2")
	}
}
