package aptosseller

import (
	"context"
	"strings"
	"testing"

	"github.com/termsgate/termsgate/internal/demo"
)

// The Aptos demo runs the agreement exchange, then pays its loopback
// seller, which submits the transfer to a node that checks it as the chain
// would and reads it settled.
func TestDemoExact(t *testing.T) {
	out, paid, err := demo.Play(context.Background(), "aptos", "")
	if err != nil || !strings.Contains(paid, "on aptos:2") {
		t.Fatalf("demo: %v (paid %q)\n%s", err, paid, out)
	}
	for _, want := range []string{"approval asked", "receipt: agreed to", "answered 200", "read it settled",
		"SEQUENCE_NUMBER_TOO_OLD", "declined hash-mismatch", "signer calls for it: 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
}
