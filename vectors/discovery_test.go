package vectors_test

// discovery.json: the LCP discovery document, what emit writes (byte for
// byte, with its SHA-256 and ETag where the row gives them) and what parse
// reads (the document in table order, the ignored members' paths) or
// refuses (the code), through package discovery.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/discovery"
	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/vectors"
)

func TestDiscovery(t *testing.T) {
	f, err := vectors.Load("discovery.json")
	if err != nil {
		t.Fatal(err)
	}
	emit, _ := f.Get("emit")
	parse, _ := f.Get("parse")
	if len(emit.([]jsonv.Value)) != 15 || len(parse.([]jsonv.Value)) != 16 {
		t.Fatalf("%d emit and %d parse rows, want 15 and 16", len(emit.([]jsonv.Value)), len(parse.([]jsonv.Value)))
	}
	for _, r := range emit.([]jsonv.Value) {
		row := r.(*jsonv.Object)
		name, _ := row.GetString("name")
		t.Run("emit/"+name, func(t *testing.T) {
			in, _ := row.GetObject("input")
			in = in.Clone()
			if rep, ok := row.GetObject("inputRepeat"); ok {
				member, _ := rep.GetString("member")
				char, _ := rep.GetString("char")
				count, _ := jsonv.AsSafeInt(mustGet(rep, "count"))
				in.Set(member, strings.Repeat(char, int(count)))
			}
			got, err := discovery.Emit(in)
			checkRefusal(t, row, err)
			if err != nil {
				return
			}
			want, _ := row.GetString("bytes")
			if string(got) != want {
				t.Fatalf("emitted\n%s\nwant\n%s", got, want)
			}
			sum := sha256.Sum256(got)
			if s, ok := row.GetString("sha256"); ok && hex.EncodeToString(sum[:]) != s {
				t.Errorf("sha256 %x, want %s", sum, s)
			}
			if e, ok := row.GetString("etag"); ok && discovery.ETag(got) != e {
				t.Errorf("etag %s, want %s", discovery.ETag(got), e)
			}
		})
	}
	for _, r := range parse.([]jsonv.Value) {
		row := r.(*jsonv.Object)
		name, _ := row.GetString("name")
		t.Run("parse/"+name, func(t *testing.T) {
			var b []byte
			if s, ok := row.GetString("bytes"); ok {
				b = []byte(s)
			} else if h, ok := row.GetString("bytesHex"); ok {
				b, _ = hex.DecodeString(h)
			} else if n, ok := jsonv.AsSafeInt(mustGet(row, "padTo")); ok {
				b = padTo(t, int(n))
			} else {
				t.Fatal("row has no bytes")
			}
			d, ignored, err := discovery.Parse(b)
			checkRefusal(t, row, err)
			if err != nil {
				return
			}
			want, _ := row.Get("document")
			if got := jsonv.Marshal(d.JSON()); string(got) != string(jsonv.Marshal(want)) {
				t.Errorf("document %s, want %s", got, jsonv.Marshal(want))
			}
			var wantIgnored []string
			wi, _ := row.Get("ignored")
			for _, v := range wi.([]jsonv.Value) {
				wantIgnored = append(wantIgnored, v.(string))
			}
			if !slices.Equal(ignored, wantIgnored) || ignored == nil {
				t.Errorf("ignored %q, want %q", ignored, wantIgnored)
			}
		})
	}
}

func mustGet(o *jsonv.Object, k string) jsonv.Value { v, _ := o.Get(k); return v }

// checkRefusal holds err to the row's "refused" code, or to none.
func checkRefusal(t *testing.T, row *jsonv.Object, err error) {
	t.Helper()
	want, refused := row.GetString("refused")
	var d *gate.Decline
	switch {
	case !refused && err != nil:
		t.Fatalf("refused %v, want accepted", err)
	case refused && !errors.As(err, &d):
		t.Fatalf("got %v, want a decline %s", err, want)
	case refused && string(d.Code) != want:
		t.Fatalf("refused %s (%s), want %s", d.Code, d.Detail, want)
	case refused && d.Detail == "":
		t.Fatalf("refused %s with no detail", d.Code)
	}
}

// padTo builds the file's padded document of exactly n bytes.
func padTo(t *testing.T, n int) []byte {
	head, tail := `{"terms":"https://seller.example/t.md","x-pad":"`, `"}`
	if n < len(head)+len(tail) {
		t.Fatalf("padTo %d is too short", n)
	}
	return []byte(head + strings.Repeat("a", n-len(head)-len(tail)) + tail)
}
