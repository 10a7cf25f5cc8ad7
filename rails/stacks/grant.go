package stacks

import (
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// What a stacks-contract-call request grants (rails.Summarizer) and what a
// payment shows (rails.Inspector).

var errUnreadable = errors.New("stacks: the signing request is not one this pairing builds")

// ReadRequest reads a stacks-contract-call request: its network, and its
// transaction a SIP-010 transfer on that network from the signer's own
// address, guarded by the post-condition, carrying (some (buff 32)) as
// memo; nonce and fee, where present, the transaction's.
func ReadRequest(req rails.Request) (*Tx, *Transfer, error) {
	if k, _ := req.GetString("kind"); k != KindContractCall {
		return nil, nil, errUnreadable
	}
	c, ok := ChainOf(mpp.String(req, "network"))
	text := mpp.String(req, "transaction")
	if !ok || len(text) < 2 || len(text) > 2+2*MaxTxBytes || text[:2] != "0x" {
		return nil, nil, errUnreadable
	}
	raw, err := hex.DecodeString(text[2:])
	if err != nil {
		return nil, nil, errUnreadable
	}
	t, err := DecodeTx(raw)
	if err != nil {
		return nil, nil, errUnreadable
	}
	tr, ok := ReadTransfer(t)
	if _, okM := MemoH(tr.memo()); !ok || !okM || tr.Chain != c || !tr.Guarded || tr.Sender != tr.Origin {
		return nil, nil, errUnreadable
	}
	for _, k := range []string{"nonce", "fee"} {
		v, has := req.Get(k)
		if !has {
			continue
		}
		s, _ := v.(string)
		n, ok := u64Text(s)
		if !ok || k == "nonce" && n != t.Nonce || k == "fee" && n != t.Fee {
			return nil, nil, errUnreadable
		}
	}
	return t, tr, nil
}

func (t *Transfer) memo() []byte {
	if t == nil {
		return nil
	}
	return t.Memo
}

// AssetID is the asset as the grant names it: <contract>::<asset name>, the
// usdc request's currency.
func (t *Transfer) AssetID() string { return t.Contract.String() + "::" + t.AssetName }

// Summarize: amount of the contract's asset from the origin to the
// recipient on the request's network. A Stacks transaction has no
// deadline: it stays good until its nonce is used, so PayableUntil is zero
// (a spend policy with a deadline declines it; docs/stacks.md). The fee,
// in STX, is the wallet's own and not in the grant; decimals are not in the
// transaction (-1).
func (ChargeUSDC) Summarize(req rails.Request) (rails.Grant, error) {
	_, tr, err := ReadRequest(req)
	if err != nil {
		return rails.Grant{}, err
	}
	return grantOf(tr), nil
}

func grantOf(tr *Transfer) rails.Grant {
	return rails.Grant{Network: tr.Chain.Network, Asset: tr.AssetID(), Decimals: -1,
		Amount: new(big.Int).SetUint64(tr.Amount), Payer: tr.Origin.String(), Payee: tr.Recipient.String()}
}

func txDetails(t *Tx, raw []byte) *jsonv.Object {
	id := TxID(raw)
	d := jsonv.Obj("txid", "0x"+hex.EncodeToString(id[:]), "nonce", strconv.FormatUint(t.Nonce, 10),
		"fee", strconv.FormatUint(t.Fee, 10), "contract", t.Contract.String(), "function", t.Function,
		"postConditions", jsonv.Number(len(t.PostConditions)), "signatureVerifies", VerifySignature(t))
	return d
}

// Inspect reads a credential as Bound does and states its grant through
// Summarize over the signed transaction; the details say whether it pays
// the echoed request and whether its signature verifies.
func (p ChargeUSDC) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	pr, err := ReadPresented(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	g, err := p.Summarize(jsonv.Obj("kind", KindContractCall, "network", pr.Chain.Network,
		"transaction", "0x"+hex.EncodeToString(pr.Raw)))
	if err != nil {
		return rails.Inspection{}, err
	}
	d := txDetails(pr.Tx, pr.Raw)
	d.Set("paysRequest", pr.Pays())
	return rails.Inspection{Pairing: ChargeUSDCID, Kind: "credential", Grant: g, H: pr.Bound.H.String(),
		WhereH:  "payload.transaction: the SIP-010 transfer's memo argument, (some (buff 32)) holding H; H is also the challenge id",
		Details: d}, nil
}

// InspectTransaction reads a bare transaction, hex of its bytes (0x
// optional), and states what it moves when it is a SIP-010 transfer and
// where H sits when its memo is 32 bytes. Nothing is verified but the
// signature, which the details report.
func InspectTransaction(s string) (rails.Inspection, error) {
	return rails.Guard("stacks.InspectTransaction", "a Stacks transaction of "+strconv.Itoa(len(s))+" characters", func() (rails.Inspection, error) {
		t, raw, ok := SignedOf(s)
		if !ok {
			return rails.Inspection{}, errors.New("not a Stacks transaction (hex of one single-signature contract call, at most 16384 bytes)")
		}
		in := rails.Inspection{Kind: "stacks-transaction", Details: txDetails(t, raw), WhereH: "nowhere: not a SIP-010 transfer whose memo is 32 bytes",
			Grant: rails.Grant{Decimals: -1}}
		if tr, ok := ReadTransfer(t); ok {
			in.Grant = grantOf(tr)
			if tr.AssetName == "" {
				in.Grant.Asset = tr.Contract.String()
			}
			if h, ok := MemoH(tr.Memo); ok {
				in.H = "0x" + hex.EncodeToString(h[:])
				in.WhereH = "the SIP-010 transfer's memo argument, (some (buff 32)) (an mpp/charge/usdc/stacks payment)"
			}
		}
		return in, nil
	})
}
