package mcpserver

import (
	"os"
	"strings"
	"testing"
)

// TestInstructionsDocumented: docs/mcp.md quotes the instructions the
// server gives, line for line, so the two cannot drift apart.
func TestInstructionsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	quoted := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if rest, ok := strings.CutPrefix(line, "> "); ok {
			quoted[rest] = true
		}
	}
	// The first paragraph is wrapped in the document; compare it as words.
	paras := strings.SplitN(baseInstructions, "\n\n", 2)
	var first []string
	for _, line := range strings.Split(string(doc), "\n") {
		if rest, ok := strings.CutPrefix(line, "> "); ok && !strings.HasPrefix(rest, "How to pay") && len(first) < 3 {
			first = append(first, rest)
		}
	}
	if strings.Join(strings.Fields(strings.Join(first, " ")), " ") != strings.Join(strings.Fields(paras[0]), " ") {
		t.Errorf("docs/mcp.md does not quote the first paragraph:\n%s", paras[0])
	}
	for _, line := range strings.Split(paras[1], "\n") {
		if line != "" && !quoted[line] {
			t.Errorf("docs/mcp.md does not quote the instruction line:\n%s", line)
		}
	}
}
