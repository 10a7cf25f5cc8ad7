// Package xrplrpc gives the XRPL pairings their buyer inputs from a rippled
// JSON-RPC endpoint: the fee (method fee), the account's next sequence
// (account_info) and the current ledger (ledger_current), from which the
// last ledger the transaction may land in is set. Methods and answers as
// https://xrpl.org/docs/references/http-websocket-apis/public-api-methods
// documents them.
package xrplrpc

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/restjson"
	"github.com/termsgate/termsgate/rails/xrpl"
)

// Defaults of a Client.
const (
	DefaultMaxFee       = 1000 // drops: refuse to pay a fee above this without being told
	DefaultLedgerWindow = 20   // ledgers after the current one the transaction may land in
	// LedgerInterval bounds how long one ledger takes to close when
	// validUntil is estimated: the XRP Ledger closes one every 3 to 5
	// seconds, so 10 s leaves room for a slow network.
	LedgerInterval = 10 * time.Second
	maxAnswer      = 1 << 20
)

// Client asks one rippled JSON-RPC endpoint.
type Client struct {
	URL          string
	HTTP         *http.Client // nil: http.DefaultClient
	MaxFee       uint64       // 0: DefaultMaxFee
	LedgerWindow uint32       // 0: DefaultLedgerWindow
	Now          func() time.Time
}

// Error is a failed call: the method, and what went wrong (a transport
// failure, a status, an unreadable answer, or rippled's error code).
type Error struct {
	Method string
	Detail string
}

func (e *Error) Error() string { return "xrplrpc: " + e.Method + ": " + e.Detail }

// call posts {method, params: [params]} and returns result when its status
// is "success".
func (c *Client) call(ctx context.Context, method string, params *jsonv.Object) (*jsonv.Object, error) {
	result, err := c.answer(ctx, method, params)
	if err != nil {
		return nil, err
	}
	if s, _ := result.GetString("status"); s != "success" {
		code, _ := result.GetString("error")
		msg, _ := result.GetString("error_message")
		return nil, &Error{Method: method, Detail: fmt.Sprintf("rippled error %q: %s", code, msg)}
	}
	return result, nil
}

// answer posts {method, params: [params]} and returns the answer's result
// object, whatever its status.
func (c *Client) answer(ctx context.Context, method string, params *jsonv.Object) (*jsonv.Object, error) {
	fail := func(format string, a ...any) error { return &Error{Method: method, Detail: fmt.Sprintf(format, a...)} }
	body := jsonv.Marshal(jsonv.Obj("method", method, "params", []jsonv.Value{params}))
	// The endpoint is the whole URL, posted to as given: no Base to join.
	v, err := restjson.Client{HTTP: c.HTTP, Max: maxAnswer}.Do(ctx, http.MethodPost, c.URL, "application/json", body)
	if e, ok := err.(*restjson.Error); ok {
		return nil, fail("%s", e.Detail)
	}
	if v == nil {
		return nil, fail("status %d", http.StatusNotFound)
	}
	o, _ := jsonv.AsObject(v)
	result, ok := o.GetObject("result")
	if !ok {
		return nil, fail("answer has no result object")
	}
	return result, nil
}

func u32Of(o *jsonv.Object, k string) (uint32, bool) {
	v, _ := o.Get(k)
	n, ok := jsonv.AsSafeInt(v)
	if !ok || n < 0 || n > 1<<32-1 {
		return 0, false
	}
	return uint32(n), true
}

// Fee is the fee to offer, in drops: the open ledger's fee when above the
// base fee, refused above MaxFee.
func (c *Client) Fee(ctx context.Context) (string, error) {
	r, err := c.call(ctx, "fee", jsonv.Obj())
	if err != nil {
		return "", err
	}
	drops, _ := r.GetObject("drops")
	base, err1 := strconv.ParseUint(mustString(drops, "base_fee"), 10, 64)
	open, err2 := strconv.ParseUint(mustString(drops, "open_ledger_fee"), 10, 64)
	if err1 != nil || err2 != nil {
		return "", &Error{Method: "fee", Detail: "drops.base_fee or drops.open_ledger_fee is not a decimal"}
	}
	fee := max(base, open)
	limit := c.MaxFee
	if limit == 0 {
		limit = DefaultMaxFee
	}
	if fee == 0 || fee > limit {
		return "", &Error{Method: "fee", Detail: fmt.Sprintf("the fee asked, %d drops, is not within 1…%d", fee, limit)}
	}
	return strconv.FormatUint(fee, 10), nil
}

func mustString(o *jsonv.Object, k string) string { s, _ := o.GetString(k); return s }

// Sequence is account's next sequence in the current ledger.
func (c *Client) Sequence(ctx context.Context, account string) (uint32, error) {
	r, err := c.call(ctx, "account_info", jsonv.Obj("account", account, "ledger_index", "current"))
	if err != nil {
		return 0, err
	}
	data, _ := r.GetObject("account_data")
	if a, _ := data.GetString("Account"); a != account {
		return 0, &Error{Method: "account_info", Detail: "account_data is for another account"}
	}
	seq, ok := u32Of(data, "Sequence")
	if !ok {
		return 0, &Error{Method: "account_info", Detail: "account_data.Sequence is not a u32"}
	}
	return seq, nil
}

// LedgerCurrent is the index of the ledger in progress.
func (c *Client) LedgerCurrent(ctx context.Context) (uint32, error) {
	r, err := c.call(ctx, "ledger_current", jsonv.Obj())
	if err != nil {
		return 0, err
	}
	n, ok := u32Of(r, "ledger_current_index")
	if !ok {
		return 0, &Error{Method: "ledger_current", Detail: "ledger_current_index is not a u32"}
	}
	return n, nil
}

// Session are the channel terms a session opening needs beyond the ledger's
// inputs: the deposit in drops, the channel key and the settle delay.
type Session struct {
	Deposit     string
	PublicKey   []byte
	SettleDelay uint32
}

// Inputs are the buyer inputs of pairing for account (a classic address):
// {fee, sequence, lastLedgerSequence, validUntil} for x402/exact/xrpl and
// mpp/charge/xrpl; {deposit, xrpl: {publicKey, settleDelay, fee, sequence,
// lastLedgerSequence}, validUntil} for mpp/session/xrpl, which needs
// session.
func (c *Client) Inputs(ctx context.Context, pairing, account string, session *Session) (*jsonv.Object, error) {
	switch pairing {
	case xrpl.ExactID, xrpl.ChargeID, xrpl.SessionID:
	default:
		return nil, fmt.Errorf("xrplrpc: %s is not an XRPL pairing", pairing)
	}
	if pairing == xrpl.SessionID && (session == nil || len(session.PublicKey) == 0 || session.Deposit == "") {
		return nil, errors.New("xrplrpc: a session opening needs its deposit and channel key")
	}
	fee, err := c.Fee(ctx)
	if err != nil {
		return nil, err
	}
	seq, err := c.Sequence(ctx, account)
	if err != nil {
		return nil, err
	}
	current, err := c.LedgerCurrent(ctx)
	if err != nil {
		return nil, err
	}
	window := c.LedgerWindow
	if window == 0 {
		window = DefaultLedgerWindow
	}
	if current > 1<<32-1-window {
		return nil, &Error{Method: "ledger_current", Detail: "the ledger index leaves no room for a last ledger"}
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	// The last ledger closes, at LedgerInterval a ledger, by validUntil: the
	// deadline a spend policy judges (docs/xrpl.md "Deadlines").
	until := now().Add(time.Duration(window+1) * LedgerInterval).Unix()
	terms := jsonv.Obj("fee", fee, "sequence", jsonv.Number(seq), "lastLedgerSequence", jsonv.Number(current+window))
	if pairing != xrpl.SessionID {
		terms.Set("validUntil", jsonv.Number(until))
		return terms, nil
	}
	x := jsonv.Obj("publicKey", "0x"+hex.EncodeToString(session.PublicKey), "settleDelay", jsonv.Number(session.SettleDelay))
	for _, m := range terms.Members() {
		x.Set(m.Key, m.Value)
	}
	return jsonv.Obj("deposit", session.Deposit, "xrpl", x, "validUntil", jsonv.Number(until)), nil
}

// Inputs adapts a Client to pay.Transport.Inputs, which has no context and
// no error: each call asks the endpoint within timeout, and a failure gives
// no inputs (the payment then declines, the pairing's input-missing) and is
// kept for Err.
type Inputs struct {
	Client  *Client
	Account string // the payer's classic address
	Session *Session
	Timeout time.Duration // 0: 10 s

	mu   sync.Mutex
	last error
}

// For is the pay.Transport.Inputs function.
func (in *Inputs) For(pairing string) *jsonv.Object {
	t := in.Timeout
	if t == 0 {
		t = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), t)
	defer cancel()
	o, err := in.Client.Inputs(ctx, pairing, in.Account, in.Session)
	in.mu.Lock()
	in.last = err
	in.mu.Unlock()
	if err != nil {
		return nil
	}
	return o
}

// Err is the last call's error, nil when it gave inputs.
func (in *Inputs) Err() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.last
}
