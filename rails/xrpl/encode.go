package xrpl

import "sort"

// Encode writes fields in their binary form. Fields must already be in
// canonical order (Sort); Decode's output always is, and Encode(Decode(b))
// gives b back.
func Encode(fs Fields) []byte { return appendFields(make([]byte, 0, 256), fs) }

func appendFields(b []byte, fs Fields) []byte {
	for _, f := range fs {
		b = appendField(b, f)
	}
	return b
}

func appendField(b []byte, f Field) []byte {
	b = appendHeader(b, f.ID)
	switch {
	case f.ID.Type == TypeSTObject:
		b = appendFields(b, f.Fields)
		return append(b, 0xE1)
	case f.ID.Type == TypeSTArray:
		for _, m := range f.Fields {
			b = appendHeader(b, m.ID)
			b = appendFields(b, m.Fields)
			b = append(b, 0xE1)
		}
		return append(b, 0xF1)
	case isVL(f.ID.Type):
		b = appendLength(b, len(f.Value))
	}
	return append(b, f.Value...)
}

func appendHeader(b []byte, id FieldID) []byte {
	t, c := id.Type, id.Code
	switch {
	case t < 16 && c < 16:
		return append(b, t<<4|c)
	case t < 16:
		return append(b, t<<4, c)
	case c < 16:
		return append(b, c, t)
	}
	return append(b, 0, t, c)
}

// MaxVL is the longest value a length prefix can describe.
const MaxVL = 918744

func appendLength(b []byte, n int) []byte {
	switch {
	case n <= 192:
		return append(b, byte(n))
	case n <= 12480:
		n -= 193
		return append(b, byte(193+n>>8), byte(n))
	}
	n -= 12481
	return append(b, byte(241+n>>16), byte(n>>8), byte(n))
}

// Sort puts fields, and those of every nested object, in canonical order.
// Array members keep their order.
func Sort(fs Fields) {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].ID.ordinal() < fs[j].ID.ordinal() })
	for i := range fs {
		switch fs[i].ID.Type {
		case TypeSTObject:
			Sort(fs[i].Fields)
		case TypeSTArray:
			for j := range fs[i].Fields {
				Sort(fs[i].Fields[j].Fields)
			}
		}
	}
}
