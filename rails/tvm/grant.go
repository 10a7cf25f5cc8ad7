package tvm

import (
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

var (
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

var errUnreadable = errors.New("tvm: the signing request is not one this pairing builds")

// Sent is what a W5 request sends: the one message to the payer's Jetton
// wallet and the Jetton transfer it carries.
type Sent struct {
	WalletID, ValidUntil, Seqno uint64
	JettonWallet                *Address
	Attach, Amount, Forward     *big.Int
	PayTo, Response             *Address
	H                           string // "" when the forward payload is not an LCP comment
}

// ReadRequest reads an unsigned (130 bits) or signed (642 bits) W5
// internal_signed request with exactly one send action of a Jetton
// transfer, as Build writes it; anything else is an error.
func ReadRequest(c *Cell) (*Sent, error) {
	if c.bits != 130 && c.bits != 130+512 || len(c.refs) != 1 {
		return nil, errUnreadable
	}
	s := c.Parse()
	op, _ := s.Uint(32)
	id, _ := s.Uint(32)
	vu, _ := s.Uint(32)
	seq, _ := s.Uint(32)
	list, err := s.MaybeRef()
	ext, _ := s.Bit()
	if op != OpInternalSigned || err != nil || list == nil || ext {
		return nil, errUnreadable
	}
	if list.bits != 40 || len(list.refs) != 2 || list.refs[0].bits != 0 || len(list.refs[0].refs) != 0 {
		return nil, errUnreadable
	}
	ls := list.Parse()
	if op, _ := ls.Uint(32); op != OpSendMsg {
		return nil, errUnreadable
	}
	out := &Sent{WalletID: id, ValidUntil: vu, Seqno: seq}
	ms := list.refs[1].Parse()
	if tag, err := ms.Uint(4); err != nil || tag&0b1000 != 0 {
		return nil, errUnreadable
	}
	if _, err := ms.MaybeAddress(); err != nil {
		return nil, errUnreadable
	}
	if out.JettonWallet, err = ms.Address(); err != nil {
		return nil, errUnreadable
	}
	if out.Attach, err = ms.Coins(); err != nil {
		return nil, errUnreadable
	}
	dest, body, ok := readInternal(list.refs[1])
	if !ok || *dest != *out.JettonWallet {
		return nil, errUnreadable
	}
	bs := body.Parse()
	bs.Uint(32)
	bs.Uint(64)
	if out.Amount, err = bs.Coins(); err != nil {
		return nil, errUnreadable
	}
	if out.PayTo, err = bs.Address(); err != nil {
		return nil, errUnreadable
	}
	if out.Response, err = bs.MaybeAddress(); err != nil {
		return nil, errUnreadable
	}
	bs.MaybeRef()
	if out.Forward, err = bs.Coins(); err != nil {
		return nil, errUnreadable
	}
	payload, err := JettonPayload(body)
	if err != nil {
		return nil, errUnreadable
	}
	if h, ok := CommentHash(payload); ok {
		out.H = h.String()
	}
	return out, nil
}

func grantOf(s *Sent, network, wallet string) rails.Grant {
	// The signed request names the payer's Jetton wallet, not the Jetton
	// master the seller's option names: the grant states what is signed.
	return rails.Grant{Network: network, Asset: s.JettonWallet.String(), Decimals: -1,
		Amount: s.Amount, Payer: wallet, Payee: s.PayTo.String(), PayableUntil: time.Unix(int64(s.ValidUntil), 0).UTC()}
}

// Summarize: the Jetton transfer the request's one action sends, read from
// the cell whose hash is the one signed: amount to payTo out of the payer's
// Jetton wallet, payable until validUntil. The TON attached for fees is
// not in the grant; Inspect states it.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	network, wallet, c, err := RequestCell(req)
	if err != nil {
		return rails.Grant{}, err
	}
	s, err := ReadRequest(c)
	if err != nil {
		return rails.Grant{}, err
	}
	return grantOf(s, network, wallet.String()), nil
}

func details(s *Sent, signature []byte) *jsonv.Object {
	d := jsonv.Obj("jettonWallet", s.JettonWallet.String(), "walletId", strconv.FormatUint(s.WalletID, 10),
		"seqno", strconv.FormatUint(s.Seqno, 10), "validUntil", strconv.FormatUint(s.ValidUntil, 10),
		"attachNanotons", s.Attach.String(), "forwardTonAmount", s.Forward.String())
	if s.Response != nil {
		d.Set("responseDestination", s.Response.String())
	}
	if signature != nil {
		d.Set("signature", hex.EncodeToString(signature))
	}
	return d
}

// Inspect reads a payment as Bound does and states its transfer through
// Summarize over the very request cell the wallet signed (rebuilt as a
// ton-w5 request); the details hold the wallet's id, seqno, the TON
// attached and the signature.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	c, accepted, err := carried(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	o, _ := jsonv.AsObject(payment)
	pl, _ := o.GetObject("payload")
	boc, _ := pl.GetString("settlementBoc")
	op, err := Open(boc)
	if err != nil {
		return rails.Inspection{}, err
	}
	unsigned, sig, wallet := op.Request, op.Signature, op.Wallet
	h := unsigned.Hash()
	network, _ := accepted.GetString("network")
	req := jsonv.Obj("kind", KindW5, "network", network, "wallet", wallet.String(), "hash", "0x"+hex.EncodeToString(h[:]),
		"request", EncodeBoC64(unsigned))
	g, err := p.Summarize(req)
	if err != nil {
		return rails.Inspection{}, err
	}
	d := details(op.Sent, sig)
	d.Set("requestHash", hex.EncodeToString(h[:]))
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: g, H: c.H.String(),
		WhereH:  "the Jetton transfer's forward_payload (a reference): a TEP-74 text comment, 32 zero bits and the LCP string \"lcp:sha256:\" + H",
		Details: d}, nil
}

func mustBytes(s *Slice, n int) []byte { b, _ := s.Bytes(n); return b }

// Opened is a settlement BoC taken apart: the wallet it is sent to, the
// unsigned request cell (whose hash the key signed) and the signature.
type Opened struct {
	Wallet    *Address
	Request   *Cell
	Signature []byte
	Sent      *Sent
}

// Open takes a settlement BoC apart, as a wallet contract would before
// checking the signature: the message to the wallet, its signed request
// (130 bits, one reference, then 512 bits of signature), what it sends.
func Open(settlementBoc string) (*Opened, error) {
	root, err := DecodeBoC64(settlementBoc)
	if err != nil {
		return nil, rails.Refuse(err.Error())
	}
	wallet, body, ok := readInternal(root)
	if !ok || body.bits != 130+512 || len(body.refs) != 1 {
		return nil, rails.Refuse(CodeNotW5Signed)
	}
	bs := body.Parse()
	unsigned, err := NewBuilder().Bytes(mustBytes(bs, 16)).Uint(mustUint(bs, 2), 2).Ref(body.refs[0]).End()
	if err != nil {
		return nil, rails.Refuse(CodeNotW5Signed)
	}
	sent, err := ReadRequest(unsigned)
	if err != nil {
		return nil, rails.Refuse(CodeNotW5Signed)
	}
	return &Opened{Wallet: wallet, Request: unsigned, Signature: mustBytes(bs, 64), Sent: sent}, nil
}

func mustUint(s *Slice, n int) uint64 { v, _ := s.Uint(n); return v }
