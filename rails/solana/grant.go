package solana

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

var errUnreadable = errors.New("solana: the request is not a message this pairing builds")

// transferChecked is a message's one TransferChecked (Token or Token-2022,
// data 0x0c ‖ amount u64 ‖ decimals, accounts source, mint, destination,
// owner): ok false when there is not exactly one, or another token
// instruction beside it.
func transferChecked(m *Tx) (amount uint64, decimals int, mint, destination, owner Key, ok bool) {
	n := 0
	for _, ix := range m.Instructions {
		p, okP := m.ProgramOf(ix)
		if !okP {
			return 0, 0, Key{}, Key{}, Key{}, false
		}
		if p != TokenProgram && p != Token2022Program {
			continue
		}
		n++
		if len(ix.Data) != 10 || ix.Data[0] != 12 || len(ix.Accounts) != 4 {
			return 0, 0, Key{}, Key{}, Key{}, false
		}
		for _, a := range ix.Accounts {
			if int(a) >= len(m.Keys) {
				return 0, 0, Key{}, Key{}, Key{}, false
			}
		}
		amount, decimals = binary.LittleEndian.Uint64(ix.Data[1:9]), int(ix.Data[9])
		mint, destination, owner = m.Keys[ix.Accounts[1]], m.Keys[ix.Accounts[2]], m.Keys[ix.Accounts[3]]
	}
	return amount, decimals, mint, destination, owner, n == 1
}

// Summarize reads a solana-message request: the message's one
// TransferChecked moves amount of the mint from the owner to the
// destination token account; the message can move nothing else of the
// payer's (no System transfer, no other token instruction) or it is
// unreadable. The blockhash, not a clock, bounds how long it stays
// payable; the request's validUntil states that bound
// (BlockhashPayableSeconds after the build), and without it the grant has
// no deadline, which a spend policy refuses.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	if k, _ := req.GetString("kind"); k != "solana-message" {
		return rails.Grant{}, errUnreadable
	}
	network, _ := req.GetString("network")
	text, _ := req.GetString("message")
	raw, ok := hexBytes(strings.TrimPrefix(text, "0x"))
	if !IsNetwork(network) || !strings.HasPrefix(text, "0x") || !ok {
		return rails.Grant{}, errUnreadable
	}
	m, ok := DecodeMessage(raw)
	if !ok || m.LookupTables != 0 {
		return rails.Grant{}, errUnreadable
	}
	for _, ix := range m.Instructions {
		if p, _ := m.ProgramOf(ix); p == SystemProgram {
			return rails.Grant{}, errUnreadable
		}
	}
	amount, decimals, mint, destination, owner, ok := transferChecked(m)
	if !ok {
		return rails.Grant{}, errUnreadable
	}
	g := rails.Grant{Network: network, Asset: mint.String(), Decimals: decimals, Amount: new(big.Int).SetUint64(amount),
		Payer: owner.String(), Payee: destination.String()}
	if v, has := req.Get("validUntil"); has {
		u, ok := jsonv.AsSafeInt(v)
		if !ok || u <= 0 {
			return rails.Grant{}, errUnreadable
		}
		g.PayableUntil = time.Unix(u, 0).UTC()
	}
	return g, nil
}

// Inspect reads a payment: the transaction's message is read by Summarize,
// as the spend policy read it before signing, so the two cannot disagree;
// H and where it sits, the fee payer and the blockhash beside it. The payee
// is the destination token account, as in the summary. No signature is
// checked.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	accepted, tx, err := p.presentedTx(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	h, err := boundOf(accepted, tx)
	if err != nil {
		return rails.Inspection{}, err
	}
	network, _ := accepted.GetString("network")
	g, err := p.Summarize(jsonv.Obj("kind", "solana-message", "network", network, "message", "0x"+hex.EncodeToString(tx.Message)))
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: g, H: h,
		WhereH: "the transaction's one Memo instruction: \"lcp:sha256:\" + H", Details: reference(network, tx)}, nil
}

// reference is ReferenceOf without the network the grant already states:
// the transaction's signature, digest, fee payer and blockhash (or durable
// nonce).
func reference(network string, tx *Tx) *jsonv.Object {
	out := jsonv.Obj()
	for _, m := range ReferenceOf(network, tx).Members() {
		if m.Key != "network" {
			out.Set(m.Key, m.Value)
		}
	}
	return out
}
