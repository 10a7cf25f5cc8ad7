package tempo

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/evm"
	"github.com/termsgate/termsgate/rails/mpp"
)

// The pieces mpp/charge/tempo/memo and mpp/charge/tempo/push share: the same
// challenges, the same choice and the same calls; they differ in who
// broadcasts and so in how H is read back.

// clientIDInput is the optional label the payer puts in the attribution
// memo.
var clientIDInput = mpp.Input{Name: "clientId", Kind: "string", Optional: true}

// chooseCharge picks the first challenge offering pairing on the account's
// network, accepts its splits, and takes the optional clientId.
func chooseCharge(read rails.Read, account string, inputs *jsonv.Object, now int64, pairing string) (jsonv.Value, error) {
	challenge, from, err := mpp.Choose(read, account, pairing)
	if err != nil {
		return nil, err
	}
	if err := checkAddresses(from); err != nil {
		return nil, err
	}
	checked, err := mpp.CheckChallenge(challenge, true)
	if err != nil {
		return nil, err
	}
	if _, _, err := splitsOf(checked); err != nil {
		return nil, err
	}
	given, err := mpp.Inputs(inputs, clientIDInput)
	if err != nil {
		return nil, err
	}
	return mpp.Choice(challenge, from, now, given), nil
}

type split struct {
	recipient common.Address
	amount    *big.Int
	memo      *[32]byte
}

// splitsOf reads methodDetails.splits (none, or 1–10 entries of a recipient
// address, an amount above zero and an optional 32-byte memo; else
// mpp/splits-malformed) and the primary recipient's share, amount less the
// splits, which must stay above zero (mpp/input-malformed).
func splitsOf(c *mpp.Checked) ([]split, *big.Int, error) {
	amount, ok := mpp.Uint256(mpp.String(c.Request, "amount"))
	var out []split
	sv, has := c.Details.Get("splits")
	if has {
		list, okList := jsonv.AsArray(sv)
		if !okList || len(list) < 1 || len(list) > mpp.MaxSplits {
			return nil, nil, rails.Refuse(mpp.CodeSplitsMalformed)
		}
		for _, v := range list {
			o, okObj := jsonv.AsObject(v)
			if !okObj {
				return nil, nil, rails.Refuse(mpp.CodeSplitsMalformed)
			}
			to, okTo := parseAddress(mpp.String(o, "recipient"))
			n, okN := mpp.Uint256(mpp.String(o, "amount"))
			if !okTo || !okN || n.Sign() == 0 {
				return nil, nil, rails.Refuse(mpp.CodeSplitsMalformed)
			}
			s := split{recipient: to, amount: n}
			if m, has := o.Get("memo"); has {
				text, isString := m.(string)
				if !isString || !mpp.IsWord32(text) {
					return nil, nil, rails.Refuse(mpp.CodeSplitsMalformed)
				}
				w, _ := parseWord(text)
				s.memo = &w
			}
			out = append(out, s)
		}
	}
	if !ok {
		return nil, nil, rails.Refuse(mpp.CodeRequestMalformed)
	}
	primary := new(big.Int).Set(amount)
	for _, s := range out {
		primary.Sub(primary, s.amount)
	}
	if primary.Sign() <= 0 {
		return nil, nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	return out, primary, nil
}

// chargeUnsigned is a built charge: the calls to sign and what the
// credential echoes.
type chargeUnsigned struct {
	request   rails.Request
	challenge *jsonv.Object
	source    string
}

// buildCharge is the memo and push build (docs/protocol.md, "Tempo"): the attribution memo of the challenge's realm
// and id (with the clientId when given) in a transferWithMemo of amount to
// recipient, or with splits that call for amount less the splits and one
// call per split; broadcast says who sends it.
func buildCharge(choice jsonv.Value, h atr.Hash, pairing string, broadcast bool) (*chargeUnsigned, error) {
	o, err := mpp.OfferFor(choice, h, pairing)
	if err != nil {
		return nil, err
	}
	clientID, hasClient := "", false
	if v, has := o.Choice.Get("clientId"); has {
		s, ok := v.(string)
		if !ok {
			return nil, rails.Refuse(mpp.CodeInputMalformed)
		}
		clientID, hasClient = s, true
	}
	realm := mpp.String(o.Challenge, "realm")
	id := mpp.String(o.Challenge, "id")
	memo := mpp.AttributionMemo(realm, id, clientID, hasClient)
	currency := mpp.String(o.Request, "currency")
	recipient, okR := parseAddress(mpp.String(o.Request, "recipient"))
	amount, okA := mpp.Uint256(mpp.String(o.Request, "amount"))
	if !okR || !okA {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	chain := mpp.ChargeChain(o.Checked)
	splits, primary, err := splitsOf(o.Checked)
	if err != nil {
		return nil, err
	}
	var req *jsonv.Object
	if len(splits) == 0 {
		call := jsonv.Obj("to", currency, "data", hex0x(memoCalldata(recipient, amount, memo)))
		req = jsonv.Obj("kind", KindTempoCall, "chainId", chain, "call", call, "validBefore", o.Expires, "broadcast", broadcast)
	} else {
		calls := []jsonv.Value{jsonv.Obj("to", currency, "data", hex0x(memoCalldata(recipient, primary, memo)))}
		for _, s := range splits {
			data := transferCalldata(s.recipient, s.amount)
			if s.memo != nil {
				data = memoCalldata(s.recipient, s.amount, *s.memo)
			}
			calls = append(calls, jsonv.Obj("to", currency, "data", hex0x(data)))
		}
		req = jsonv.Obj("kind", KindTempoCalls, "chainId", chain, "calls", calls, "validBefore", o.Expires, "broadcast", broadcast)
	}
	return &chargeUnsigned{request: req, challenge: o.Challenge, source: mpp.Source(chain, o.From)}, nil
}

// Request kinds the Tempo pairings hand to a signer (docs/protocol.md, "Accounts, inputs and signing requests").
const (
	KindTempoCall             = "tempo-call"
	KindTempoCalls            = "tempo-calls"
	KindTempoKeyAuthorization = "tempo-key-authorization"
)

// sameHex reports whether v is "0x" hex of the same bytes as want (hex
// compared as bytes, so case does not matter).
func sameHex(v jsonv.Value, want []byte) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	b, ok := mpp.HexBytes(s, len(want), len(want))
	return ok && string(b) == string(want)
}

// checkAddresses is the EIP-55 check of a Tempo Choose
// (docs/adding-a-pairing.md): the account's address. The challenge's own
// addresses are not checked here, unlike the other EVM pairings': the Tempo
// vectors (vectors/testdata/mpp-charge-tempo-*.json, mpp-session-tempo.json,
// mpp-subscription-tempo.json) pay a recipient written in mixed case that
// is no EIP-55 checksum, and the vectors are the spec.
func checkAddresses(from string) error { return evm.CheckAddresses("from", from) }
