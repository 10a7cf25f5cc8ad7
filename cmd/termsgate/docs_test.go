package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The repository's own documents, read from the module root: what a person
// who clones it reads first.
const repoRoot = "../.."

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// repoDocs are the Markdown files at the root and under docs/.
func repoDocs(t *testing.T) []string {
	t.Helper()
	root, _ := filepath.Glob(filepath.Join(repoRoot, "*.md"))
	docs, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	var names []string
	for _, p := range append(root, docs...) {
		rel, _ := filepath.Rel(repoRoot, p)
		names = append(names, filepath.ToSlash(rel))
	}
	return names
}

// TestAdoptable: the license (Apache-2.0, the vectors' license, in full),
// the security policy, the changelog in Keep a Changelog's form and the
// contributing guide are there, and no file in the repository says it is
// unlicensed.
func TestAdoptable(t *testing.T) {
	license := readRepoFile(t, "LICENSE")
	for _, want := range []string{"Apache License", "Version 2.0, January 2004", "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
		"9. Accepting Warranty or Additional Liability.", "END OF TERMS AND CONDITIONS"} {
		if !strings.Contains(license, want) {
			t.Errorf("LICENSE lacks %q: not the Apache License 2.0's full text", want)
		}
	}
	for file, wants := range map[string][]string{
		"SECURITY.md":     {"## Reporting", "## In scope", "## Out of scope", "Nothing is signed on doubt", "beyond the operator's limits"},
		"CHANGELOG.md":    {"keepachangelog.com", "## [Unreleased]", "### Added"},
		"CONTRIBUTING.md": {"## Running the tests", "docs/adding-a-pairing.md", "## Updating the vectors", "vectors/testdata/README.md"},
		"README.md":       {"[LICENSE](LICENSE)", "[SECURITY.md](SECURITY.md)", "[CONTRIBUTING.md](CONTRIBUTING.md)", "[CHANGELOG.md](CHANGELOG.md)"},
	} {
		text := readRepoFile(t, file)
		for _, w := range wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q", file, w)
			}
		}
	}
	unlicensed := regexp.MustCompile(`(?i)\bun-?licen[cs]ed\b`)
	err := filepath.WalkDir(repoRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "node_modules" || n == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Base(path) == "docs_test.go" {
			return nil // this test names the word it looks for
		}
		if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
			return err // a built binary, not a document
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if loc := unlicensed.FindIndex(b); loc != nil {
			t.Errorf("%s says %q", path, b[loc[0]:loc[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// markdownLink is a Markdown link's target: [text](target).
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinked: every document under docs/ is linked from the README, and
// every relative link in the README and the docs names a file that exists.
func TestDocsLinked(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	for _, name := range repoDocs(t) {
		if strings.HasPrefix(name, "docs/") && !strings.Contains(readme, "("+name+")") && !strings.Contains(readme, "("+name+"#") {
			t.Errorf("README.md does not link %s", name)
		}
	}
	for _, name := range repoDocs(t) {
		dir := filepath.Dir(filepath.Join(repoRoot, name))
		for _, m := range markdownLink.FindAllStringSubmatch(readRepoFile(t, name), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(dir, target)); err != nil {
				t.Errorf("%s links %s, which does not exist", name, m[1])
			}
		}
	}
}

// TestDocsSayWhatWasMeasured: the README and the docs name no internal issue
// numbers (a reader has no access to them); they say what was measured.
func TestDocsSayWhatWasMeasured(t *testing.T) {
	issueRef := regexp.MustCompile(`(?i)\bissues? #?\d+|\(#\d+\)`)
	for _, name := range repoDocs(t) {
		for i, line := range strings.Split(readRepoFile(t, name), "\n") {
			// A public URL naming an upstream issue is a citation, not ours.
			line = regexp.MustCompile(`https?://\S+`).ReplaceAllString(line, "")
			if m := issueRef.FindString(line); m != "" {
				t.Errorf("%s:%d names %q", name, i+1, m)
			}
		}
	}
}

// TestReadmeInstallsFirst: the README says how to install termsgate before
// any command that assumes it on the PATH, states the first build's time,
// and its walkthrough runs in a temporary folder, so that the files it
// writes (seller.pem, a key file) land nowhere near a checkout.
func TestReadmeInstallsFirst(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	install := strings.Index(readme, "go install github.com/termsgate/termsgate/cmd/termsgate@latest")
	if install < 0 || !strings.Contains(readme, "go install ./cmd/termsgate") {
		t.Fatal("README.md does not say go install github.com/termsgate/termsgate/cmd/termsgate@latest and go install ./cmd/termsgate")
	}
	onPath := regexp.MustCompile(`(?m)^termsgate `)
	if loc := onPath.FindStringIndex(readme); loc == nil || loc[0] < install {
		t.Errorf("a command assumes termsgate on the PATH (at byte %v) before the install line (byte %d)", loc, install)
	}
	if strings.Contains(readme, "./termsgate ") {
		t.Error("README.md runs ./termsgate, which the walkthrough's temporary folder does not hold")
	}
	if !regexp.MustCompile(`first build[^.]*empty build cache`).MatchString(readme) {
		t.Error("README.md does not state the first build's time on an empty build cache")
	}
	walk := strings.Index(readme, "## Try it")
	block := strings.Index(readme[walk:], "```sh\n")
	if walk < 0 || block < 0 || !strings.HasPrefix(readme[walk+block+len("```sh\n"):], `cd "$(mktemp -d)"`) {
		t.Error(`the walkthrough does not start with cd "$(mktemp -d)"`)
	}
}

// TestGitignoreKeepsSecretsOut: git ignores key files, PEM files and what
// the walkthrough writes, wherever a person runs it in the checkout.
func TestGitignoreKeepsSecretsOut(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := exec.Command("git", "-C", repoRoot, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	ignored := []string{"seller.pem", "docs/some.pem", "key.pem", "tls.key", "wallet.json", "offer.txt", "confirmed.json",
		"payment.json", "paid.json", "approve.json",
		"keystore-0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266.json", "cmd/termsgate/keystore-0xabc.json",
		"UTC--2026-12-02T07-00-00.000000000Z--f39fd6e51aad88f6f4ce6ab8827279cfffb92266"}
	tracked := []string{"signer/keystore.go", "pay/keystore_test.go", "README.md", "docs/payment.json.md"}
	cmd := exec.Command("git", append([]string{"-C", repoRoot, "check-ignore", "--no-index"}, append(ignored, tracked...)...)...)
	out, _ := cmd.Output() // exit 1 when some are not ignored
	got := map[string]bool{}
	for _, l := range strings.Split(string(bytes.TrimSpace(out)), "\n") {
		got[l] = true
	}
	for _, p := range ignored {
		if !got[p] {
			t.Errorf("git does not ignore %s", p)
		}
	}
	for _, p := range tracked {
		if got[p] {
			t.Errorf("git ignores %s", p)
		}
	}
}
