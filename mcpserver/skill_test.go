package mcpserver_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/termsgate/termsgate/mcpserver"
)

// TestSkillNamesTheRegisteredTools holds SKILL.md to the server: its tool
// headings are exactly the tools a server with a wallet registers (the
// largest set), in no other spelling.
func TestSkillNamesTheRegisteredTools(t *testing.T) {
	raw, err := os.ReadFile("../SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^### `([a-z_]+)`$").FindAllSubmatch(raw, -1) {
		documented = append(documented, string(m[1]))
	}
	f := loadFixture(t)
	cs := connectHTTP(t, newServer(t, f, nil, mcpserver.Config{Signer: newSigner(t, f)}), nil)
	registered := toolNames(listTools(t, cs))
	slices.Sort(documented)
	slices.Sort(registered)
	if !slices.Equal(documented, registered) {
		t.Fatalf("SKILL.md documents %v; the server registers %v", documented, registered)
	}
	if !regexp.MustCompile(`(?s)^---\nname: termsgate\ndescription: [^\n]+\n---\n`).Match(raw) {
		t.Fatal("SKILL.md does not open with its name and description")
	}
}
