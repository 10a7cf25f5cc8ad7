package mpp

import (
	"runtime"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

func code(err error) string {
	if r, ok := err.(*rails.Refusal); ok {
		return r.Code
	}
	if err != nil {
		return "not a refusal: " + err.Error()
	}
	return ""
}

const minimal = `id="a", realm="r", method="evm", intent="charge", request="e30"`

func TestParseChallengesGrammar(t *testing.T) {
	for _, c := range []struct {
		name   string
		values []string
		want   string // JSON of the challenges
	}{
		{"minimal", []string{"Payment " + minimal},
			`[{"id":"a","realm":"r","method":"evm","intent":"charge","request":"e30"}]`},
		{"scheme and names in any case, BWS around =", []string{`pAyMeNt ID = "a" , REALM="r",method= evm ,intent =charge, request="e30"`},
			`[{"id":"a","realm":"r","method":"evm","intent":"charge","request":"e30"}]`},
		{"other schemes kept out, token68 and params", []string{`Basic realm="x", Bearer abc==, Payment ` + minimal + `, Digest nonce="n"`},
			`[{"id":"a","realm":"r","method":"evm","intent":"charge","request":"e30"}]`},
		{"unknown parameters dropped, even repeated", []string{`Payment x="1", ` + minimal + `, x="2"`},
			`[{"id":"a","realm":"r","method":"evm","intent":"charge","request":"e30"}]`},
		{"quoted-pairs unescaped", []string{`Payment id="a\"b\\c", realm="r", method="evm", intent="charge", request="e30", description="\x"`},
			`[{"id":"a\"b\\c","realm":"r","method":"evm","intent":"charge","request":"e30","description":"x"}]`},
		{"obs-text read as Latin-1", []string{"Payment " + minimal + `, description="caf` + "\xe9" + `"`},
			`[{"id":"a","realm":"r","method":"evm","intent":"charge","request":"e30","description":"café"}]`},
		{"empty list elements", []string{",, Payment " + minimal + " ,,", ""},
			`[{"id":"a","realm":"r","method":"evm","intent":"charge","request":"e30"}]`},
		{"no Payment challenge", []string{`Basic realm="x"`}, `[]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseChallenges(c.values)
			if err != nil {
				t.Fatal(err)
			}
			if s := jsonv.String(got); s != c.want {
				t.Fatalf("got  %s\nwant %s", s, c.want)
			}
		})
	}
}

func TestParseChallengesRefusals(t *testing.T) {
	many := strings.TrimSuffix(strings.Repeat("Payment "+minimal+", ", 33), ", ")
	for _, c := range []struct {
		name, value, code string
	}{
		{"unterminated quoted-string", `Payment id="a, realm="r"`, CodeHeaderMalformed},
		{"a param before any scheme", `id="a", Payment ` + minimal, CodeHeaderMalformed},
		{"a bad escape", "Payment id=\"a\\\x01\"", CodeHeaderMalformed},
		{"a control character in a quoted-string", "Payment id=\"a\x01\"", CodeHeaderMalformed},
		{"two params without a comma", `Payment id="a" realm="r"`, CodeHeaderMalformed},
		{"a tab after the scheme", "Payment\tid=\"a\"", CodeHeaderMalformed},
		{"an empty value: id= reads as a token68", `Payment id=, realm="r"`, CodeChallengeMalformed},
		{"an empty value after a param", "Payment " + minimal + `, digest=`, CodeHeaderMalformed},
		{"a byte that is no token character", "Payment id=\xe9", CodeHeaderMalformed},
		{"over 8192 bytes", "Payment " + minimal + `, description="` + strings.Repeat("x", MaxFieldValue) + `"`, CodeHeaderMalformed},
		{"33 Payment challenges", many, CodeHeaderMalformed},
		{"a repeated known parameter", "Payment " + minimal + `, ReAlm="s"`, CodeChallengeMalformed},
		{"an empty id", `Payment id="", realm="r", method="evm", intent="charge", request="e30"`, CodeChallengeMalformed},
		{"no request", `Payment id="a", realm="r", method="evm", intent="charge"`, CodeChallengeMalformed},
		{"a token68 Payment challenge", `Payment abc==`, CodeChallengeMalformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseChallenges([]string{c.value})
			if code(err) != c.code {
				t.Fatalf("got %q, want %s", code(err), c.code)
			}
		})
	}
	// A grammar failure anywhere in a value wins over a malformed challenge
	// before it: the value is read whole first.
	_, err := ParseChallenges([]string{`Payment id="", realm="r", method="evm", intent="charge", request="e30", x="`})
	if code(err) != CodeHeaderMalformed {
		t.Fatal(code(err))
	}
	// 32 challenges over several values are fine; the 33rd is not.
	values := strings.Split(strings.Repeat("Payment "+minimal+"\n", 32), "\n")
	if got, err := ParseChallenges(values[:32]); err != nil || len(got) != 32 {
		t.Fatalf("32: %d (%v)", len(got), err)
	}
	if _, err := ParseChallenges(append(values[:32], "Payment "+minimal)); code(err) != CodeHeaderMalformed {
		t.Fatal(code(err))
	}
}

// A 1 MiB hostile header is refused without reading it, in bounded memory,
// whether it comes as one value or as many values of 8 KiB.
func TestHostileHeaderBoundedMemory(t *testing.T) {
	huge := "Payment " + minimal + `, description="` + strings.Repeat("\\x", 1<<19) + `"`
	chunk := strings.Repeat("Basic a, ", MaxFieldValue/9)
	var chunks []string
	for n := 0; n < 1<<20; n += len(chunk) {
		chunks = append(chunks, chunk)
	}
	broken := make([]string, len(chunks))
	for i := range broken {
		broken[i] = `Payment id="` + strings.Repeat("a", MaxFieldValue-20)
	}
	for name, values := range map[string][]string{"one value": {huge}, "many values": chunks, "many broken values": broken} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := ParseChallenges(values)
			runtime.ReadMemStats(&after)
			if name == "many values" {
				if err != nil {
					t.Fatal(err) // no Payment challenge: nothing to refuse
				}
			} else if code(err) != CodeHeaderMalformed {
				t.Fatalf("got %q", code(err))
			}
			// Each value is parsed on its own: the work space is a few
			// copies of one 8 KiB value, never the megabyte.
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 512<<10 {
				t.Fatalf("allocated %d bytes for a 1 MiB header", grew)
			}
		})
	}
	if allocs := testing.AllocsPerRun(10, func() { _, _ = ParseChallenges([]string{huge}) }); allocs > 1 {
		t.Fatalf("%v allocations to refuse an oversize value", allocs)
	}
}

func TestChallengeHeaderRoundTrip(t *testing.T) {
	c := jsonv.Obj("id", "a", "realm", `r"e\alm`, "method", "evm", "intent", "charge", "request", "e30", "description", "café")
	got, err := ParseChallenges([]string{ChallengeHeader(c)})
	if err != nil {
		t.Fatal(err)
	}
	// "é" goes out as UTF-8 bytes and comes back as two Latin-1 characters,
	// as a browser's fetch would read it: sellers keep values ASCII.
	want := c.Clone()
	want.Set("description", "cafÃ©")
	if jsonv.String(got[0]) != jsonv.String(want) {
		t.Fatalf("%s", jsonv.String(got[0]))
	}
}

func FuzzParseChallenges(f *testing.F) {
	f.Add("Payment " + minimal)
	f.Add(`Payment id="a\"b", realm="r", method="evm", intent="charge", request="e30", Basic abc==`)
	f.Add(`Payment id="a, realm="r"`)
	f.Add(",,")
	f.Fuzz(func(t *testing.T, value string) {
		cost.Bound(t, len(value), func() {
			got, err := ParseChallenges([]string{value})
			if err != nil {
				if _, ok := err.(*rails.Refusal); !ok {
					t.Fatalf("not a refusal: %v", err)
				}
				return
			}
			if len(got) > MaxChallenges {
				t.Fatalf("%d challenges", len(got))
			}
			for _, c := range got {
				o, ok := jsonv.AsObject(c)
				if !ok {
					t.Fatal("not an object")
				}
				for _, k := range requiredParams {
					if s, _ := o.GetString(k); s == "" {
						t.Fatalf("no %s", k)
					}
				}
				// What was parsed writes back and parses to the same challenge.
				again, err := ParseChallenges([]string{ChallengeHeader(o)})
				if err != nil || len(again) != 1 {
					t.Fatalf("round trip: %v", err)
				}
			}
			// Read and the check never panic on what the parser gives.
			_, _ = Read(got)
			for _, c := range got {
				_, _ = CheckChallenge(c, true)
				_, _ = Network(c)
			}
		})
	})
}
