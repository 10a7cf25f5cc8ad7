package evm_test

import (
	"testing"

	"github.com/termsgate/termsgate/internal/cost"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
)

// FuzzParseReceipt: a transaction receipt and its logs as a node might
// answer them: no input panics the readers or costs more than the fuzz
// bound.
func FuzzParseReceipt(f *testing.F) {
	for _, s := range []string{
		`{"status":"0x1","blockNumber":"0x10","transactionHash":"0x` + zeros64 + `","logs":[{"address":"0x0","topics":["0x00"],"data":"0x"}]}`,
		`{"status":"0x0","logs":[]}`, `[]`, `{"logs":[1,{"topics":[1]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		cost.Bound(t, len(raw), func() {
			_, _ = evm.ParseReceipt(v)
			_ = evm.ParseLog(v)
		})
	})
}

const zeros64 = "0000000000000000000000000000000000000000000000000000000000000000"

// FuzzTypedDataHashes: EIP-712 hashing of any typed data: no panic, within
// the fuzz bound, and the same answer twice.
func FuzzTypedDataHashes(f *testing.F) {
	for _, s := range []string{
		`{"types":{"EIP712Domain":[{"name":"name","type":"string"}],"M":[{"name":"v","type":"uint256"},{"name":"b","type":"bytes32[]"}]},"primaryType":"M","domain":{"name":"x"},"message":{"v":"1","b":["0x` + zeros64 + `"]}}`,
		`{"types":{"EIP712Domain":[],"A":[{"name":"a","type":"A[]"}]},"primaryType":"A","domain":{},"message":{"a":[]}}`,
		`{"types":{"EIP712Domain":[],"A":[{"name":"a","type":"int8"},{"name":"s","type":"string"},{"name":"t","type":"address"}]},"primaryType":"A","domain":{},"message":{"a":"-128","s":"x","t":"0x0000000000000000000000000000000000000000"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonv.Parse(raw)
		if err != nil {
			return
		}
		td, ok := jsonv.AsObject(v)
		if !ok {
			return
		}
		cost.Bound(t, len(raw), func() {
			a, errA := evm.TypedDataHashes(td)
			b, errB := evm.TypedDataHashes(td)
			if (errA == nil) != (errB == nil) || errA == nil && a != b {
				t.Fatalf("two answers for %s", raw)
			}
		})
	})
}

// readBacker is what a payment's readers are: the read-back, the seller's
// reference, and inspect.
type readBacker interface {
	Bound(jsonv.Value) (string, error)
	Reference(jsonv.Value) (*jsonv.Object, error)
	Inspect(jsonv.Value) (rails.Inspection, error)
}

// readBackAgrees runs each pairing's readers on v: none may panic, and
// inspect reads a payment exactly when Bound does, with Bound's H.
func readBackAgrees(t *testing.T, v jsonv.Value, pairings ...readBacker) {
	t.Helper()
	for _, p := range pairings {
		h, errB := p.Bound(v)
		_, _ = p.Reference(v)
		in, errI := p.Inspect(v)
		if (errB == nil) != (errI == nil) || errB == nil && in.H != h {
			t.Fatalf("inspect %v (%v), bound %s (%v)", in.H, errI, h, errB)
		}
		if errI == nil {
			_ = in.JSON()
		}
	}
}
