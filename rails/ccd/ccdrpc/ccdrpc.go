// Package ccdrpc reads a Concordium node's gRPC v2 API
// (https://github.com/Concordium/concordium-grpc-api, v2/concordium/service.proto)
// for what the payer's wallet needs, the sender's next nonce and a token's
// decimals, and for a payment's status, its block item's (status.go). It
// speaks gRPC-web (binary protobuf over HTTP/1.1, which nodes serve with
// --grpc2-enable-grpc-web) with a small protobuf codec on
// google.golang.org/protobuf's protowire, so the wallet needs no gRPC
// runtime and no HTTP/2 client of its own.
package ccdrpc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Bounds on what the client reads.
const (
	MaxAnswer  = 1 << 16 // bytes of one answer, frames included
	maxDecimal = 255
)

// Client calls one network's node. HTTP is http.DefaultClient when nil.
type Client struct {
	URL  string // the node's gRPC-web base, e.g. https://grpc.testnet.concordium.com:20000
	Net  string // ccd:<genesis hash's first 16 bytes in hex>
	HTTP *http.Client
}

// Network is the network the client was made for.
func (c *Client) Network() string { return c.Net }

// Error is a failed call: the method and what went wrong; Status is the
// node's grpc-status when it answered one other than 0 (5 is NOT_FOUND).
type Error struct {
	Method, Detail string
	Status         string
}

func (e *Error) Error() string { return "ccdrpc: " + e.Method + ": " + e.Detail }

// frame is one gRPC-web data frame around msg.
func frame(msg []byte) []byte {
	b := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(b[1:], uint32(len(msg)))
	return append(b, msg...)
}

// call posts msg to concordium.v2.Queries/method and returns the one data
// frame's message, once the trailer's grpc-status is 0.
func (c *Client) call(ctx context.Context, method string, msg []byte) ([]byte, error) {
	fail := func(format string, a ...any) error { return &Error{Method: method, Detail: fmt.Sprintf(format, a...)} }
	u, err := url.Parse(strings.TrimSuffix(c.URL, "/") + "/concordium.v2.Queries/" + method)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" {
		return nil, fail("the node's URL %q is not http(s)", c.URL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(frame(msg)))
	if err != nil {
		return nil, fail("%v", err)
	}
	req.Header.Set("Content-Type", "application/grpc-web+proto")
	req.Header.Set("X-Grpc-Web", "1")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fail("%v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	if err != nil {
		return nil, fail("reading the answer: %v", err)
	}
	if len(body) > MaxAnswer {
		return nil, fail("the answer is longer than %d bytes", MaxAnswer)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fail("HTTP %d", resp.StatusCode)
	}
	// A failure with no message comes in the headers alone.
	if s := resp.Header.Get("Grpc-Status"); s != "" && s != "0" {
		return nil, &Error{Method: method, Status: s, Detail: fmt.Sprintf("grpc-status %s: %s", s, resp.Header.Get("Grpc-Message"))}
	}
	var data []byte
	seenData, status := false, ""
	for len(body) > 0 {
		if len(body) < 5 {
			return nil, fail("a truncated frame")
		}
		flag, n := body[0], binary.BigEndian.Uint32(body[1:5])
		if uint64(n) > uint64(len(body)-5) {
			return nil, fail("a truncated frame")
		}
		payload := body[5 : 5+n]
		body = body[5+n:]
		switch {
		case flag == 0 && !seenData && status == "":
			data, seenData = payload, true
		case flag == 0x80 && status == "":
			status = trailerStatus(payload)
			if status == "" {
				return nil, fail("a trailer without grpc-status")
			}
			if status != "0" {
				return nil, &Error{Method: method, Status: status, Detail: fmt.Sprintf("grpc-status %s: %s", status, trailer(payload, "grpc-message"))}
			}
		default:
			return nil, fail("an unexpected frame (flag %#x)", flag)
		}
	}
	if status == "" {
		return nil, fail("no trailer")
	}
	if !seenData {
		return nil, fail("no message")
	}
	return data, nil
}

func trailerStatus(t []byte) string { return trailer(t, "grpc-status") }

// trailer is one header's value in a trailer frame (HTTP/1 header lines).
func trailer(t []byte, name string) string {
	for _, line := range strings.Split(string(t), "\r\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

var errMessage = errors.New("not the message the method answers")

// fields reads a protobuf message's fields: for each number its last
// value (varint) or bytes (length-delimited), refusing other wire types
// where a field is known and malformed input anywhere.
type fields struct {
	varints map[protowire.Number]uint64
	bytes   map[protowire.Number][]byte
	counts  map[protowire.Number]int // occurrences of each length-delimited field
}

func parse(b []byte) (fields, error) {
	f := fields{varints: map[protowire.Number]uint64{}, bytes: map[protowire.Number][]byte{}, counts: map[protowire.Number]int{}}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return f, errMessage
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return f, errMessage
			}
			f.varints[num], b = v, b[m:]
		case protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return f, errMessage
			}
			f.bytes[num], b = v, b[m:]
			f.counts[num]++
		default:
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return f, errMessage
			}
			b = b[m:]
		}
	}
	return f, nil
}

// NextNonce calls GetNextAccountSequenceNumber(AccountAddress{value}):
// NextAccountSequenceNumber{sequence_number: SequenceNumber{value}}.
func (c *Client) NextNonce(ctx context.Context, account []byte) (uint64, error) {
	const method = "GetNextAccountSequenceNumber"
	if len(account) != 32 {
		return 0, &Error{Method: method, Detail: "an account is 32 bytes"}
	}
	ans, err := c.call(ctx, method, protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), account))
	if err != nil {
		return 0, err
	}
	top, err := parse(ans)
	if err != nil {
		return 0, &Error{Method: method, Detail: err.Error()}
	}
	seq, ok := top.bytes[1]
	if !ok {
		return 0, &Error{Method: method, Detail: "no sequence_number"}
	}
	inner, err := parse(seq)
	if err != nil {
		return 0, &Error{Method: method, Detail: err.Error()}
	}
	// Sequence numbers start at 1: 0 (the field absent) is no answer.
	n := inner.varints[1]
	if n == 0 {
		return 0, &Error{Method: method, Detail: "sequence number 0"}
	}
	return n, nil
}

// TokenDecimals calls GetTokenInfo(TokenInfoRequest{block_hash: {last_final},
// token_id: {value}}): TokenInfo{token_state: TokenState{decimals: 3}}.
// The token named in the answer must be the one asked for.
func (c *Client) TokenDecimals(ctx context.Context, tokenID string) (uint8, error) {
	const method = "GetTokenInfo"
	if tokenID == "" || len(tokenID) > 128 {
		return 0, &Error{Method: method, Detail: "a token id is 1 to 128 bytes"}
	}
	var req []byte
	// block_hash = BlockHashInput{last_final: Empty} (field 2 of the oneof).
	req = protowire.AppendTag(req, 1, protowire.BytesType)
	req = protowire.AppendBytes(req, protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), nil))
	req = protowire.AppendTag(req, 2, protowire.BytesType)
	req = protowire.AppendBytes(req, protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), tokenID))
	ans, err := c.call(ctx, method, req)
	if err != nil {
		return 0, err
	}
	top, err := parse(ans)
	if err != nil {
		return 0, &Error{Method: method, Detail: err.Error()}
	}
	id, err := parse(top.bytes[1])
	if err != nil || string(id.bytes[1]) != tokenID {
		return 0, &Error{Method: method, Detail: "the answer names another token"}
	}
	st, ok := top.bytes[2]
	if !ok {
		return 0, &Error{Method: method, Detail: "no token_state"}
	}
	state, err := parse(st)
	if err != nil {
		return 0, &Error{Method: method, Detail: err.Error()}
	}
	d := state.varints[3]
	if d > maxDecimal {
		return 0, &Error{Method: method, Detail: fmt.Sprintf("decimals %d", d)}
	}
	return uint8(d), nil
}
