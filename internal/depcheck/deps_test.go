package depcheck

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPaymentPathIsLight: importing gate, pay or mcpserver, or building the
// CLI, compiles none of go-ethereum's KZG, gnark or blst code, nor the
// keystore and apitypes packages that bring it (core types). Tests may use
// them; the payment path may not.
func TestPaymentPathIsLight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps",
		"github.com/termsgate/termsgate/gate", "github.com/termsgate/termsgate/pay",
		"github.com/termsgate/termsgate/mcpserver", "github.com/termsgate/termsgate/cmd/termsgate").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	banned := []string{"kzg", "gnark", "blst", "go-ethereum/accounts/keystore", "go-ethereum/signer/core/apitypes", "go-ethereum/core/types"}
	for _, pkg := range strings.Fields(string(out)) {
		for _, b := range banned {
			if strings.Contains(pkg, b) {
				t.Errorf("the payment path imports %s", pkg)
			}
		}
	}
}
