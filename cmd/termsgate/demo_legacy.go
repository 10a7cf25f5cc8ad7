package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/internal/demo"
	"github.com/termsgate/termsgate/jsonv"
)

// demoATR is the demo sellers' terms (internal/demo.ATR).
var demoATR = demo.ATR

type countingSigner struct {
	gate.Signer
	n int
}

func (c *countingSigner) Sign(ctx context.Context, req *jsonv.Object) (jsonv.Value, error) {
	c.n++
	return c.Signer.Sign(ctx, req)
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}

func path(v jsonv.Value, keys ...string) jsonv.Value { return demo.Path(v, keys...) }

// demoPrinters are a row's two outputs: say writes a line of the story;
// fail ends the row with an error made of a, wrapping the last one when it
// is an error (so that a decline stays a decline).
func demoPrinters(s *demo.Session) (say func(format string, a ...any), fail func(a ...any) error) {
	fail = func(a ...any) error {
		if len(a) > 0 {
			if err, ok := a[len(a)-1].(error); ok {
				return fmt.Errorf("%s %w", strings.TrimSpace(fmt.Sprintln(a[:len(a)-1]...)), err)
			}
		}
		return errors.New(strings.TrimSpace(fmt.Sprintln(a...)))
	}
	return s.Say, fail
}
