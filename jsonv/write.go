package jsonv

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Marshal writes v as JSON.stringify(v) would: no whitespace, members in
// order, numbers in ECMAScript's shortest form, and only '"', '\\' and
// U+0000–U+001F escaped ('<', '>', '&', U+2028 and non-ASCII stay as they are,
// unlike encoding/json).
func Marshal(v Value) []byte { return AppendMarshal(nil, v) }

// AppendMarshal appends Marshal(v) to dst.
func AppendMarshal(dst []byte, v Value) []byte { return appendValue(dst, v, false) }

// String is Marshal as a string.
func String(v Value) string { return string(Marshal(v)) }

// Canonical writes v in RFC 8785 (JCS) form: as Marshal, with every object's
// members sorted by the UTF-16 code units of their names.
func Canonical(v Value) []byte { return appendValue(nil, v, true) }

func appendValue(dst []byte, v Value, sorted bool) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		if x {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		return AppendNumber(dst, float64(x))
	case string:
		return AppendString(dst, x)
	case []Value:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, e, sorted)
		}
		return append(dst, ']')
	case *Object:
		if x == nil {
			return append(dst, "null"...)
		}
		members := x.members
		if sorted {
			members = append([]Member(nil), members...)
			sort.Slice(members, func(i, j int) bool { return lessUTF16(members[i].Key, members[j].Key) })
		}
		dst = append(dst, '{')
		for i, m := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, m.Key)
			dst = append(dst, ':')
			dst = appendValue(dst, m.Value, sorted)
		}
		return append(dst, '}')
	default:
		// Only jsonv values belong here; anything else is a programming error
		// that must show up in tests rather than as a quietly wrong payment.
		panic(fmt.Sprintf("jsonv: cannot write a %T", v))
	}
}

// lessUTF16 orders strings by UTF-16 code units, as JCS requires (it differs
// from byte order only for characters above U+FFFF against U+E000–U+FFFF).
func lessUTF16(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string the way JSON.stringify escapes it.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	if !utf8.ValidString(s[start:]) {
		// A Go string may hold bytes that are no UTF-8; write U+FFFD for them
		// so the output is always valid JSON.
		dst = append(dst, strings.ToValidUTF8(s[start:], "\uFFFD")...)
	} else {
		dst = append(dst, s[start:]...)
	}
	return append(dst, '"')
}

// AppendNumber appends f as ECMAScript's Number::toString writes it.
func AppendNumber(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...) // what JSON.stringify writes
	}
	if f == 0 {
		return append(dst, '0') // also for -0
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Shortest round-trip digits d1…dk and exponent n with value 0.d1…dk × 10^n.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expText, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expText)
	n := exp + 1
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for i := 0; i < n-k; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := 0; i < -n; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}
