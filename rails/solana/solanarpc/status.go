package solanarpc

import (
	"context"

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
