//go:build simchain

package rows

import "github.com/termsgate/termsgate/internal/settledemo"

// A binary built with -tags simchain links go-ethereum's simulated chain,
// which the default one leaves out (internal/depcheck), and `demo --settle`
// runs on it.
func init() { settledemo.Register() }
