package mpp

import (
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
)

// Default chains where a challenge names none: a Tempo charge pays on Tempo
// Moderato (the Tempo charge draft's default), a v1 Tempo session on 4217
// (the Tempo session draft's v1 default).
const (
	TempoChargeDefaultChain  = 42431
	TempoSessionDefaultChain = 4217
)

// Network is the CAIP-2 network a challenge pays on (checked as placed), as
// its method defines it, with the method's default chain. A method whose
// challenge names no network is mpp/network-unnamed. For the rails
// termsgate builds no pairing for, only the network member is read
// (network_rails.go).
func Network(v jsonv.Value) (string, error) {
	c, err := readChallenge(v, true, nil, func(intentMethod string) bool {
		_, served := methodChecks[intentMethod]
		_, named := railNetworks[intentMethod]
		return served || named
	})
	if err != nil {
		return "", err
	}
	if read, ok := railNetworks[c.Intent+"/"+c.Method]; ok {
		return read(c.Details)
	}
	if c, err = CheckChallenge(v, true); err != nil {
		return "", err
	}
	switch c.Intent + "/" + c.Method {
	case "charge/evm", "charge/tempo":
		return eip155(ChargeChain(c)), nil
	case "session/tempo", "subscription/tempo":
		chain, err := SessionChain(c)
		if err != nil {
			return "", err
		}
		return eip155(chain), nil
	case "session/evm":
		chain, _ := ChainIDOf(c.Details, "chainId") // required by its check
		return eip155(chain), nil
	case "charge/usdc":
		// Only the EVM profile names one network; a Gateway transfer runs
		// from any of its accepted sources (evm.MPPGateway chooses by them).
		if kind, p, err := USDCProfile(c.Details); err == nil && kind == "evm" {
			chain, _ := ChainIDOf(p, "chainId")
			return eip155(chain), nil
		} else if err == nil && kind == "solana" {
			return SolanaChargeNetwork(p, true)
		} else if err == nil && kind == "stacks" {
			return StacksUSDCNetwork(c.Request, p)
		}
	}
	return "", refuse(CodeNetworkUnnamed)
}

func eip155(chain int64) string { return "eip155:" + strconv.FormatInt(chain, 10) }

// ChargeChain is a charge's methodDetails.chainId, or the Tempo default. (An
// EVM charge's chainId is required by its check, so the default is never
// used for one.)
func ChargeChain(c *Checked) int64 {
	if n, ok := ChainIDOf(c.Details, "chainId"); ok {
		return n
	}
	return TempoChargeDefaultChain
}

// SessionChain is a Tempo session's or subscription's chain: chainId, or
// for a session that names none, the v1 default.
func SessionChain(c *Checked) (int64, error) {
	if n, ok := ChainIDOf(c.Details, "chainId"); ok {
		return n, nil
	}
	if c.Intent == "session" && !c.Details.Has("chainId") {
		return TempoSessionDefaultChain, nil
	}
	return 0, refuse(CodeChainIDRequired)
}
