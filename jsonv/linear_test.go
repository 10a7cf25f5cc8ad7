package jsonv

import (
	"bytes"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/termsgate/termsgate/internal/cost"
)

// manyMembers is an object of n members named k0, k1, …, each a small number.
func manyMembers(n int) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i%10)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// nestedArrays is about size bytes of arrays nested 64 deep, side by side in
// one outer array: the deepest shape Parse accepts, repeated.
func nestedArrays(size int) []byte {
	one := strings.Repeat("[", MaxDepth-1) + "1" + strings.Repeat("]", MaxDepth-1)
	var b bytes.Buffer
	b.WriteByte('[')
	for b.Len()+len(one)+2 <= size {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(one)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// A hostile object's cost grows with its length, not its square: four times
// the members costs less than eight times the time (quadratic is sixteen).
//
// The sizes keep the name index (160 KiB and 512 KiB of slots) within the
// processor's caches: past them every insertion waits on memory, so 200k →
// 800k members costs about 6.5× on the project's machine for want of cache,
// not of an algorithm (BenchmarkParseObject100k holds the large size to its
// budget). The collector is off while it parses (cost.Cheapest collects
// between runs): how often it runs depends on the heap around the parse,
// which is the runtime's cost and the noisiest part of the measurement.
func TestParseObjectLinear(t *testing.T) {
	small, large := manyMembers(5_000), manyMembers(20_000)
	parse := func(data []byte) func() {
		return func() {
			if _, err := Parse(data); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// Memory traffic from other processes on a shared machine can inflate
	// one measurement; a quadratic parse (×16) fails every attempt.
	var ratios []float64
	for range 3 {
		c := cost.Cheapest(9, parse(small), parse(large))
		r := float64(c[1]) / float64(c[0])
		t.Logf("CPU time: 5k members %v, 20k members %v (×%.1f)", c[0], c[1], r)
		if r < 8 {
			return
		}
		ratios = append(ratios, r)
	}
	t.Fatalf("4× the members took %.1f× the CPU time in every attempt: superlinear", ratios)
}

// The index behind large objects keeps every rule of the small ones:
// duplicates keep the first position with the last value, array-index names
// come first, Delete and Clone stay consistent.
func TestLargeObjectSemantics(t *testing.T) {
	for _, n := range []int{3, indexFrom - 1, indexFrom, indexFrom + 1, 200} {
		var b strings.Builder
		b.WriteByte('{')
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		// Duplicates of the first and last names, and two array indexes.
		fmt.Fprintf(&b, `"k0":"first again","k%d":"last again","7":1,"3":2}`, n-1)
		v, err := Parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		o := v.(*Object)
		keys := o.Keys()
		if o.Len() != n+2 || keys[0] != "3" || keys[1] != "7" || keys[2] != "k0" || keys[n+1] != "k"+strconv.Itoa(n-1) {
			t.Fatalf("n=%d: keys %v", n, keys)
		}
		if s, _ := o.GetString("k0"); s != "first again" {
			t.Fatalf("n=%d: k0 = %q", n, s)
		}
		for i, k := range keys {
			if got, ok := o.Get(k); !ok || !Equal(got, o.Members()[i].Value) {
				t.Fatalf("n=%d: Get(%q) disagrees with member %d", n, k, i)
			}
		}
		c := o.Clone()
		o.Delete("k1")
		o.Delete("3")
		o.Set("new", true)
		o.Set("k2", "replaced")
		if o.Has("k1") || o.Has("3") || !o.Has("k0") || o.Keys()[o.Len()-1] != "new" {
			t.Fatalf("n=%d: after Delete/Set keys %v", n, o.Keys())
		}
		if got, _ := o.GetString("k2"); got != "replaced" {
			t.Fatalf("n=%d: k2 = %v", n, got)
		}
		if k := o.Keys()[1]; k != "k0" {
			t.Fatalf("n=%d: after deleting \"3\" the second key is %q", n, k)
		}
		for i, k := range o.Keys() {
			if got, _ := o.Get(k); !Equal(got, o.Members()[i].Value) {
				t.Fatalf("n=%d: after edits Get(%q) disagrees with member %d", n, k, i)
			}
		}
		if !c.Has("k1") || !c.Has("3") || c.Has("new") || c.Len() != n+2 {
			t.Fatalf("n=%d: the clone saw the edits: %v", n, c.Keys())
		}
	}
}

func BenchmarkParseObject100k(b *testing.B) {
	data := manyMembers(100_000)
	b.Logf("%d members, %d bytes", 100_000, len(data))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cost.CPU()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// reportCPU adds the process's CPU time per parse (garbage collection
// included), which a shared machine's load does not inflate as it does the
// wall clock's ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cost.CPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

func BenchmarkParseNestedArrays(b *testing.B) {
	for _, size := range []int{1 << 20, 8 << 20} {
		data := nestedArrays(size)
		b.Run(fmt.Sprintf("size=%dMiB", size>>20), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			start := cost.CPU()
			for b.Loop() {
				if _, err := Parse(data); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}
