package card

import (
	"os"
	"testing"

	"github.com/termsgate/termsgate/internal/memo"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// TestAutonomousLayerMemoAgrees: with the user's and the issuer's layers
// remembered, every C7 row of card.json still reads as it says, in either
// order and again (the good chain's layers remembered before the flipped or
// stripped one is read), and the memo never grows past its size.
func TestAutonomousLayerMemoAgrees(t *testing.T) {
	raw, err := os.ReadFile("../../vectors/testdata/card.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := jsonv.AsObject(v)
	c7, _ := f.GetObject("C7")
	check := func(name string) {
		t.Helper()
		row, _ := c7.GetObject(name)
		presented, _ := row.Get("presented")
		want, _ := row.GetString("expect")
		h, err := (VIAutonomous{}).Bound(presented)
		got := h
		if err != nil {
			r, _ := err.(*rails.Refusal)
			if r == nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = r.Code
		}
		if got != want {
			t.Fatalf("%s: %s, want %s", name, got, want)
		}
	}
	for _, order := range [][]string{{"bound", "flippedSignature", "withoutDco", "bound"}, {"withoutDco", "flippedSignature", "bound", "flippedSignature", "withoutDco"}} {
		autonomousLayers = memo.New[layerName, readLayerText](layerMemoSize)
		for _, name := range order {
			check(name)
			check(name)
		}
	}
	// The good chain is remembered now; the same chain with another L1
	// misses the memo and is refused by L2's sd_hash.
	bound, _ := c7.GetObject("bound")
	pv, _ := bound.Get("presented")
	p := pv.(*jsonv.Object).Clone()
	l1, _ := p.GetString("l1")
	p.Set("l1", "x"+l1)
	if _, err := (VIAutonomous{}).Bound(p); err == nil {
		t.Fatal("another L1 read after the chain's was remembered")
	} else if r, _ := err.(*rails.Refusal); r == nil || r.Code != CodeVISDHashMismatch {
		t.Fatalf("another L1: %v", err)
	}
	for i := 0; i < 2*layerMemoSize; i++ {
		autonomousLayers.Put(layerKey("l2", string(rune(i))), readLayerText{})
		if n := autonomousLayers.Len(); n > layerMemoSize {
			t.Fatalf("the memo holds %d", n)
		}
	}
}
