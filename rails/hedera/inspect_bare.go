package hedera

import (
	"strconv"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
)

// InspectTransaction reads a bare wire Transaction (or TransactionList) in
// padded standard base64, as `termsgate inspect` is given it without the
// payment around it, and states what its transfer grants and where H sits:
// the signed body's memo. A body names no network, so the grant names
// none; no signature is verified.
func InspectTransaction(s string) (rails.Inspection, error) {
	return rails.Guard("hedera.InspectTransaction", "a Hedera transaction of "+strconv.Itoa(len(s))+" characters",
		func() (rails.Inspection, error) { return inspectTransaction(s) })
}

func inspectTransaction(s string) (rails.Inspection, error) {
	signed, err := WireOf(s)
	if err != nil {
		return rails.Inspection{}, err
	}
	body := signed.Bodies[0]
	h, err := MemoH(body.Memo)
	if err != nil {
		return rails.Inspection{}, err
	}
	g, err := grantOf(body, "")
	if err != nil {
		return rails.Inspection{}, err
	}
	return rails.Inspection{Pairing: "", Kind: "hedera-transaction", Grant: g, H: h,
		WhereH: "the signed TransactionBody's memo: \"lcp:sha256:\" + H",
		Details: jsonv.Obj("transactionId", body.ID.Text(), "feePayer", body.ID.Account.String(), "node", body.Node.String(),
			"maxFee", strconv.FormatUint(body.MaxFee, 10), "bodies", jsonv.Number(len(signed.Bodies)))}, nil
}
