// Package restjson is the bounded JSON-over-HTTP call the rails' REST input
// providers share (rails/aptos/aptosrpc, rails/cardano/cardanorpc,
// rails/stacks/stacksrpc, rails/tron/tronrpc, rails/algorand/algod,
// rails/tvm/tvmrpc, and rails/xrpl/xrplrpc's rippled POSTs): one
// request, an answer of at most MaxAnswer bytes read as JSON, a 404 read as
// "not there", any other status an error carrying the node's own message.
package restjson

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/termsgate/termsgate/jsonv"
)

// MaxAnswer bounds one answer.
const MaxAnswer = 1 << 20

// maxMessage bounds the node's message kept in an error.
const maxMessage = 200

// Error is a failed call: the path and what went wrong; Status is the HTTP
// status when the node answered one. The callers give it their own type.
type Error struct {
	Path, Detail string
	Status       int
}

func (e *Error) Error() string { return e.Path + ": " + e.Detail }

// Client calls one node.
type Client struct {
	Base   string       // the node's base URL; paths follow it
	HTTP   *http.Client // nil: http.DefaultClient
	Header http.Header  // sent with every request (Accept, an API key)
	// OK are the statuses besides 200 that carry an answer (202 Accepted).
	OK []int
	// Max bounds one answer in bytes; 0 is MaxAnswer.
	Max int
}

// Do sends one request, body with contentType when body is not nil, and
// reads its JSON answer; a 404 is (nil, nil).
func (c Client) Do(ctx context.Context, method, path, contentType string, body []byte) (jsonv.Value, error) {
	fail := func(status int, format string, a ...any) error {
		return &Error{Path: path, Detail: fmt.Sprintf(format, a...), Status: status}
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.Base, "/")+path, rd)
	if err != nil {
		return nil, fail(0, "%v", err)
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fail(0, "%v", err)
	}
	defer resp.Body.Close()
	limit := c.Max
	if limit <= 0 {
		limit = MaxAnswer
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return nil, fail(resp.StatusCode, "%v", err)
	}
	if len(raw) > limit {
		return nil, fail(resp.StatusCode, "answer longer than %d bytes", limit)
	}
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if !c.answers(resp.StatusCode) {
		msg := ""
		if v, err := jsonv.Parse(raw); err == nil {
			if o, ok := jsonv.AsObject(v); ok {
				msg, _ = o.GetString("message")
			}
		}
		if len(msg) > maxMessage {
			msg = msg[:maxMessage]
		}
		if msg == "" {
			return nil, fail(resp.StatusCode, "status %d", resp.StatusCode)
		}
		return nil, fail(resp.StatusCode, "status %d %s", resp.StatusCode, msg)
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		return nil, fail(resp.StatusCode, "answer is not JSON: %v", err)
	}
	return v, nil
}

func (c Client) answers(status int) bool {
	if status == http.StatusOK {
		return true
	}
	for _, s := range c.OK {
		if s == status {
			return true
		}
	}
	return false
}

// Object GETs path and reads its answer as an object; a 404 is an Error
// with Status 404.
func (c Client) Object(ctx context.Context, path string) (*jsonv.Object, error) {
	v, err := c.Do(ctx, http.MethodGet, path, "", nil)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, &Error{Path: path, Detail: "not found", Status: http.StatusNotFound}
	}
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, &Error{Path: path, Detail: "answer is not an object"}
	}
	return o, nil
}

// U64 reads a decimal string of a u64 without leading zeros, or a
// non-negative safe integer (nodes write u64 quantities either way).
func U64(v jsonv.Value) (uint64, bool) {
	if s, ok := v.(string); ok {
		if s == "" || len(s) > 20 || len(s) > 1 && s[0] == '0' {
			return 0, false
		}
		n, err := strconv.ParseUint(s, 10, 64)
		return n, err == nil
	}
	n, ok := jsonv.AsSafeInt(v)
	return uint64(n), ok && n >= 0
}
