package agreement

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/termsgate/termsgate/atr"
)

// answer is one agreement URL response, or none (answered false: a transport
// failure or a deadline).
type answer struct {
	answered   bool
	status     int
	required   string // the PAYMENT-REQUIRED header
	retryAfter string
	body       []byte // only for a 200
	err        error  // why there was no answer
}

// get sends one GET to the agreement URL, with the PAYMENT-SIGNATURE header
// when payment is not empty. Redirects are never followed; a 200 or 402 in a
// content coding other than identity is refused with its body unread; a
// non-200 body is never read; a 200 body is read up to 64 KiB.
func (x *Exchange) get(ctx context.Context, url, payment string, deadline time.Duration) (answer, *Failure) {
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return answer{err: err}, nil
	}
	req.Header = http.Header{"Accept-Encoding": {"identity"}}
	if payment != "" {
		req.Header["Payment-Signature"] = []string{payment}
	}
	resp, err := x.doer().Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("agreement: no answer within %v: %w", deadline, err)
		}
		return answer{err: err}, nil
	}
	defer resp.Body.Close()
	if ctx.Err() != nil {
		return answer{err: fmt.Errorf("agreement: no whole answer within %v: %w", deadline, ctx.Err())}, nil // a response that raced the deadline is no answer
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		return answer{}, &Failure{Code: CodeFailed, Detail: DetailRedirect,
			Err: fmt.Errorf("agreement: %s answered %d to %q (redirects are not followed)", url, resp.StatusCode, resp.Header.Get("Location"))}
	}
	a := answer{
		answered:   true,
		status:     resp.StatusCode,
		required:   resp.Header.Get("Payment-Required"),
		retryAfter: resp.Header.Get("Retry-After"),
	}
	if a.status == 200 || a.status == 402 {
		coding := strings.ToLower(strings.TrimSpace(strings.Join(resp.Header.Values("Content-Encoding"), ", ")))
		if coding != "" && coding != "identity" || resp.Uncompressed {
			return answer{}, &Failure{Code: CodeFailed, Detail: DetailCoding}
		}
	}
	if a.status != 200 {
		return a, nil
	}
	if cl := strings.TrimSpace(resp.Header.Get("Content-Length")); cl != "" && strings.Trim(cl, "0123456789") == "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err != nil || n > MaxReceiptBytes {
			return answer{}, &Failure{Code: CodeFailed, Detail: DetailReceiptTooLarge}
		}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxReceiptBytes+1))
	if err != nil || ctx.Err() != nil {
		return answer{}, nil
	}
	if len(body) > MaxReceiptBytes {
		return answer{}, &Failure{Code: CodeFailed, Detail: DetailReceiptTooLarge}
	}
	a.body = body
	return a, nil
}

// doer is the caller's client, copied so that it follows no redirect and
// sends no cookie.
func (x *Exchange) doer() atr.Doer {
	d := x.Client
	if d == nil {
		d = publicClient()
	}
	if c, ok := d.(*http.Client); ok && c != nil {
		cc := *c
		cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		cc.Jar = nil
		return &cc
	}
	return d
}

var publicClient = sync.OnceValue(func() *http.Client { return atr.NewClient(false) })

var retryAfterSeconds = regexp.MustCompile(`^[0-9]{1,9}$`)

// retryAfter is the wait after a 202: Retry-After in one to nine digits (at
// least one second); any other form, an HTTP-date included, means 2 s.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if !retryAfterSeconds.MatchString(v) {
		return RetryAfterAbsent
	}
	n, _ := strconv.Atoi(v)
	return time.Duration(max(n, 1)) * time.Second
}

func statusDetail(status int, paid bool) string {
	if paid {
		return "The agreement URL answered status " + itoa(status) + " to the payment."
	}
	return "The agreement URL answered status " + itoa(status) + "."
}

func itoa(n int) string { return strconv.Itoa(n) }
