package demo

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// ATR is the shared vectors' record A (buyer.json): 138 bytes the gate never
// parses, only hashes. Every row's seller publishes it.
var ATR = mustHex("7b2261747256657273696f6e223a2231222c226964223a2230663866616435622d643963622d343639662d613136352d373038363737323839353065222c2278343032223a7b227a223a312e302c2261223a226361665c7530306539227d2c2273656c6c6572223a7b226e6f7465223a22436166c3a920e280942033302064c3ad617320e29c93227d7d")

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// Changed is b with one more byte: other terms, whose hash differs, that a
// lying seller serves at the link while its offer still advertises the hash
// of b.
func Changed(b []byte) []byte { return append(append([]byte(nil), b...), ' ') }

// Counting is a signer that counts its calls, so that a row can say how many
// signatures each step took (none, for a decline).
type Counting struct {
	rails.Signer
	n atomic.Int64
}

// Count wraps s.
func Count(s rails.Signer) *Counting { return &Counting{Signer: s} }

// Sign counts the call and passes it on.
func (c *Counting) Sign(ctx context.Context, req rails.Request) (jsonv.Value, error) {
	c.n.Add(1)
	return c.Signer.Sign(ctx, req)
}

// Calls is how many times Sign was called.
func (c *Counting) Calls() int { return int(c.n.Load()) }

// KeepPayment keeps what `termsgate inspect` and the step commands read: the
// terms' exact bytes as "atr", the seller's offer as its 402 header carried
// it as "offer", and the payment (an x402 payment or an MPP credential) as
// JSON in "payment".
func (s *Session) KeepPayment(atrBytes []byte, offer string, payment jsonv.Value) error {
	if err := s.Keep("atr", atrBytes); err != nil {
		return err
	}
	if err := s.Keep("offer", []byte(offer+"\n")); err != nil {
		return err
	}
	return s.Keep("payment", append(jsonv.Marshal(payment), '\n'))
}

// Read reads a demo response's body (at most 64 KiB) and closes it.
func Read(resp *http.Response) []byte {
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return b
}

// Get sends GET url with the header name: value when value is not "", and
// returns the response with its body read.
func Get(ctx context.Context, c *http.Client, url, name, value string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	if value != "" {
		req.Header.Set(name, value)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	return resp, Read(resp), nil
}

// Path is the value at keys inside v, nil when any step is missing.
func Path(v jsonv.Value, keys ...string) jsonv.Value {
	for _, k := range keys {
		o, ok := jsonv.AsObject(v)
		if !ok {
			return nil
		}
		v, _ = o.Get(k)
	}
	return v
}

// Amount says an amount for a closing line: "0.01 USDC (10000 atomic units)
// on eip155:84532". decimals < 0 leaves the atomic units alone.
func Amount(atomic string, decimals int, symbol, network string) string {
	whole := atomic
	if decimals > 0 {
		for len(whole) <= decimals {
			whole = "0" + whole
		}
		cut := len(whole) - decimals
		frac := strings.TrimRight(whole[cut:], "0")
		whole = whole[:cut]
		if frac != "" {
			whole += "." + frac
		}
	}
	if decimals < 0 {
		return fmt.Sprintf("%s atomic units of %s on %s", atomic, symbol, network)
	}
	return fmt.Sprintf("%s %s (%s atomic units) on %s", whole, symbol, atomic, network)
}

// Fail is a row's error made of words and, last, the cause, which it keeps
// (errors.As finds a decline in it, so the row exits 1 for a decline and 3
// for anything else): Fail("the seller refused it:", err).
func Fail(a ...any) error {
	if len(a) > 0 {
		if err, ok := a[len(a)-1].(error); ok {
			return fmt.Errorf("%s %w", strings.TrimSpace(fmt.Sprintln(a[:len(a)-1]...)), err)
		}
	}
	return errors.New(strings.TrimSpace(fmt.Sprintln(a...)))
}

// MPPOffer makes the unpaid request to url and reads its 402's MPP
// challenges as pairing offers them: the answer, the challenge list, the
// gate's reading of it.
func MPPOffer(ctx context.Context, c *http.Client, g *gate.Gate, url, pairing string) (*http.Response, []jsonv.Value, *gate.Offer, error) {
	resp, _, err := Get(ctx, c, url, "", "")
	if err != nil {
		return nil, nil, nil, err
	}
	doc, err := mpp.ChallengesFromHeader(resp.Header)
	if err != nil {
		return nil, nil, nil, Fail("the seller's WWW-Authenticate:", err)
	}
	offer, err := g.Read(doc, pairing)
	if err != nil {
		return nil, nil, nil, err
	}
	return resp, doc, offer, nil
}
