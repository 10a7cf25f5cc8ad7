package sui

import (
	"encoding/binary"
	"errors"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The transfer a payer's wallet builds for a sui-transaction request, and
// its reading back: one shape per coin kind, so that what the payer signs
// can be stated in one amount (docs/sui.md, "The transfer").
//
// SUI:   inputs [H, amount, payTo]; SplitCoins(GasCoin, [Input 1]),
//        TransferObjects([NestedResult(0,0)], Input 2).
// Other: inputs [H, amount, payTo, coin…]; MergeCoins(Input 3, [Input 4…])
//        when there are several coins, SplitCoins(Input 3, [Input 1]),
//        TransferObjects([NestedResult(k,0)], Input 2).

// TransferSpec is what the wallet puts in the transaction.
type TransferSpec struct {
	Sender, PayTo Address
	Amount        uint64
	SUI           bool        // split from the gas coin; else from Coins
	Coins         []ObjectRef // the coins of the option's type, for a coin other than SUI
	GasPayment    []ObjectRef
	GasPrice      uint64
	GasBudget     uint64
	UntilEpoch    uint64
	H             atr.Hash
}

// ErrSpec is a spec that builds no payment: no coins for a coin other
// than SUI, or more than the protocol allows.
var ErrSpec = errors.New("sui: the transfer needs at least one coin of its type, and at most 256 coins and gas objects")

// BuildTransfer writes the transaction of spec.
func BuildTransfer(s TransferSpec) (*Tx, error) {
	if !s.SUI && len(s.Coins) == 0 || len(s.Coins) > MaxGasObjects || len(s.GasPayment) > MaxGasObjects {
		return nil, ErrSpec
	}
	var amount [8]byte
	binary.LittleEndian.PutUint64(amount[:], s.Amount)
	h := s.H
	t := &Tx{Inputs: []Input{{Kind: InputPure, Pure: h[:]}, {Kind: InputPure, Pure: amount[:]},
		{Kind: InputPure, Pure: append([]byte(nil), s.PayTo[:]...)}},
		Sender: s.Sender, GasPayment: s.GasPayment, GasOwner: s.Sender, GasPrice: s.GasPrice, GasBudget: s.GasBudget,
		Expiration: Expiration{Kind: ExpEpoch, Epoch: s.UntilEpoch}}
	coin := Argument{Kind: ArgGasCoin}
	if !s.SUI {
		for _, c := range s.Coins {
			t.Inputs = append(t.Inputs, Input{Kind: InputObject, ObjKind: ObjImmOrOwned, Ref: c})
		}
		coin = Argument{Kind: ArgInput, Index: 3}
		if len(s.Coins) > 1 {
			m := Command{Kind: CmdMergeCoins, Arg: coin}
			for i := 1; i < len(s.Coins); i++ {
				m.Args = append(m.Args, Argument{Kind: ArgInput, Index: uint16(3 + i)})
			}
			t.Commands = append(t.Commands, m)
		}
	}
	split := uint16(len(t.Commands))
	t.Commands = append(t.Commands,
		Command{Kind: CmdSplitCoins, Arg: coin, Args: []Argument{{Kind: ArgInput, Index: 1}}},
		Command{Kind: CmdTransferObjects, Args: []Argument{{Kind: ArgNestedResult, Index: split}}, Arg: Argument{Kind: ArgInput, Index: 2}})
	return t, nil
}

// Transfer is what a transaction of the wallet's shape moves.
type Transfer struct {
	FromGas bool // SUI split from the gas coin
	Coins   int  // coin objects merged and split, when not from gas
	Amount  uint64
	PayTo   Address
}

// ReadTransfer reads a transaction of exactly the shapes BuildTransfer
// writes (the H input at any place); false for any other.
func ReadTransfer(t *Tx) (Transfer, bool) {
	cmds := t.Commands
	var out Transfer
	pure := func(a Argument, n int) ([]byte, bool) {
		if a.Kind != ArgInput || int(a.Index) >= len(t.Inputs) {
			return nil, false
		}
		in := t.Inputs[a.Index]
		return in.Pure, in.Kind == InputPure && len(in.Pure) == n
	}
	owned := func(a Argument) bool {
		if a.Kind != ArgInput || int(a.Index) >= len(t.Inputs) {
			return false
		}
		in := t.Inputs[a.Index]
		return in.Kind == InputObject && in.ObjKind == ObjImmOrOwned
	}
	var coin Argument
	switch len(cmds) {
	case 3:
		m := cmds[0]
		if m.Kind != CmdMergeCoins || !owned(m.Arg) || len(m.Args) == 0 {
			return Transfer{}, false
		}
		seen := map[uint16]bool{m.Arg.Index: true}
		for _, a := range m.Args {
			if !owned(a) || seen[a.Index] {
				return Transfer{}, false
			}
			seen[a.Index] = true
		}
		coin, out.Coins = m.Arg, 1+len(m.Args)
		cmds = cmds[1:]
	case 2:
	default:
		return Transfer{}, false
	}
	split, move := cmds[0], cmds[1]
	if split.Kind != CmdSplitCoins || len(split.Args) != 1 || move.Kind != CmdTransferObjects || len(move.Args) != 1 {
		return Transfer{}, false
	}
	switch {
	case out.Coins > 0:
		if split.Arg != coin {
			return Transfer{}, false
		}
	case split.Arg.Kind == ArgGasCoin:
		out.FromGas = true
	case owned(split.Arg):
		out.Coins = 1
	default:
		return Transfer{}, false
	}
	amt, ok1 := pure(split.Args[0], 8)
	to, ok2 := pure(move.Arg, 32)
	at := uint16(len(t.Commands) - 2)
	r := move.Args[0]
	if !ok1 || !ok2 || !(r.Kind == ArgNestedResult && r.Index == at && r.Nested == 0 || r.Kind == ArgResult && r.Index == at) {
		return Transfer{}, false
	}
	out.Amount, out.PayTo = binary.LittleEndian.Uint64(amt), Address(to)
	return out, true
}

// Pays reports that t moves exactly the option's amount to its payTo, as
// SUI from the gas coin when the option's asset is SUI and from coin
// objects otherwise (whose type the chain checks: the bytes name objects,
// not their type).
func Pays(t *Tx, accepted *jsonv.Object) bool {
	tr, ok := ReadTransfer(t)
	if !ok {
		return false
	}
	amount, _ := u64Of(mpp.String(accepted, "amount"))
	payTo, _ := ParseAddress(mpp.String(accepted, "payTo"))
	return tr.Amount == amount && tr.PayTo == payTo && tr.FromGas == IsSUI(mpp.String(accepted, "asset"))
}
