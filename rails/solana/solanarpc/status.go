package solanarpc

import (
	"context"
	"encoding/base64"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/solana"
)

// Transaction is getTransaction of signature at commitment (encoding
// base64, v0 messages accepted), read by solana.LandedOf: nil, nil when
// the node has no such transaction.
func (c *Client) Transaction(ctx context.Context, signature, commitment string) (*solana.Landed, error) {
	const method = "getTransaction"
	v, err := c.call(ctx, method, signature, jsonv.Obj("encoding", "base64", "commitment", commitment, "maxSupportedTransactionVersion", 0))
	if err != nil {
		return nil, err
	}
	l, err := solana.LandedOf(v)
	if err != nil {
		return nil, &Error{Method: method, Detail: err.Error()}
	}
	return l, nil
}

// Reader is solana.Reader over a client: the network it serves and the
// context its reads run under.
type Reader struct {
	Client *Client
	Of     string // the CAIP-2 network the endpoint serves
	Ctx    context.Context
}

// Network is the network the endpoint serves.
func (r Reader) Network() string { return r.Of }

// Transaction is Client.Transaction under the reader's context.
func (r Reader) Transaction(signature, commitment string) (*solana.Landed, error) {
	return r.Client.Transaction(r.context(), signature, commitment)
}

func (r Reader) context() context.Context {
	if r.Ctx == nil {
		return context.Background()
	}
	return r.Ctx
}

// FirstAvailableBlock is getFirstAvailableBlock: the lowest slot the node
// still holds.
func (c *Client) FirstAvailableBlock(ctx context.Context) (uint64, error) {
	const method = "getFirstAvailableBlock"
	v, err := c.call(ctx, method)
	if err != nil {
		return 0, err
	}
	n, ok := jsonv.AsSafeInt(v)
	if !ok || n < 0 {
		return 0, &Error{Method: method, Detail: "the answer is not a slot"}
	}
	return uint64(n), nil
}

// Signatures is getSignaturesForAddress at commitment confirmed: at most
// limit entries (1 to 1000) before the signature before ("" for the
// newest). An answer with more entries than asked, or an entry without a
// base58 signature, a slot, or a string or null memo, is an error.
func (c *Client) Signatures(ctx context.Context, address, before string, limit int) ([]solana.Listed, error) {
	const method = "getSignaturesForAddress"
	fail := func(detail string) error { return &Error{Method: method, Detail: detail} }
	if limit < 1 || limit > solana.LocatePage {
		return nil, fail("the limit is not 1 to 1000")
	}
	opts := jsonv.Obj("limit", limit, "commitment", "confirmed")
	if before != "" {
		opts.Set("before", before)
	}
	v, err := c.call(ctx, method, address, opts)
	if err != nil {
		return nil, err
	}
	list, ok := jsonv.AsArray(v)
	if !ok || len(list) > limit {
		return nil, fail("the answer is not a list of at most the limit")
	}
	out := make([]solana.Listed, 0, len(list))
	for _, ev := range list {
		e, _ := jsonv.AsObject(ev)
		sig, _ := e.GetString("signature")
		sv, _ := e.Get("slot")
		slot, okSlot := jsonv.AsSafeInt(sv)
		mv, _ := e.Get("memo")
		memo, isString := mv.(string)
		if b, ok := solana.DecodeBase58(sig); !ok || len(b) != 64 || len(sig) > 90 || !okSlot || slot < 0 || mv != nil && !isString {
			return nil, fail("an entry is not {signature, slot, memo}")
		}
		out = append(out, solana.Listed{Signature: sig, Slot: uint64(slot), Memo: memo, HasMemo: isString})
	}
	return out, nil
}

// FirstAvailableBlock is Client.FirstAvailableBlock under the reader's
// context.
func (r Reader) FirstAvailableBlock() (uint64, error) {
	return r.Client.FirstAvailableBlock(r.context())
}

// Slot is Client.Slot under the reader's context: the settlement check
// bounds its signature search by it (pay's verify_solana.go).
func (r Reader) Slot() (uint64, error) {
	return r.Client.Slot(r.context())
}

// Signatures is Client.Signatures under the reader's context.
func (r Reader) Signatures(address, before string, limit int) ([]solana.Listed, error) {
	return r.Client.Signatures(r.context(), address, before, limit)
}

// Account is getAccountInfo of address at finalized (encoding base64): the
// context slot and the account, Exists false when the node has none.
func (c *Client) Account(ctx context.Context, address string) (solana.AccountRead, error) {
	const method = "getAccountInfo"
	fail := func(detail string) (solana.AccountRead, error) {
		return solana.AccountRead{}, &Error{Method: method, Detail: detail}
	}
	if _, ok := solana.ParseKey(address); !ok {
		return fail("the address is not a key")
	}
	v, err := c.call(ctx, method, address, jsonv.Obj("encoding", "base64", "commitment", "finalized"))
	if err != nil {
		return solana.AccountRead{}, err
	}
	result, _ := jsonv.AsObject(v)
	cx, _ := result.GetObject("context")
	sv, _ := cx.Get("slot")
	slot, okSlot := jsonv.AsSafeInt(sv)
	value, has := result.Get("value")
	if !okSlot || slot < 0 || !has {
		return fail("the answer has no context slot and value")
	}
	read := solana.AccountRead{Slot: uint64(slot)}
	if value == nil {
		return read, nil
	}
	acct, _ := jsonv.AsObject(value)
	owner, _ := acct.GetString("owner")
	dv, _ := acct.Get("data")
	data, _ := jsonv.AsArray(dv)
	if len(data) != 2 || data[1] != "base64" {
		return fail("the account data is not base64")
	}
	text, _ := data[0].(string)
	raw, derr := base64.StdEncoding.DecodeString(text)
	key, ok := solana.ParseKey(owner)
	if derr != nil || !ok {
		return fail("the account has no owner key or base64 data")
	}
	read.Exists, read.Owner, read.Data = true, key, raw
	return read, nil
}

// Account is Client.Account under the reader's context.
func (r Reader) Account(address string) (solana.AccountRead, error) {
	return r.Client.Account(r.context(), address)
}
