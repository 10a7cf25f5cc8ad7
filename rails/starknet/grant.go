package starknet

import (
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// What a starknet-snip12 request grants (rails.Summarizer), and what a
// Starknet payment shows (rails.Inspector).

var (
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

var errUnreadable = errors.New("starknet: the signing request is not one this pairing builds")

// Request is a starknet-snip12 request as read.
type Request struct {
	Network  string
	ChainID  Felt
	Account  Felt
	Message  *OutsideExecution
	Transfer Transfer
}

// ReadRequest reads a starknet-snip12 request: its network one the
// pairing pays on, its account a felt and its typed data as ReadTypedData
// reads it, with a Caller that is neither zero, ANY_CALLER nor the account.
func ReadRequest(req rails.Request) (Request, error) {
	if k, _ := req.GetString("kind"); k != KindSNIP12 || req.Len() != 4 {
		return Request{}, errUnreadable
	}
	network := mpp.String(req, "network")
	chain, ok := ChainID(network)
	account, okA := ParseFelt(mpp.String(req, "account"))
	if !ok || !okA {
		return Request{}, errUnreadable
	}
	tv, _ := req.Get("typedData")
	m, tr, err := ReadTypedData(tv, network)
	if err != nil {
		return Request{}, err
	}
	if m.Caller.IsZero() || m.Caller == anyCaller || m.Caller == account {
		return Request{}, errUnreadable
	}
	return Request{Network: network, ChainID: chain, Account: account, Message: m, Transfer: tr}, nil
}

// Summarize: the transfer's amount of the asset from the account to payTo,
// payable until Execute Before (and from Execute After when it is later
// than 1). The fee is the fee payer's.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	r, err := ReadRequest(req)
	if err != nil {
		return rails.Grant{}, err
	}
	return grantOf(r.Network, r.Account, r.Message, r.Transfer), nil
}

func grantOf(network string, account Felt, m *OutsideExecution, tr Transfer) rails.Grant {
	g := rails.Grant{Network: network, Asset: tr.Asset.String(), Decimals: rails.KnownDecimals(network, tr.Asset.String()),
		Amount: tr.Amount, Payer: account.String(), Payee: tr.PayTo.String(),
		PayableUntil: time.Unix(int64(m.ExecuteBefore[0]), 0).UTC()}
	if m.ExecuteAfter[0] > 1 {
		g.PayableFrom = time.Unix(int64(m.ExecuteAfter[0]), 0).UTC()
	}
	return g
}

func details(m *OutsideExecution, chain, account Felt, signature []Felt) *jsonv.Object {
	sig := make([]jsonv.Value, len(signature))
	for i, s := range signature {
		sig[i] = s.String()
	}
	call := m.Calls[0]
	id := IDDigest(account, call.Calldata[0], amountOf(call))
	return jsonv.Obj("caller", m.Caller.String(), "nonce", m.Nonce.String(),
		"executeAfter", strconv.FormatUint(m.ExecuteAfter[0], 10), "executeBefore", strconv.FormatUint(m.ExecuteBefore[0], 10),
		"call", jsonv.Obj("to", call.To.String(), "selector", call.Selector.String(), "entryPoint", "transfer"),
		"messageHash", m.MessageHash(chain, account).String(), "idDigest", "0x"+hex.EncodeToString(id[:]), "signature", sig)
}

// Inspect reads an x402/exact/starknet payment as Bound does, and states
// its grant through Summarize over the request it answers; the details
// name the caller, the nonce, the bounds, the SNIP-12 message hash the
// account's key signed and the signature as written (not verified: the
// account contract's scheme decides), and whether the call pays the option.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	s, _ := ReadSigned(payment)
	req := jsonv.Obj("kind", KindSNIP12, "network", s.Network, "account", s.From.String(), "typedData", s.TypedData)
	r, err := ReadRequest(req)
	if err != nil {
		return rails.Inspection{}, err
	}
	d := details(r.Message, r.ChainID, r.Account, s.Signature)
	d.Set("paysOption", paysOption(r.Transfer, s.Accepted))
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: grantOf(r.Network, r.Account, r.Message, r.Transfer), H: h,
		WhereH: "outsideExecution.typedData.message.Nonce: H's low 250 bits (the echoed extensions.legalContext gives the whole H)", Details: d}, nil
}

// paysOption reports a transfer of the option's amount of its asset to its
// payTo.
func paysOption(tr Transfer, accepted *jsonv.Object) bool {
	asset, _ := ParseFelt(mpp.String(accepted, "asset"))
	payTo, _ := ParseFelt(mpp.String(accepted, "payTo"))
	av, _ := accepted.Get("amount")
	amount, ok := parseAmount(av)
	return ok && tr.Asset == asset && tr.PayTo == payTo && tr.Amount.Cmp(amount) == 0
}

// InspectTypedData reads bare SNIP-12 typed data of SNIP-9 v2's
// OutsideExecution of one transfer, as a wallet is asked to sign it, and
// states what it moves. The typed data names no account (the signer's
// account is hashed in when signing), so payer is null and the message
// hash is not given; the nonce is where H's low 250 bits would sit.
func InspectTypedData(td *jsonv.Object) (rails.Inspection, error) {
	return rails.Guard("starknet.InspectTypedData", "typed data", func() (rails.Inspection, error) {
		domain, _ := td.GetObject("domain")
		cv, _ := domain.GetString("chainId")
		chain, ok := chainIDValue(cv)
		if !ok {
			return rails.Inspection{}, errTypedData
		}
		network := ""
		for _, n := range Networks {
			if c, _ := ChainID(n); c == chain {
				network = n
			}
		}
		m, tr, err := ReadTypedData(td, network)
		if err != nil {
			return rails.Inspection{}, err
		}
		g := grantOf(network, Felt{}, m, tr)
		g.Payer = ""
		d := jsonv.Obj("caller", m.Caller.String(), "nonce", m.Nonce.String(),
			"executeAfter", strconv.FormatUint(m.ExecuteAfter[0], 10), "executeBefore", strconv.FormatUint(m.ExecuteBefore[0], 10))
		return rails.Inspection{Kind: "starknet-outside-execution", Grant: g, Details: d,
			WhereH: "message.Nonce: for x402/exact/starknet, H's low 250 bits; the typed data alone cannot say the whole H"}, nil
	})
}

func amountOf(c Call) *big.Int {
	a, _ := joinU256(c.Calldata[1], c.Calldata[2])
	return a
}
