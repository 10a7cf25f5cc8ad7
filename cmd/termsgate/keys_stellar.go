package main

// The Stellar local signer: --dev-key on a stellar: network signs with the
// vectors' published payer seed; --key-file on one reads a file holding an
// S… secret (or a 64-hex seed), which must not be readable by others.

import (
	"fmt"
	"os"
	"runtime"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	chainKeys["stellar"] = chainKey{
		dev: func(network string) (gate.Signer, error) {
			return signer.StellarFromSecret(signer.StellarDevSeed, network)
		},
		file: func(path, _ string, network string) (gate.Signer, error) {
			if err := privateFile(path); err != nil {
				return nil, err
			}
			return signer.StellarFromFile(path, network)
		},
		plain: true,
	}
}

// privateFile refuses a secret file that others can read: a Stellar secret
// file is not encrypted, so its permissions are its only protection.
func privateFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("the Stellar key file %s can be read by others (mode %04o): chmod 600 it", path, st.Mode().Perm())
	}
	return nil
}
