package solana

import (
	"encoding/binary"
	"math/big"
	"strings"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// What an x402/batch-settlement/solana signature grants (rails.Summarizer,
// rails.WithinSummarizer) and what one of its payments shows
// (rails.Inspector).

// openRead is what a channel message's instructions do: its one channel
// instruction, and nothing else than the compute budget and memos beside
// it.
type openRead struct {
	msg     *Tx
	ix      ChannelIx
	network string
}

// readChannelMessage reads a solana-message request of this pairing: a
// network, a v0 message with no lookup tables whose top-level instructions
// are the compute budget, memos and exactly one channel instruction (any
// other instruction could move something the summary does not state).
func readChannelMessage(req *jsonv.Object) (openRead, bool) {
	if k, _ := req.GetString("kind"); k != "solana-message" {
		return openRead{}, false
	}
	network, _ := req.GetString("network")
	m, ok := requestMessage(req)
	if !ok || !IsNetwork(network) {
		return openRead{}, false
	}
	msg, ok := DecodeMessage(m)
	if !ok || msg.LookupTables != 0 {
		return openRead{}, false
	}
	for _, ix := range msg.Instructions {
		p, ok := msg.ProgramOf(ix)
		if !ok || p != ComputeBudget && p != MemoV3 && p != MemoV4 && p != ChannelProgram {
			return openRead{}, false
		}
		for _, a := range ix.Accounts {
			if int(a) >= len(msg.Keys) {
				return openRead{}, false
			}
		}
	}
	ix, err := ChannelInstruction(msg)
	if err != nil {
		return openRead{}, false
	}
	return openRead{msg: msg, ix: ix, network: network}, true
}

// requestMessage is a request's message: 0x hex of 1 to MaxWire bytes.
func requestMessage(req *jsonv.Object) ([]byte, bool) {
	text, _ := req.GetString("message")
	raw, ok := hexBytes(strings.TrimPrefix(text, "0x"))
	return raw, ok && strings.HasPrefix(text, "0x") && len(raw) > 0 && len(raw) <= MaxWire
}

// readVoucherRequest reads an ed25519-raw voucher request: its network
// and its voucher message.
func readVoucherRequest(req *jsonv.Object) (network string, channel Key, cumulative uint64, ok bool) {
	if k, _ := req.GetString("kind"); k != "ed25519-raw" {
		return "", Key{}, 0, false
	}
	network, _ = req.GetString("network")
	m, ok := requestMessage(req)
	if !ok || !IsNetwork(network) {
		return "", Key{}, 0, false
	}
	channel, cumulative, expires, ok := ParseVoucher(m)
	return network, channel, cumulative, ok && expires == 0
}

// batchRequests is a batch request's entries.
func batchRequests(req rails.Request) ([]*jsonv.Object, bool) {
	if k, _ := req.GetString("kind"); k != rails.KindBatch {
		return nil, false
	}
	rv, _ := req.Get("requests")
	list, _ := jsonv.AsArray(rv)
	out := make([]*jsonv.Object, 0, len(list))
	for _, r := range list {
		o, ok := jsonv.AsObject(r)
		if !ok {
			return nil, false
		}
		out = append(out, o)
	}
	return out, len(out) > 0
}

// Summarize reads a batch request this pairing builds. The opening (the
// open transaction's message, then the first voucher) grants the whole
// deposit: the open instruction moves it from the payer's token account
// into the channel, whatever the vouchers say; the payee is the channel's
// recipient; it stays payable until the request's validUntil (the
// blockhash's lifetime, OpeningPayableSeconds after the build; without it
// the grant has no deadline, which a spend policy refuses). A voucher alone grants its cumulative amount in the channel it
// names, to that channel, of an asset only the opening names
// (SummarizeWithin reads it); a close moves nothing to the seller.
func (Batch) Summarize(req rails.Request) (rails.Grant, error) {
	list, ok := batchRequests(req)
	if !ok {
		return rails.Grant{}, errUnreadable
	}
	switch len(list) {
	case 2:
		o, ok := readChannelMessage(list[0])
		network, channel, _, okV := readVoucherRequest(list[1])
		if !ok || !okV || o.ix.Kind != "open" || len(o.ix.Data) != 67 || network != o.network || channel != o.ix.Channel {
			return rails.Grant{}, errUnreadable
		}
		g := openGrant(o)
		if v, has := list[0].Get("validUntil"); has {
			u, ok := jsonv.AsSafeInt(v)
			if !ok || u <= 0 {
				return rails.Grant{}, errUnreadable
			}
			g.PayableUntil = time.Unix(u, 0).UTC()
		}
		return g, nil
	case 1:
		if network, channel, cumulative, ok := readVoucherRequest(list[0]); ok {
			return rails.Grant{Network: network, Asset: "", Decimals: -1, Amount: new(big.Int).SetUint64(cumulative),
				Payee: channel.String()}, nil
		}
		if o, ok := readChannelMessage(list[0]); ok && o.ix.Kind == "request_close" {
			return rails.Grant{Network: o.network, Decimals: -1, Amount: new(big.Int), Payer: o.msg.Keys[closePayer(o.msg)].String(),
				Payee: o.ix.Channel.String()}, nil
		}
	}
	return rails.Grant{}, errUnreadable
}

// closePayer is the index of a request_close's payer account.
func closePayer(m *Tx) uint8 {
	for _, ix := range m.Instructions {
		if k, _ := m.ProgramOf(ix); k == ChannelProgram {
			return ix.Accounts[0]
		}
	}
	return 0
}

// openGrant states an open instruction: the deposit (bytes 9..17 of its
// data) of the mint (account 3) from the payer (account 0) to the
// recipient named in its data.
func openGrant(o openRead) rails.Grant {
	var ix Instruction
	for _, i := range o.msg.Instructions {
		if k, _ := o.msg.ProgramOf(i); k == ChannelProgram {
			ix = i
		}
	}
	var recipient Key
	copy(recipient[:], o.ix.Data[33:65])
	return rails.Grant{
		Network: o.network, Asset: o.msg.Keys[ix.Accounts[3]].String(), Decimals: -1,
		Amount: new(big.Int).SetUint64(binary.LittleEndian.Uint64(o.ix.Data[9:17])),
		Payer:  o.msg.Keys[ix.Accounts[0]].String(), Payee: recipient.String(),
	}
}

var _ rails.WithinSummarizer = Batch{}

// SummarizeWithin states what a voucher or a close signed in the channel
// opening opened grants: the channel's token, to its receiver, from its
// payer, up to the voucher's cumulative amount (the close's grant is zero:
// it asks for the channel to be closed at what the vouchers already
// allow). The request must name the channel the opening names, on its
// network.
func (p Batch) SummarizeWithin(req rails.Request, opening *jsonv.Object) (rails.Grant, error) {
	g, err := p.Summarize(req)
	if err != nil {
		return rails.Grant{}, err
	}
	list, _ := batchRequests(req)
	ref, err := p.ChannelRef(opening)
	if err != nil || len(list) != 1 || g.Network != ref.Network || g.Payee != ref.Channel {
		return rails.Grant{}, errUnreadable
	}
	_, _, c, _, _, _ := p.channelOf(opening)
	if g.Payer != "" && g.Payer != c.Payer.String() {
		return rails.Grant{}, errUnreadable
	}
	g.Asset, g.Payer, g.Payee = c.Token.String(), c.Payer.String(), c.Receiver.String()
	return g, nil
}

// Inspect reads a payment of this pairing (an opening, a top-up, a voucher
// or a close) without any signature check: the channel's payer, receiver
// and token, H where the payment carries it (the opening's memo), and what
// it moves: an opening its deposit, a top-up what it adds, a voucher its
// cumulative maxClaimableAmount, a close nothing.
func (p Batch) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	kind, err := p.ChannelKind(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	accepted, payload, c, channel, tx, err := p.channelOf(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	network, _ := accepted.GetString("network")
	in := rails.Inspection{Pairing: BatchID, Kind: "channel-" + string(kind),
		Grant: rails.Grant{Network: network, Asset: c.Token.String(), Decimals: rails.KnownDecimals(network, c.Token.String()),
			Payer: c.Payer.String(), Payee: c.Receiver.String()},
		WhereH: "none: the payment names the channel, whose opening's one Memo instruction carried H"}
	if kind == rails.ChannelOpen {
		h, err := p.Bound(payment)
		if err != nil {
			return rails.Inspection{}, err
		}
		in.H, in.WhereH = h, "the opening transaction's one Memo instruction: \"lcp:sha256:\" + H"
	}
	details := jsonv.Obj("channel", channel.String(), "payerAuthorizer", c.PayerAuthorizer.String())
	if voucher, ok := payload.GetObject("voucher"); ok {
		if s, ok := voucher.GetString("maxClaimableAmount"); ok && rails.IsDecimal(s) {
			details.Set("maxClaimableAmount", s)
			in.Grant.Amount, _ = new(big.Int).SetString(s, 10)
		}
	}
	if tx != nil {
		ix, _ := ChannelInstruction(tx) // channelOf read it
		switch ix.Kind {
		case "open":
			if len(ix.Data) != 67 {
				return rails.Inspection{}, rails.Refuse(CodeChannelIx)
			}
			in.Grant.Amount = new(big.Int).SetUint64(binary.LittleEndian.Uint64(ix.Data[9:17]))
			details.Set("deposit", in.Grant.Amount.String())
		case "top_up":
			if len(ix.Data) >= 9 {
				in.Grant.Amount = new(big.Int).SetUint64(binary.LittleEndian.Uint64(ix.Data[1:9]))
				details.Set("topUp", in.Grant.Amount.String())
			}
		case "request_close":
			in.Grant.Amount = new(big.Int)
		}
		for _, m := range reference(network, tx).Members() {
			details.Set(m.Key, m.Value)
		}
	}
	in.Details = details
	return in, nil
}
