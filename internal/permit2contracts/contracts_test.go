package permit2contracts_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/internal/permit2contracts"
	"github.com/termsgate/termsgate/rails/evm"
)

func TestCommittedBytecode(t *testing.T) {
	for _, c := range permit2contracts.All() {
		sum := sha256.Sum256(c.Creation())
		if got := hex.EncodeToString(sum[:]); got != c.SHA256 {
			t.Errorf("%s.bin hashes to %s; README.md and contracts.go record %s", c.Name, got, c.SHA256)
		}
	}
}

// TestUptoProxyIsTheDeployedOne: CREATE2 over the upto proxy built here,
// from x402's deterministic deployer with x402's salt, gives the address the
// upto pairing names (and x402 deployed it to): the build is byte for byte
// the deployed contract.
func TestUptoProxyIsTheDeployedOne(t *testing.T) {
	c := permit2contracts.UptoProxy
	got := crypto.CreateAddress2(permit2contracts.DeterministicDeployer, permit2contracts.UptoSalt, crypto.Keccak256(c.InitCode()))
	if !evm.SameAddress(got.Hex(), evm.UptoPermit2Proxy) || got != c.Address {
		t.Fatalf("CREATE2 gives %s, the pairing names %s", got.Hex(), evm.UptoPermit2Proxy)
	}
}
