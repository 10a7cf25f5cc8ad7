package atr

import (
	"bufio"
	"encoding/json"
	"math/rand"
	"os"
	"testing"
)

var pieces = []string{"https://", "HTTPS://", "http://", "ftp://", "file://", "urn:", "foo://", "https:", "https:/", "https:\\\\", " https://", "ws://", "hTtPs://", "https:///",
	"a", "xn--mnchen-3ya", "xn--a", "0x7f", "1", "999", "08", "0x", "example", "-a", "a-", "ü", "Ａ", "[::1]", "[1.2.3.4]", "[::ffff:1.2.3.4]", "[fe80::1%25eth0]", "[", "]",
	"%41", "%2f", "%2e", "a b", "a@b", "@", ":", ":80", ":65536", ":443", ":0443", "..", ".", "/", "?", "#", "\\", "%zz", "{", "^", "/../", "/./", "\u00a0", "\t", "\u200b", "😀",
	"255", "256", "0", "4294967295", "0x100000000", "07", "0xff", "xn--", "ab--c", "xn--n3h", "XN--MNCHEN-3YA", "'", "\"", "<", "|", "`", "\n", "%", "。", "ß", "İ", "\u0301", "\ufffd", "localhost", "[::]", "[1::2:3:4:5:6:7]", "[::1:2:3:4:5:6:7:8]", "[0:0::1.2.3.04]", "[::1.2.3.4]"}

func TestGen(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	f, _ := os.Create("/tmp/diff/in.jsonl")
	w := bufio.NewWriter(f)
	for i := 0; i < 300000; i++ {
		n := 1 + r.Intn(8)
		s := ""
		if r.Intn(3) > 0 {
			s = pieces[r.Intn(14)]
		}
		for j := 0; j < n; j++ {
			s += pieces[r.Intn(len(pieces))]
		}
		b, _ := json.Marshal(s)
		w.Write(b)
		w.WriteByte('\n')
	}
	w.Flush()
	f.Close()
}

func TestCompare(t *testing.T) {
	f, err := os.Open("/tmp/diff/out.jsonl")
	if err != nil {
		t.Skip()
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	bad := 0
	for sc.Scan() {
		var row [3]string
		json.Unmarshal(sc.Bytes(), &row)
		got := CheckLink(row[0]).String()
		extra := ""
		if u, ok := requestURL(row[0]); ok {
			extra = u.Host + " " + u.RequestURI()
			if len(u.Opaque) > 1 && u.Opaque[:2] == "//" {
				extra = u.Host + " " + u.Opaque[2+len(u.Host):]
				if u.RawQuery != "" || u.ForceQuery {
					extra += "?" + u.RawQuery
				}
			}
		}
		if got != row[1] || extra != row[2] {
			bad++
			if bad < 60 {
				t.Errorf("%q: go %s %q, node %s %q", row[0], got, extra, row[1], row[2])
			}
		}
	}
	t.Logf("bad %d", bad)
}
