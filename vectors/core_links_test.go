package vectors_test

// core-vectors.json, rows LK1–LK21 ("links": the https-link rule and the
// link-not-https / legal-context-malformed split, through atr.CheckLink) and
// vectors V1, V2, V3 and V6-plant (SHA-256 over the exact bytes, through
// atr.Sum; V6-plant must also differ from the vector it names in
// mustNotEqual). The other rows of the file (refusals, jsonDepth, assembly)
// belong to other packages' tests.

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/vectors"
)

type coreVectorsFile struct {
	Vectors []struct {
		Name           string `json:"name"`
		ExpectBytesHex string `json:"expectBytesHex"`
		BytesHex       string `json:"bytesHex"`
		ExpectHash     string `json:"expectHash"`
		MustNotEqual   string `json:"mustNotEqual"`
	} `json:"vectors"`
	Links struct {
		Rows []struct {
			Name      string `json:"name"`
			Case      string `json:"case"`
			Link      string `json:"link"`
			Accept    bool   `json:"accept"`
			RefusedAs string `json:"refusedAs"`
		} `json:"rows"`
	} `json:"links"`
}

func loadCoreVectors(t *testing.T) *coreVectorsFile {
	t.Helper()
	b, err := vectors.ReadFile("core-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f coreVectorsFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func TestCoreVectorsLK(t *testing.T) {
	f := loadCoreVectors(t)
	verdicts := map[string]atr.LinkVerdict{
		"accepted":                atr.LinkOK,
		"link-not-https":          atr.LinkOtherScheme,
		"legal-context-malformed": atr.LinkMalformed,
	}
	if len(f.Links.Rows) != 21 {
		t.Fatalf("%d link rows, want LK1–LK21", len(f.Links.Rows))
	}
	for _, r := range f.Links.Rows {
		t.Run(r.Name, func(t *testing.T) {
			want, ok := verdicts[r.RefusedAs]
			if !ok {
				t.Fatalf("unknown refusedAs %q", r.RefusedAs)
			}
			if got := atr.CheckLink(r.Link); got != want {
				t.Errorf("%s: CheckLink = %v, want %v (%s)", r.Case, got, want, r.RefusedAs)
			}
			if got := atr.IsHTTPSLink(r.Link); got != r.Accept {
				t.Errorf("%s: IsHTTPSLink = %v, want accept %v", r.Case, got, r.Accept)
			}
		})
	}
}

func TestCoreVectorsV1V2V3V6plant(t *testing.T) {
	f := loadCoreVectors(t)
	hashes := map[string]atr.Hash{}
	for _, v := range f.Vectors {
		if want, err := atr.ParseHash(v.ExpectHash); err == nil {
			hashes[v.Name] = want
		}
	}
	seen := 0
	for _, v := range f.Vectors {
		switch v.Name {
		case "V1", "V2", "V3", "V6-plant":
		default:
			continue
		}
		seen++
		t.Run(v.Name, func(t *testing.T) {
			text := v.ExpectBytesHex
			if text == "" {
				text = v.BytesHex
			}
			b, err := hex.DecodeString(text)
			if err != nil || len(b) == 0 {
				t.Fatalf("bytes: %v", err)
			}
			got := atr.Sum(b)
			if got.String() != v.ExpectHash || !atr.EqualText(v.ExpectHash, got) {
				t.Errorf("Sum = %s, want %s", got, v.ExpectHash)
			}
			if v.MustNotEqual != "" {
				other, ok := hashes[v.MustNotEqual]
				if !ok {
					t.Fatalf("mustNotEqual names %q, which has no hash", v.MustNotEqual)
				}
				if got.Equal(other) || atr.EqualText(other.String(), got) {
					t.Errorf("hash equals %s's", v.MustNotEqual)
				}
			}
		})
	}
	if seen != 4 {
		t.Fatalf("found %d of V1, V2, V3, V6-plant", seen)
	}
}
