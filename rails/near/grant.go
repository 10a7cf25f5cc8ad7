package near

import (
	"bytes"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

var (
	_ rails.Summarizer = Exact{}
	_ rails.Inspector  = Exact{}
)

var errUnreadable = errors.New("near: the signing request is not one this pairing builds")

// RequestAction reads a near-delegate request: its network, the delegate
// action (one ft_transfer with 1 yoctoNEAR, whose arguments name a receiver,
// an amount and an LCP memo) and the hash, which must be the action's.
func RequestAction(req rails.Request) (*DelegateAction, string, [32]byte, error) {
	if k, _ := req.GetString("kind"); k != KindDelegate {
		return nil, "", [32]byte{}, errUnreadable
	}
	network := mpp.String(req, "network")
	raw, ok1 := mpp.HexBytes(mpp.String(req, "delegateAction"), 1, MaxSDAChars)
	h, ok2 := mpp.HexBytes(mpp.String(req, "hash"), 32, 32)
	if !ok1 || !ok2 || !IsNetwork(network) {
		return nil, "", [32]byte{}, errUnreadable
	}
	r := &reader{b: raw}
	d, err := readDelegate(r)
	if err != nil || len(r.b) != 0 || !bytes.Equal(d.Encode(), raw) || len(d.Actions) != 1 || d.Actions[0].Method != "ft_transfer" {
		return nil, "", [32]byte{}, errUnreadable
	}
	if sh := signingHashOf(raw); !bytes.Equal(sh[:], h) { // raw is what d writes, checked above
		return nil, "", [32]byte{}, errUnreadable
	}
	if d.Actions[0].Deposit.Cmp(big.NewInt(1)) != 0 {
		return nil, "", [32]byte{}, errors.New("near: the call attaches more than 1 yoctoNEAR")
	}
	return d, network, [32]byte(h), nil
}

// grantOf states what a delegate action's ft_transfer moves.
func grantOf(d *DelegateAction, network string) (rails.Grant, error) {
	args, _, err := Memo(d.Actions[0].Args)
	if err != nil {
		return rails.Grant{}, err
	}
	to, _ := args.GetString("receiver_id")
	av, _ := args.Get("amount")
	amount, ok := amountOf(av)
	if !IsAccountID(to) || !ok || args.Len() != 3 {
		return rails.Grant{}, errUnreadable
	}
	return rails.Grant{Network: network, Asset: d.ReceiverID, Decimals: KnownDecimals(network, d.ReceiverID), Amount: amount,
		Payer: d.SenderID, Payee: to}, nil
}

// Known NEP-141 decimals: Circle's USDC on NEAR (https://developers.circle.com/stablecoins/usdc-contract-addresses).
var knownTokens = map[[2]string]int{
	{"near:mainnet", "17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1"}: 6,
	{"near:testnet", "3e2210e1184b45b64c8a434c0a7e7b23cc04ea7eb7a6c3c32520d03d4afcb8af"}: 6,
}

// KnownDecimals is the decimals of a token contract on network, else -1.
func KnownDecimals(network, token string) int {
	if d, ok := knownTokens[[2]string{network, token}]; ok {
		return d
	}
	return -1
}

// Summarize: the ft_transfer's amount of the token contract, from the
// sender to receiver_id, read from the delegate action's bytes. Validity is
// a block height, not a time: the request's validUntil, the buyer's
// estimate of when it will have passed, is stated as PayableUntil; without
// it none is.
func (Exact) Summarize(req rails.Request) (rails.Grant, error) {
	d, network, _, err := RequestAction(req)
	if err != nil {
		return rails.Grant{}, err
	}
	g, err := grantOf(d, network)
	if err != nil {
		return rails.Grant{}, err
	}
	if v, has := req.Get("validUntil"); has {
		n, ok := jsonv.AsSafeInt(v)
		if !ok || n <= 0 {
			return rails.Grant{}, errUnreadable
		}
		g.PayableUntil = time.Unix(n, 0).UTC()
	}
	return g, nil
}

// Inspect reads an x402/exact/near payment as Bound does and states its
// grant from the delegate action it signs.
func (Exact) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	c, accepted, err := carried(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	d := c.Signed.Action
	g, err := grantOf(d, mpp.String(accepted, "network"))
	if err != nil {
		return rails.Inspection{}, err
	}
	sh := d.SigningHash()
	det := jsonv.Obj("publicKey", d.PublicKey.String(), "nonce", strconv.FormatUint(d.Nonce, 10),
		"maxBlockHeight", strconv.FormatUint(d.MaxBlockHeight, 10), "gas", strconv.FormatUint(d.Actions[0].Gas, 10),
		"deposit", d.Actions[0].Deposit.String(), "signingHash", "0x"+hexOf(sh[:]), "signatureKeyType", jsonv.Number(c.Signed.SigType))
	return rails.Inspection{Pairing: ExactID, Kind: "payment", Grant: g, H: c.H.String(),
		WhereH: "payload.signedDelegateAction: actions[0].FunctionCall(ft_transfer).args.memo, the LCP string \"lcp:sha256:\" + H", Details: det}, nil
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}
