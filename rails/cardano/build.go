package cardano

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/termsgate/termsgate/rails/cbor"
)

// The transfer a payer's wallet builds for x402/exact/cardano: lovelace
// from the payer's own outputs to payTo, the change back to the payer, a
// fee the protocol parameters price, a TTL, and the auxiliary data whose
// hash the body commits to (key 7). The body's shape is the one common
// wallets write: {0: inputs, 1: outputs, 2: fee, 3: ttl, 7: aux hash},
// inputs as a plain array, outputs as [address, coin].

// UTxO is an unspent output the payer holds: its reference and its lovelace
// (outputs holding native assets are not spent by this wallet).
type UTxO struct {
	Input Input
	Coin  uint64
}

// Params are the protocol parameters a fee and a change output need.
type Params struct {
	MinFeeA          uint64 // lovelace per byte of the signed transaction
	MinFeeB          uint64 // lovelace per transaction
	CoinsPerUTxOByte uint64 // the minimum lovelace of an output, per byte (Babbage)
}

// Tip is a network's latest block: its height and slot.
type Tip struct {
	BlockHeight, Slot uint64
}

// Inputs reads what a payer's wallet needs from one network; every
// failure is an error (cardanorpc reads them from a Blockfrost-compatible API).
type Inputs interface {
	Network() string
	Tip(ctx context.Context) (Tip, error)
	Params(ctx context.Context) (Params, error)
	// UTxOs are the address's unspent lovelace-only outputs, at most limit.
	UTxOs(ctx context.Context, addr Address, limit int) ([]UTxO, error)
}

// TransferSpec is one transfer.
type TransferSpec struct {
	Inputs []Input
	PayTo  Address
	Amount uint64
	Change Address
	Rest   uint64 // the change's lovelace; no change output when 0
	Fee    uint64
	TTL    uint64
	Aux    []byte // the auxiliary data, as attached
}

// Body is the transfer's body.
func (s TransferSpec) Body() []byte {
	ah := auxHash(s.Aux)
	out := make([]byte, 0, 64+40*len(s.Inputs)+2*(len(s.PayTo)+12))
	out = cbor.AppendHead(out, cbor.Map, 5)
	out = cbor.AppendHead(cbor.AppendHead(out, cbor.Uint, KeyInputs), cbor.Array, uint64(len(s.Inputs)))
	for _, in := range s.Inputs {
		out = cbor.AppendHead(cbor.AppendBytes(cbor.AppendHead(out, cbor.Array, 2), in.TxID[:]), cbor.Uint, in.Index)
	}
	n := uint64(1)
	if s.Rest > 0 {
		n = 2
	}
	out = cbor.AppendHead(cbor.AppendHead(out, cbor.Uint, KeyOutputs), cbor.Array, n)
	out = cbor.AppendHead(cbor.AppendBytes(cbor.AppendHead(out, cbor.Array, 2), s.PayTo), cbor.Uint, s.Amount)
	if s.Rest > 0 {
		out = cbor.AppendHead(cbor.AppendBytes(cbor.AppendHead(out, cbor.Array, 2), s.Change), cbor.Uint, s.Rest)
	}
	out = cbor.AppendHead(cbor.AppendHead(out, cbor.Uint, KeyFee), cbor.Uint, s.Fee)
	out = cbor.AppendHead(cbor.AppendHead(out, cbor.Uint, KeyTTL), cbor.Uint, s.TTL)
	return cbor.AppendBytes(cbor.AppendHead(out, cbor.Uint, KeyAuxHash), ah[:])
}

// witnessSize is the size of a witness set of one vkey witness.
const witnessSize = 1 + 1 + 1 + 1 + 2 + 32 + 2 + 64

// Assemble is the whole transaction: [body, {0: [[vkey, signature]]}, true,
// aux]. body and aux are written as given.
func Assemble(body []byte, vkey, sig []byte, aux []byte) []byte {
	out := make([]byte, 0, 1+len(body)+witnessSize+1+len(aux))
	out = append(out, 0x84)
	out = append(out, body...)
	out = cbor.AppendHead(cbor.AppendHead(cbor.AppendHead(out, cbor.Map, 1), cbor.Uint, 0), cbor.Array, 1)
	out = cbor.AppendBytes(cbor.AppendBytes(cbor.AppendHead(out, cbor.Array, 2), vkey), sig)
	out = append(out, 0xf5)
	return append(out, aux...)
}

// SignBody signs a body: the Ed25519 signature of its Blake2b-256, the
// transaction id.
func SignBody(key ed25519.PrivateKey, body []byte) []byte {
	id := bodyID(body)
	return ed25519.Sign(key, id[:])
}

// MinFee is the ledger's linear fee of a transaction of size bytes.
func (p Params) MinFee(size int) uint64 { return p.MinFeeA*uint64(size) + p.MinFeeB }

// MinCoin is the least lovelace an output of size bytes may hold
// (Babbage: (160 + size) × coinsPerUTxOByte).
func (p Params) MinCoin(size int) uint64 { return (160 + uint64(size)) * p.CoinsPerUTxOByte }

// ErrFunds is a wallet whose outputs do not cover the payment.
var ErrFunds = errors.New("cardano: the payer's outputs do not cover the amount, the fee and a change output")

// Plan selects utxos in order until they pay amount, the fee of the signed
// transaction and a change output of at least the minimum (or exactly no
// change), and returns the spec to sign. The fee is the minimum for the
// transaction's size with one vkey witness.
func Plan(utxos []UTxO, p Params, payTo, change Address, amount, ttl uint64, aux []byte) (TransferSpec, error) {
	s := TransferSpec{PayTo: payTo, Amount: amount, Change: change, TTL: ttl, Aux: aux}
	var sum uint64
	minChange := p.MinCoin(len(cbor.Encode(cbor.A(cbor.B(change), cbor.U(1<<32)))))
	for _, u := range utxos {
		if sum+u.Coin < sum {
			return TransferSpec{}, errors.New("cardano: the outputs' lovelace overflows")
		}
		sum += u.Coin
		s.Inputs = append(s.Inputs, u.Input)
		if sum < amount {
			continue
		}
		if c, ok := settle(s, p, sum, true); ok && c.Rest >= minChange {
			return c, nil
		}
		if c, ok := settle(s, p, sum, false); ok && sum == amount+c.Fee {
			return c, nil
		}
	}
	return TransferSpec{}, fmt.Errorf("%w (%d lovelace in %d outputs for %d)", ErrFunds, sum, len(s.Inputs), amount)
}

// settle sets the spec's fee to the minimum of its signed size, with a
// change output of the rest when change is set; ok is false when the inputs'
// sum does not cover the amount and that fee.
func settle(s TransferSpec, p Params, sum uint64, change bool) (TransferSpec, bool) {
	s.Fee, s.Rest = 0, 0
	for range 6 {
		if sum < s.Amount || sum-s.Amount < s.Fee {
			return s, false
		}
		if change {
			s.Rest = sum - s.Amount - s.Fee
		}
		fee := p.MinFee(signedSize(s))
		if fee == s.Fee {
			return s, true
		}
		s.Fee = fee
	}
	return s, false
}

// signedSize is the size of the spec's transaction with one vkey witness.
func signedSize(s TransferSpec) int { return 1 + len(s.Body()) + witnessSize + 1 + len(s.Aux) }
