package evm

// Inspect of the MPP EVM pairings of docs/mpp-evm.md: what each credential
// grants and where H sits, read only from what Bound (or, for the payments
// with no signed place, the shared challenge steps) accepted.

import (
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Inspect states what a signed mpp/charge/usdc/evm credential grants: the
// EIP-3009 transfer of its payload, whose nonce is usdc's derivation over
// the challenge.
func (p MPPUSDC) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	e, _ := mpp.Echoed(payment, MPPUSDCID)
	g, err := mppTransferGrant(e, "eip155:"+strconv.FormatInt(usdcChain(e.Checked), 10))
	if err != nil {
		return rails.Inspection{}, err
	}
	rh, _ := mpp.USDCRequestHash(mpp.String(e.Challenge, "request"))
	return rails.Inspection{
		Pairing: MPPUSDCID, Kind: "credential", H: h, Grant: g,
		WhereH: "challenge.id (base64url of H, a dot, the position) and challenge.opaque.legalContext; payload.nonce is keccak256 of the JCS of {id, intent, method, realm, requestHash}",
		Details: jsonv.Obj("nonce", mpp.String(e.Payload, "nonce"), "challengeId", mpp.String(e.Challenge, "id"),
			"requestHash", atr.Hash(rh).String()),
	}, nil
}

// mppTransferGrant reads an authorization payload {from, to, value,
// validAfter, validBefore} (mpp/credential-malformed when one does not
// read).
func mppTransferGrant(e *mpp.Bound, network string) (rails.Grant, error) {
	from, to, value := mpp.String(e.Payload, "from"), mpp.String(e.Payload, "to"), mpp.String(e.Payload, "value")
	after, before := mpp.String(e.Payload, "validAfter"), mpp.String(e.Payload, "validBefore")
	asset := mpp.String(e.Checked.Request, "currency")
	if !IsAddress(from) || !IsAddress(to) || !IsUint256Decimal(value) || !IsUint256Decimal(after) || !IsUint256Decimal(before) {
		return rails.Grant{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	amount, _ := new(big.Int).SetString(value, 10)
	return rails.Grant{Network: network, Asset: asset, Decimals: rails.KnownDecimals(network, asset), Amount: amount,
		Payer: from, Payee: to, PayableFrom: UnixTime(after), PayableUntil: UnixTime(before)}, nil
}

// Inspect states what a signed mpp/charge/evm/permit2 credential grants:
// the permitted amounts of the currency, moved to the transfer details'
// recipients (the first is the payee, the rest are splits) until the
// deadline; the witness carries keccak256(id ‖ realm).
func (p MPPPermit2) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	h, err := p.Bound(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	e, _ := mpp.Echoed(payment, MPPPermit2ID)
	pp, err := readPermit2Payload(e.Payload)
	if err != nil {
		return rails.Inspection{}, err
	}
	first, _ := jsonv.AsObject(pp.details[0])
	network := "eip155:" + strconv.FormatInt(mpp.ChargeChain(e.Checked), 10)
	asset := mpp.String(e.Checked.Request, "currency")
	payer, _ := mpp.SourceAddress(mpp.String(e.Credential, "source"))
	w, _ := e.Payload.GetObject("witness")
	return rails.Inspection{
		Pairing: MPPPermit2ID, Kind: "credential", H: h,
		Grant: rails.Grant{Network: network, Asset: asset, Decimals: rails.KnownDecimals(network, asset), Amount: pp.total,
			Payer: payer, Payee: mpp.String(first, "to"), PayableUntil: UnixTime(pp.deadline)},
		WhereH:  "challenge.id (base64url of H, a dot, the position) and challenge.opaque.legalContext; payload.witness.challengeHash is keccak256(id ‖ realm)",
		Details: jsonv.Obj("challengeHash", mpp.String(w, "challengeHash"), "nonce", mpp.String(pp.permit, "nonce"), "transferDetails", jsonv.Clone(pp.detailsValue)),
	}, nil
}

// permit2Payload is a permit2 credential payload read as far as Bound and
// Inspect both need: the permit, its summed permitted amounts, its deadline
// and the transfer details.
type permit2Payload struct {
	permit       *jsonv.Object
	detailsValue jsonv.Value
	details      []jsonv.Value
	deadline     string
	total        *big.Int
}

// readPermit2Payload reads a permit2 payload, refusing
// (mpp/credential-malformed) one that names no permitted amount, no
// transfer detail or no uint256 deadline: such a payload signs nothing a
// seller could submit, so neither Bound nor Inspect accepts it.
func readPermit2Payload(payload *jsonv.Object) (permit2Payload, error) {
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	permit, _ := payload.GetObject("permit")
	v, _ := permit.Get("permitted")
	permitted, _ := jsonv.AsArray(v)
	dv, _ := payload.Get("transferDetails")
	details, _ := jsonv.AsArray(dv)
	deadline := mpp.String(permit, "deadline")
	if len(permitted) == 0 || len(details) == 0 || !IsUint256Decimal(deadline) {
		return permit2Payload{}, malformed
	}
	total := new(big.Int)
	for _, x := range permitted {
		o, _ := jsonv.AsObject(x)
		n, ok := mpp.Uint256(mpp.String(o, "amount"))
		if !ok {
			return permit2Payload{}, malformed
		}
		total.Add(total, n)
	}
	return permit2Payload{permit: permit, detailsValue: dv, details: details, deadline: deadline, total: total}, nil
}

const noSignedPlaceWhere = "challenge.id (base64url of H, a dot, the position) and challenge.opaque.legalContext only: the payment carries nothing of H, so it is no public proof (the agreement payment made first carries H)"

// Inspect states what an mpp/charge/evm/transaction credential grants: the
// signed transaction's transfer, from its sender. H is the echoed
// challenge's; nothing signed carries it.
func (MPPTransaction) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	e, err := mpp.Echoed(payment, MPPTransactionID)
	if err != nil {
		return rails.Inspection{}, err
	}
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	wire, ok := mpp.HexBytes(mpp.String(e.Payload, "signature"), 1, maxSignedTransaction)
	if !ok {
		return rails.Inspection{}, malformed
	}
	tx, err := DecodeEIP1559(wire)
	if err != nil || tx.To == nil || len(tx.Data) != 68 || string(tx.Data[:4]) != string(transferSelector) {
		return rails.Inspection{}, malformed
	}
	sender, err := tx.Sender()
	if err != nil {
		return rails.Inspection{}, malformed
	}
	network := "eip155:" + tx.ChainID.String()
	asset := tx.To.Hex()
	return rails.Inspection{
		Pairing: MPPTransactionID, Kind: "credential", H: e.H.String(),
		Grant: rails.Grant{Network: network, Asset: asset, Decimals: rails.KnownDecimals(network, asset),
			Amount: new(big.Int).SetBytes(tx.Data[36:68]), Payer: sender.Hex(), Payee: common.BytesToAddress(tx.Data[16:36]).Hex()},
		WhereH: noSignedPlaceWhere,
		// A canonical reading's hash is the input's: keccak256 of the wire.
		Details: jsonv.Obj("transaction", crypto.Keccak256Hash(wire).Hex(), "nonce", strconv.FormatUint(tx.Nonce, 10)),
	}, nil
}

// Inspect states what an mpp/charge/evm/hash credential names: the
// transfer the challenge asks for, sent by the payer as the transaction of
// payload.hash (the credential holds only that hash).
func (MPPHash) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	e, err := mpp.Echoed(payment, MPPHashID)
	if err != nil {
		return rails.Inspection{}, err
	}
	hash := mpp.String(e.Payload, "hash")
	amount, ok := mpp.Uint256(mpp.String(e.Checked.Request, "amount"))
	if !mpp.IsWord32(hash) || !ok {
		return rails.Inspection{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	network := "eip155:" + strconv.FormatInt(mpp.ChargeChain(e.Checked), 10)
	asset := mpp.String(e.Checked.Request, "currency")
	payer, _ := mpp.SourceAddress(mpp.String(e.Credential, "source"))
	return rails.Inspection{
		Pairing: MPPHashID, Kind: "credential", H: e.H.String(),
		Grant: rails.Grant{Network: network, Asset: asset, Decimals: rails.KnownDecimals(network, asset), Amount: amount,
			Payer: payer, Payee: mpp.String(e.Checked.Request, "recipient")},
		WhereH:  noSignedPlaceWhere,
		Details: jsonv.Obj("transaction", hash),
	}, nil
}

// Inspect states what an mpp/session/evm opening grants: the deposit into
// the channel whose salt is H, for its payee, until the opening's deadline.
func (p MPPSession) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	s, err := p.opened(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	deposit, until := "", ""
	switch s.kind {
	case "authorization":
		deposit, until = mpp.String(s.auth, "value"), mpp.String(s.auth, "validBefore")
	case "permit2":
		permitted, _ := s.auth.GetObject("permitted")
		deposit, until = mpp.String(permitted, "amount"), mpp.String(s.auth, "deadline")
	}
	g := rails.Grant{Network: "eip155:" + strconv.FormatInt(s.p.chain, 10), Asset: s.p.token, Payer: s.payer, Payee: s.p.payee, Decimals: -1}
	g.Decimals = rails.KnownDecimals(g.Network, g.Asset)
	if n, ok := mpp.Uint256(deposit); ok {
		g.Amount = n
	}
	if IsUint256Decimal(until) {
		g.PayableUntil = UnixTime(until)
	}
	return rails.Inspection{
		Pairing: MPPSessionID, Kind: "credential", H: s.e.H.String(), Grant: g,
		WhereH: "payload.salt, the channel's salt: the channel id (keccak256 over payer, payee, token, salt, authorizedSigner, escrow, chainId) commits to it, and so does the signed opening",
		Details: jsonv.Obj("channelId", s.channel.String(), "type", s.kind, "escrow", s.p.escrow,
			"authorizedSigner", s.signer),
	}, nil
}
