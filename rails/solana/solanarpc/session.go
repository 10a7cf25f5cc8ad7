package solanarpc

import (
	"context"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
	"github.com/termsgate/termsgate/rails/solana"
)

// BlockhashLifetime bounds how long a transaction on a recent blockhash
// stays payable: solana.BlockhashPayableSeconds, the one bound every Solana
// pairing states (docs/solana.md, "How long a payment stays payable"). It
// is stated as the opening's validUntil for the spend policy; no value in
// the message states it.
const BlockhashLifetime = solana.BlockhashPayableSeconds * time.Second

// SessionInputsFor is pay.Transport.InputsFor for mpp/session/solana. The
// challenge names the channel program, the recent blockhash and slot the
// open is built on; what the chain alone says is the mint's token program
// (Token or Token-2022, its owner), which decides the token accounts the
// open names: getAccountInfo of the first challenge's mint on the
// account's network gives it, unless that challenge names tokenProgram
// itself; and validUntil, now plus BlockhashLifetime. Any other pairing, or a document the pairing does not read, has
// no inputs (nil, nil).
func (c *Client) SessionInputsFor(ctx context.Context, pairing string, doc jsonv.Value, account string) (*jsonv.Object, error) {
	if pairing != solana.SessionID {
		return nil, nil
	}
	read, err := solana.Session{}.Read(doc)
	acct, ok := rails.ParseAccount(account)
	if err != nil || !ok || acct.Namespace != "solana" {
		return nil, nil
	}
	for _, v := range read.Options {
		if !mpp.OffersPlaced(v, solana.SessionID) {
			continue
		}
		if n, err := mpp.Network(v); err != nil || n != acct.Network() {
			continue
		}
		checked, err := mpp.CheckChallenge(v, true)
		if err != nil {
			return nil, nil
		}
		in := jsonv.Obj("validUntil", time.Now().Add(BlockhashLifetime).Unix())
		if checked.Details.Has("tokenProgram") {
			return in, nil
		}
		_, program, err := c.Mint(ctx, mpp.String(checked.Request, "currency"))
		if err != nil {
			return nil, err
		}
		in.Set("tokenProgram", program)
		return in, nil
	}
	return nil, nil
}
