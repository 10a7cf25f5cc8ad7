package sorobanrpc

// The settlement reads: getTransaction (status, envelopeXdr, ledger),
// getEvents over SEP-41 transfer events (contract filter, topic filter,
// cursor pagination) and getLatestLedger, in the shapes of
// https://developers.stellar.org/docs/data/apis/rpc/api-reference/methods;
// Reader adapts them to stellar.Reader.

import (
	"context"
	"encoding/hex"
	"strings"
	"time"

	"github.com/termsgate/termsgate/rails/stellar"
)

// EventsPageLimit is the events asked per getEvents page; a page with fewer
// is the last.
const EventsPageLimit = 100

// Transaction is getTransaction of hash (64 hex digits). SUCCESS and
// FAILED answers must carry their ledger, and envelopeXdr at most
// MaxEnvelopeChars; an answer naming another txHash, or another status, is
// an error.
func (c *Client) Transaction(ctx context.Context, hash string) (stellar.Landed, error) {
	if _, err := hex.DecodeString(hash); err != nil || len(hash) != 64 {
		return stellar.Landed{}, &Error{"getTransaction", "the hash is not 64 hex digits"}
	}
	var r struct {
		Status   *string `json:"status"`
		Envelope *string `json:"envelopeXdr"`
		Ledger   *uint32 `json:"ledger"`
		TxHash   *string `json:"txHash"`
	}
	if err := c.call(ctx, "getTransaction", map[string]any{"hash": strings.ToLower(hash)}, &r); err != nil {
		return stellar.Landed{}, err
	}
	bad := func(what string) (stellar.Landed, error) { return stellar.Landed{}, &Error{"getTransaction", what} }
	if r.Status == nil {
		return bad("no status")
	}
	if r.TxHash != nil && !strings.EqualFold(*r.TxHash, hash) {
		return bad("the answer is for another transaction")
	}
	l := stellar.Landed{Status: *r.Status, Ledger: -1}
	switch l.Status {
	case stellar.TxNotFound:
		return l, nil
	case stellar.TxSuccess, stellar.TxFailed:
	default:
		return bad("status " + l.Status + " is none of SUCCESS, FAILED, NOT_FOUND")
	}
	if r.Ledger == nil {
		return bad("a landed transaction without its ledger")
	}
	l.Ledger = int64(*r.Ledger)
	// Without envelopeXdr the answer names the transaction but shows none
	// of it: Envelope stays "", which no reader takes for a payment.
	if r.Envelope != nil {
		if len(*r.Envelope) > stellar.MaxEnvelopeChars {
			return bad("envelopeXdr longer than an envelope")
		}
		l.Envelope = *r.Envelope
	}
	return l, nil
}

// Transfers is one page of getEvents: the asset contract's transfer events
// to q.ToBase (stellar.TransferEventTopics) in q.FromLedger…q.ToLedger,
// EventsPageLimit at a time. Each event is read with stellar.TransferEventOf;
// an event of another contract, another recipient, or malformed is an
// error (the node did not answer the filter); events of failed contract
// calls are left out.
func (c *Client) Transfers(ctx context.Context, q stellar.Transfers) (stellar.TransferPage, error) {
	topics, err := stellar.TransferEventTopics(q.ToBase)
	if err != nil {
		return stellar.TransferPage{}, &Error{"getEvents", "toBase is no account or contract"}
	}
	params := map[string]any{
		"filters":    []any{map[string]any{"type": "contract", "contractIds": []string{q.Asset}, "topics": [][]string{topics}}},
		"pagination": map[string]any{"limit": EventsPageLimit},
	}
	if q.Cursor != "" {
		params["pagination"] = map[string]any{"limit": EventsPageLimit, "cursor": q.Cursor}
	} else {
		params["startLedger"] = q.FromLedger
		params["endLedger"] = uint64(q.ToLedger) + 1 // exclusive
	}
	var r struct {
		Events *[]struct {
			ContractID *string  `json:"contractId"`
			TxHash     *string  `json:"txHash"`
			Topic      []string `json:"topic"`
			Value      *string  `json:"value"`
			Successful *bool    `json:"inSuccessfulContractCall"`
		} `json:"events"`
		Cursor       string  `json:"cursor"`
		OldestLedger *uint32 `json:"oldestLedger"`
	}
	if err := c.call(ctx, "getEvents", params, &r); err != nil {
		return stellar.TransferPage{}, err
	}
	bad := func(what string) (stellar.TransferPage, error) {
		return stellar.TransferPage{}, &Error{"getEvents", what}
	}
	if r.Events == nil || r.OldestLedger == nil || len(*r.Events) > EventsPageLimit {
		return bad("no events, no oldestLedger, or more events than asked")
	}
	p := stellar.TransferPage{OldestLedger: int64(*r.OldestLedger)}
	for _, ev := range *r.Events {
		if ev.ContractID == nil || *ev.ContractID != q.Asset || ev.TxHash == nil || ev.Value == nil {
			return bad("an event of another contract, or without txHash or value")
		}
		e, err := stellar.TransferEventOf(ev.Topic, *ev.Value)
		if err != nil || e.ToBase != q.ToBase {
			return bad("an event that is no transfer to the recipient asked")
		}
		if ev.Successful != nil && !*ev.Successful {
			continue
		}
		e.TxHash = strings.ToLower(*ev.TxHash)
		p.Events = append(p.Events, e)
	}
	if len(*r.Events) == EventsPageLimit {
		if r.Cursor == "" {
			return bad("a full page without a cursor")
		}
		p.Cursor = r.Cursor
	}
	return p, nil
}

// Reader is a stellar.Reader over a Client for one network; each read is
// bounded by Timeout (0: 10 s).
type Reader struct {
	Client  *Client
	Of      string // stellar:pubnet or stellar:testnet
	Timeout time.Duration
}

func (r Reader) ctx() (context.Context, context.CancelFunc) {
	t := r.Timeout
	if t == 0 {
		t = 10 * time.Second
	}
	return context.WithTimeout(context.Background(), t)
}

// Network is the network read.
func (r Reader) Network() string { return r.Of }

// Transaction is Client.Transaction within the timeout.
func (r Reader) Transaction(hash string) (stellar.Landed, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Client.Transaction(ctx, hash)
}

// Transfers is Client.Transfers within the timeout.
func (r Reader) Transfers(q stellar.Transfers) (stellar.TransferPage, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Client.Transfers(ctx, q)
}

// LatestLedger is Client.LatestLedger within the timeout.
func (r Reader) LatestLedger() (int64, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	n, err := r.Client.LatestLedger(ctx)
	return int64(n), err
}
