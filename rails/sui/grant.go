package sui

import (
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// What a sui-transaction request grants (rails.Summarizer), and what a Sui
// payment shows (rails.Inspector).

var (
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

var errUnreadable = errors.New("sui: the signing request is not one this pairing builds")

// Request is a sui-transaction request as read.
type Request struct {
	Network, Asset string
	Sender, PayTo  Address
	Amount         uint64
	H              atr.Hash
}

// ReadRequest reads a sui-transaction request: every member present and of
// its form, the expiration epoch-bounded.
func ReadRequest(req rails.Request) (Request, error) {
	if k, _ := req.GetString("kind"); k != KindTransaction {
		return Request{}, errUnreadable
	}
	var out Request
	var ok1, ok2, ok3, ok4 bool
	out.Network, out.Asset = mpp.String(req, "network"), mpp.String(req, "asset")
	out.Sender, ok1 = ParseAddress(mpp.String(req, "sender"))
	out.PayTo, ok2 = ParseAddress(mpp.String(req, "payTo"))
	out.Amount, ok3 = u64Of(mpp.String(req, "amount"))
	h, ok4 := mpp.HexBytes(mpp.String(req, "pureInput"), 32, 32)
	if !ok1 || !ok2 || !ok3 || !ok4 || !IsNetwork(out.Network) || !IsCoinType(out.Asset) || mpp.String(req, "expiration") != "epoch-bounded" {
		return Request{}, errUnreadable
	}
	out.H = atr.Hash(h)
	return out, nil
}

// Decimals of the coins a summary can state: SUI has 9 (MIST), and
// Circle's USDC on Sui 6 (https://developers.circle.com/stablecoins/usdc-contract-addresses).
var knownCoins = map[[2]string]int{
	{"sui:mainnet", "0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC"}: 6,
	{"sui:testnet", "0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC"}: 6,
}

// KnownDecimals is the decimals of a coin type on network, else -1.
func KnownDecimals(network, coinType string) int {
	if IsSUI(coinType) {
		return 9
	}
	if d, ok := knownCoins[[2]string{network, coinType}]; ok {
		return d
	}
	return -1
}

// Summarize: amount of the coin type asset from sender to payTo, on the
// request's network. A Sui transaction's bound is an epoch, not a time:
// the request's validUntil, the buyer's estimate of when that epoch will
// have passed, is stated as PayableUntil; without it none is. The wallet's
// gas (at most its budget, in SUI) is the wallet's own and not in the grant.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	r, err := ReadRequest(req)
	if err != nil {
		return rails.Grant{}, err
	}
	g := rails.Grant{Network: r.Network, Asset: r.Asset, Decimals: KnownDecimals(r.Network, r.Asset),
		Amount: new(big.Int).SetUint64(r.Amount), Payer: r.Sender.String(), Payee: r.PayTo.String()}
	if v, has := req.Get("validUntil"); has {
		n, ok := jsonv.AsSafeInt(v)
		if !ok || n <= 0 {
			return rails.Grant{}, errUnreadable
		}
		g.PayableUntil = time.Unix(n, 0).UTC()
	}
	return g, nil
}

// txDetails are a transaction's digest, gas and bound, and the transfer it
// makes when it is of the wallet's shape.
func txDetails(t *Tx, raw []byte) *jsonv.Object {
	d := jsonv.Obj("digest", DigestString(raw), "sender", t.Sender.String(), "gasOwner", t.GasOwner.String(),
		"gasPrice", strconv.FormatUint(t.GasPrice, 10), "gasBudget", strconv.FormatUint(t.GasBudget, 10),
		"gasObjects", jsonv.Number(len(t.GasPayment)), "inputs", jsonv.Number(len(t.Inputs)), "commands", jsonv.Number(len(t.Commands)))
	if e, ok := t.UntilEpoch(); ok {
		d.Set("untilEpoch", strconv.FormatUint(e, 10))
	} else {
		d.Set("untilEpoch", nil)
	}
	if tr, ok := ReadTransfer(t); ok {
		from := "gas coin"
		if !tr.FromGas {
			from = strconv.Itoa(tr.Coins) + " coin object(s)"
		}
		d.Set("transfer", jsonv.Obj("amount", strconv.FormatUint(tr.Amount, 10), "payTo", tr.PayTo.String(), "from", from))
	} else {
		d.Set("transfer", nil)
	}
	return d
}

// Inspect reads an x402/exact/sui payment as Bound does and states its
// grant through Summarize over the request the payment answers (the
// option, the transaction's sender and H); the details say what the
// transaction itself moves, and whether it is the option's transfer.
func (p Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	c, err := carried(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	o, _ := jsonv.AsObject(payment)
	accepted, _ := o.GetObject("accepted")
	req := jsonv.Obj("kind", KindTransaction, "network", mpp.String(accepted, "network"), "sender", c.Tx.Sender.String(),
		"asset", mpp.String(accepted, "asset"), "amount", mpp.String(accepted, "amount"), "payTo", mpp.String(accepted, "payTo"),
		"pureInput", "0x"+hex.EncodeToString(c.H[:]), "expiration", "epoch-bounded")
	g, err := p.Summarize(req)
	if err != nil {
		return rails.Inspection{}, err
	}
	d := txDetails(c.Tx, c.Raw)
	d.Set("paysOption", Pays(c.Tx, accepted))
	d.Set("signatureVerifies", VerifySignature(c.Signature, c.Raw, c.Tx.Sender))
	at := c.Tx.UnusedPure()[0]
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: g, H: c.H.String(),
		WhereH: "payload.transaction: inputs[" + strconv.Itoa(at) + "], the one Pure input no command uses (H's 32 bytes)", Details: d}, nil
}

// InspectTransaction reads a bare transaction, base64 of its TransactionData
// as a payment's payload holds it, and states what it moves when it is of
// the wallet's shape and where H sits. Nothing is verified.
func InspectTransaction(s string, network string) (rails.Inspection, error) {
	return rails.Guard("sui.InspectTransaction", "a Sui transaction of "+strconv.Itoa(len(s))+" characters", func() (rails.Inspection, error) {
		t, raw, err := DecodeTransaction(s)
		if err != nil {
			return rails.Inspection{}, errors.New("not a Sui transaction (base64 of canonical TransactionData V1, programmable, at most 131072 bytes)")
		}
		in := rails.Inspection{Kind: "sui-transaction", Details: txDetails(t, raw), WhereH: "nowhere: no single unused 32-byte Pure input"}
		in.Grant = rails.Grant{Network: network, Payer: t.Sender.String(), Decimals: -1}
		if tr, ok := ReadTransfer(t); ok {
			in.Grant.Amount, in.Grant.Payee = new(big.Int).SetUint64(tr.Amount), tr.PayTo.String()
			if tr.FromGas {
				in.Grant.Asset, in.Grant.Decimals = SUI, 9
			}
		}
		if h, err := CarriedH(t); err == nil {
			in.H = h.String()
			in.WhereH = "inputs[" + strconv.Itoa(t.UnusedPure()[0]) + "]: the one Pure input no command uses (an x402/exact/sui payment)"
		}
		return in, nil
	})
}
