// Package mirror is a small client of a Hedera Mirror Node's REST API
// (https://docs.hedera.com/hedera/sdks-and-apis/rest-api): the buyer's
// inputs for an x402/exact/hedera body (a node account from
// /api/v1/network/nodes, a token's decimals from /api/v1/tokens/{id}) and
// the seller's settlement read (/api/v1/transactions/{id}, a
// hedera.Reader). Answers are read strictly and bounded: at most 1 MiB, at
// most MaxEntries entries.
package mirror

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/hedera"
)

// Bounds on an answer.
const (
	maxAnswer  = 1 << 20
	MaxEntries = 64
	// DefaultMaxFee is the transaction fee cap Inputs names, in tinybars
	// (1 HBAR): the network charges the actual fee, at most this.
	DefaultMaxFee = "100000000"
)

// Client reads one network's Mirror Node at URL (without /api/v1).
type Client struct {
	URL  string
	HTTP *http.Client
	Of   string // the CAIP-2 network it serves
}

// Error is a failed read: the path and what was wrong.
type Error struct{ Path, Detail string }

func (e *Error) Error() string { return "mirror: " + e.Path + ": " + e.Detail }

// get reads path's JSON object; found false on 404.
func (c *Client) get(ctx context.Context, path string) (*jsonv.Object, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(c.URL, "/")+path, nil)
	if err != nil {
		return nil, false, &Error{path, err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, false, &Error{path, err.Error()}
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, false, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil || len(body) > maxAnswer {
		return nil, false, &Error{path, "the answer is unreadable or larger than 1 MiB"}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, false, &Error{path, fmt.Sprintf("status %d", resp.StatusCode)}
	}
	v, err := jsonv.Parse(body)
	o, ok := jsonv.AsObject(v)
	if err != nil || !ok {
		return nil, false, &Error{path, "the answer is not a JSON object"}
	}
	return o, true, nil
}

// Reader is a hedera.Reader over the client.
type Reader struct {
	*Client
	Ctx context.Context
}

// Network is the network the client serves.
func (r Reader) Network() string { return r.Of }

// Transactions reads /api/v1/transactions/{id}: {transactions: [{result,
// memo_base64 (string or null), nonce, scheduled, consensus_timestamp},
// …]}, at most MaxEntries.
func (r Reader) Transactions(id string) ([]hedera.Entry, bool, error) {
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	path := "/api/v1/transactions/" + url.PathEscape(id)
	o, found, err := r.get(ctx, path)
	if err != nil || !found {
		return nil, found, err
	}
	lv, _ := o.Get("transactions")
	list, ok := jsonv.AsArray(lv)
	if !ok || len(list) > MaxEntries {
		return nil, false, &Error{path, "transactions is not a list of at most 64"}
	}
	out := make([]hedera.Entry, 0, len(list))
	for _, v := range list {
		e, ok := jsonv.AsObject(v)
		if !ok {
			return nil, false, &Error{path, "an entry is not an object"}
		}
		result, ok1 := e.GetString("result")
		ts, ok2 := e.GetString("consensus_timestamp")
		sv, _ := e.Get("scheduled")
		nv, _ := e.Get("nonce")
		nonce, ok3 := jsonv.AsSafeInt(nv)
		mv, _ := e.Get("memo_base64")
		memo, isString := mv.(string)
		if !ok1 || !ok2 || !ok3 || (sv != true && sv != false) || (mv != nil && !isString) {
			return nil, false, &Error{path, "an entry lacks result, consensus_timestamp, nonce, scheduled or memo_base64"}
		}
		transfers, ok := transfersOf(e)
		if !ok {
			return nil, false, &Error{path, "an entry's transfers are not a list of at most 64 {account, amount}"}
		}
		out = append(out, hedera.Entry{Result: result, MemoBase64: memo, Nonce: nonce, Scheduled: sv == true, Consensus: ts,
			Transfers: transfers})
	}
	return out, true, nil
}

// transfersOf reads an entry's optional transfers: [{account, amount}],
// at most MaxEntries, accounts entity ids, amounts safe integers.
func transfersOf(e *jsonv.Object) ([]hedera.Transfer, bool) {
	v, has := e.Get("transfers")
	if !has || v == nil {
		return nil, true
	}
	list, ok := jsonv.AsArray(v)
	if !ok || len(list) > MaxEntries {
		return nil, false
	}
	out := make([]hedera.Transfer, 0, len(list))
	for _, t := range list {
		o, ok := jsonv.AsObject(t)
		if !ok {
			return nil, false
		}
		a, _ := o.GetString("account")
		acct, okA := hedera.ParseEntity(a)
		av, _ := o.Get("amount")
		f, okN := av.(jsonv.Number)
		// A debit is negative: a safe integer of either sign.
		if !okA || !okN || float64(f) != math.Trunc(float64(f)) || math.Abs(float64(f)) > jsonv.MaxSafeInteger {
			return nil, false
		}
		out = append(out, hedera.Transfer{Account: acct, Amount: int64(f)})
	}
	return out, true
}

// Node is the first node account /api/v1/network/nodes lists.
func (c *Client) Node(ctx context.Context) (string, error) {
	const path = "/api/v1/network/nodes?limit=1"
	o, found, err := c.get(ctx, path)
	if err != nil {
		return "", err
	}
	lv, _ := o.Get("nodes")
	list, _ := jsonv.AsArray(lv)
	if !found || len(list) == 0 {
		return "", &Error{path, "no node listed"}
	}
	n, _ := jsonv.AsObject(list[0])
	id, _ := n.GetString("node_account_id")
	if _, ok := hedera.ParseEntity(id); !ok {
		return "", &Error{path, "node_account_id is not an entity id"}
	}
	return id, nil
}

// Decimals is a token's decimals from /api/v1/tokens/{id} (a decimal
// string in the answer).
func (c *Client) Decimals(ctx context.Context, token string) (int64, error) {
	if _, ok := hedera.ParseEntity(token); !ok {
		return 0, &Error{"/api/v1/tokens", "not an entity id"}
	}
	path := "/api/v1/tokens/" + token
	o, found, err := c.get(ctx, path)
	if err != nil {
		return 0, err
	}
	s, _ := o.GetString("decimals")
	d, perr := strconv.ParseUint(s, 10, 32)
	if !found || perr != nil {
		return 0, &Error{path, "no decimals"}
	}
	return int64(d), nil
}

// Inputs are the buyer's inputs for a body paying asset: the node, the fee
// cap DefaultMaxFee, the valid start (now, from the caller's clock) and,
// for a token, its decimals.
func (c *Client) Inputs(ctx context.Context, asset string, now int64) (*jsonv.Object, error) {
	node, err := c.Node(ctx)
	if err != nil {
		return nil, err
	}
	in := jsonv.Obj("node", node, "maxFee", DefaultMaxFee, "validStart", jsonv.Obj("seconds", strconv.FormatInt(now, 10), "nanos", 0))
	if asset != hedera.HBAR {
		d, err := c.Decimals(ctx, asset)
		if err != nil {
			return nil, err
		}
		in.Set("decimals", jsonv.Number(d))
	}
	return in, nil
}
