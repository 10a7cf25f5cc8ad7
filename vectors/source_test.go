package vectors_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/vectors"
)

// TERMSGATE_VECTORS=DIR makes every vector test read DIR's copy of the files:
// a changed copy is what Load returns, and a file missing from DIR fails the
// load, naming the variable and the directory, rather than falling back to
// the embedded copy.
func TestVectorsDirEnv(t *testing.T) {
	embedded, err := vectors.ReadFile("core-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	changed := strings.Replace(string(embedded), `"LK1"`, `"LK1-upstream"`, 1)
	if changed == string(embedded) {
		t.Fatal("core-vectors.json has no row LK1 to rename")
	}
	if err := os.WriteFile(filepath.Join(dir, "core-vectors.json"), []byte(changed), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(vectors.DirEnv, dir)
	if got := vectors.Source(); got != dir {
		t.Fatalf("Source() = %q, want %q", got, dir)
	}
	f := loadCoreVectors(t)
	if f.Links.Rows[0].Name != "LK1-upstream" {
		t.Fatalf("read row %q from %s, want the copy's LK1-upstream", f.Links.Rows[0].Name, dir)
	}
	o, err := vectors.Load("core-vectors.json")
	if err != nil || !strings.Contains(string(jsonv.Marshal(o)), "LK1-upstream") {
		t.Fatalf("Load did not read the copy: %v", err)
	}
	_, err = vectors.Load("buyer.json")
	if err == nil || !strings.Contains(err.Error(), vectors.DirEnv+"="+dir) {
		t.Fatalf("a file missing from the copy: %v, want an error naming %s=%s", err, vectors.DirEnv, dir)
	}
	t.Setenv(vectors.DirEnv, "")
	if got := vectors.Source(); got != "embedded" {
		t.Fatalf("Source() = %q without the variable", got)
	}
}

// TestVectorsSource logs which copy of the files this run reads, so that a
// CI log says whether it ran the embedded files or another copy.
func TestVectorsSource(t *testing.T) {
	t.Logf("vector files: %s", vectors.Source())
}
