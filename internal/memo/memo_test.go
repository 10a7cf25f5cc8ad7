package memo

import "testing"

func TestMemoBounded(t *testing.T) {
	m := New[int, int](4)
	for i := range 10 {
		m.Put(i, i*i)
		if m.Len() > 4 {
			t.Fatalf("holds %d", m.Len())
		}
		if v, ok := m.Get(i); !ok || v != i*i {
			t.Fatalf("Get(%d) = %d, %v", i, v, ok)
		}
	}
	if _, ok := m.Get(0); ok {
		t.Fatal("an entry from before the memo was emptied")
	}
}
