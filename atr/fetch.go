package atr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MaxBytes is the largest ATR the gate accepts (1 MiB). Exactly MaxBytes is
// allowed; one byte more is atr-too-large.
const MaxBytes = 1 << 20

// FetchTimeout is the one deadline over connecting, the headers and the whole
// body, so that a slow seller cannot hold a buyer's payment open by trickling.
const FetchTimeout = 10 * time.Second

// The decline codes a fetch can end in (docs/protocol.md, "Declines").
const (
	CodeUnfetchable = "atr-unfetchable"
	CodeTooLarge    = "atr-too-large"
)

// The fetch detail sentences the vectors pin, written exactly.
const (
	DetailRedirect    = "The link answered with a redirect."
	DetailCoding      = "The link served a content coding other than identity."
	DetailUnfetchable = "The ATR could not be fetched from the link."
	DetailTooLarge    = "The ATR is larger than 1048576 bytes."
)

// DetailStatus is the sentence for a status other than 200.
func DetailStatus(code int) string { return fmt.Sprintf("The link answered status %d.", code) }

// Doer sends one request. *http.Client satisfies it; tests and callers with
// their own transport stack can supply anything else.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// FetchError is a fetch that ended in a decline: Code is atr-unfetchable or
// atr-too-large and Detail is the exact sentence the gate reports. Err is
// the cause behind the sentence (the resolver's or TLS error, a refused
// address, the status, the deadline), for people and logs: the vectors pin
// Code and Detail, so the cause never goes into them.
type FetchError struct {
	Code   string
	Detail string
	Err    error
}

func (e *FetchError) Error() string { return e.Code + ": " + e.Detail }

// Unwrap returns the cause, so errors.Is(err, context.DeadlineExceeded) and
// errors.As(err, &notPublic) see through a fetch decline.
func (e *FetchError) Unwrap() error { return e.Err }

func unfetchable(detail string, cause error) error {
	return &FetchError{Code: CodeUnfetchable, Detail: detail, Err: cause}
}

func tooLarge(cause error) error {
	return &FetchError{Code: CodeTooLarge, Detail: DetailTooLarge, Err: cause}
}

// errLength is the cause of a body that ended short of, or ran past, its
// declared length.
var errLength = errors.New("the body's length differs from its Content-Length")

// Fetcher performs the ATR fetch of docs/protocol.md, "Fetching the ATR". The zero value is ready:
// it uses a client that connects only to public addresses.
type Fetcher struct {
	// Client sends the request; nil means a shared NewClient(false).
	Client Doer
	// Timeout replaces FetchTimeout when positive; tests use short values.
	Timeout time.Duration
	// Cache, when set, is what FetchFor answers from and fills (cache.go);
	// Fetch and FetchSum never use it.
	Cache *Cache
}

var defaultClient = sync.OnceValue(func() *http.Client { return NewClient(false) })

// doer returns the Doer to use. An *http.Client is copied so that, whatever
// the caller configured, no redirect is followed and no cookie is sent.
func (f *Fetcher) doer() Doer {
	var d Doer
	if f != nil {
		d = f.Client
	}
	if d == nil {
		d = defaultClient()
	}
	if c, ok := d.(*http.Client); ok {
		if c == nil {
			c = defaultClient()
		}
		if cc := lastCopy(c); cc != nil {
			return cc
		}
		cc := *c
		cc.CheckRedirect = noRedirect
		cc.Jar = nil
		rememberCopy(c, &cc)
		return &cc
	}
	return d
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// A payer fetches through the same client again and again: the last copy
// doer made is kept with what it was made from, and handed out again while
// the client is the same one with the same Transport and Timeout (the only
// fields the copy takes from it: CheckRedirect and Jar are replaced). Only
// a nil Transport or an *http.Transport is kept, a pointer that compares
// safely; the copy is never written once made, and a Client is safe for
// concurrent use.
type clientCopy struct {
	from      *http.Client
	transport http.RoundTripper
	timeout   time.Duration
	copy      *http.Client
}

var lastClientCopy atomic.Pointer[clientCopy]

func lastCopy(c *http.Client) *http.Client {
	m := lastClientCopy.Load()
	if m == nil || m.from != c || m.timeout != c.Timeout || !keptTransport(c.Transport) || m.transport != c.Transport {
		return nil
	}
	return m.copy
}

func rememberCopy(from, cc *http.Client) {
	if keptTransport(from.Transport) {
		lastClientCopy.Store(&clientCopy{from: from, transport: from.Transport, timeout: from.Timeout, copy: cc})
	}
}

func keptTransport(rt http.RoundTripper) bool {
	switch rt.(type) {
	case nil, *http.Transport:
		return true
	}
	return false
}

// bodyHonoursContext reports a Doer whose response bodies end when their
// request's context does: an *http.Client sending through net/http's own
// *http.Transport (the transport closes a body read past the deadline).
// Any other Doer has its body closed at the deadline by the fetch itself.
func bodyHonoursContext(d Doer) bool {
	c, ok := d.(*http.Client)
	if !ok {
		return false
	}
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	_, ok = rt.(*http.Transport)
	return ok
}

// Fetch gets the ATR at link and returns its bytes exactly as received, or a
// *FetchError.
//
// It sends exactly one GET whose only header set by the gate is
// "Accept-Encoding: identity"; Go's transport adds Host and its default
// User-Agent and nothing else (setting Accept-Encoding ourselves is also what
// stops net/http from asking for gzip and decoding it). Redirects are never
// followed. The checks run in upstream's order: redirect, status, content
// coding (the body is closed unread), declared length (closed unread),
// streamed length (closed as soon as it passes MaxBytes). One deadline covers
// the connection, the headers and the whole body; any transport failure, the
// deadline or a body shorter or longer than its declared length is
// atr-unfetchable with the generic sentence.
//
// A link that fails IsHTTPSLink is not fetched at all (the gate checks first;
// this keeps a direct caller from fetching http: or a name Go would read
// differently). The request goes to the URL WHATWG would make of the link
// (numeric hosts such as 0x7f.1 normalised, dot segments resolved, the path
// percent-encoded as a browser would), not to net/url's reading of it.
//
// One caveat comes from net/http, not from here: its transport may resend an
// idempotent GET once when a reused keep-alive connection turns out to have
// been closed by the server before any answer.
//
// Fetch never panics, whatever the Doer does.
func (f *Fetcher) Fetch(ctx context.Context, link string) ([]byte, error) {
	return f.fetch(ctx, link, io.Discard)
}

// FetchSum is Fetch that also returns SHA-256 of the bytes, computed as they
// arrive: for a large record the hash is ready when the last byte is.
func (f *Fetcher) FetchSum(ctx context.Context, link string) ([]byte, Hash, error) {
	// Hashed once read, in one call: the same bytes as a running digest
	// would take, without a digest allocated per fetch.
	body, err := f.fetch(ctx, link, io.Discard)
	if err != nil {
		return nil, Hash{}, err
	}
	return body, Sum(body), nil
}

func (f *Fetcher) fetch(ctx context.Context, link string, sum io.Writer) (body []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			body, err = nil, unfetchable(DetailUnfetchable, fmt.Errorf("atr: recovered from a panic while fetching: %v", r))
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	target, ok := requestURL(link)
	if !ok {
		return nil, unfetchable(DetailUnfetchable, fmt.Errorf("atr: %q is not an https link", link))
	}
	timeout := FetchTimeout
	if f != nil && f.Timeout > 0 {
		timeout = f.Timeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	// The request NewRequestWithContext would make for target, written
	// out: it would parse a URL only for it to be replaced by target, and
	// make a header map only for it to be replaced.
	req := (&http.Request{
		Method: http.MethodGet, URL: target, Host: target.Host,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Accept-Encoding": {"identity"}},
	}).WithContext(ctx)

	doer := f.doer()
	resp, err := doer.Do(req)
	// net/http may hand back a response that raced the deadline (a server
	// answering because our cancellation closed its request): past the
	// deadline nothing counts.
	if err != nil || resp == nil || ctx.Err() != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return nil, unfetchable(DetailUnfetchable, doCause(ctx, err, timeout))
	}
	rc := resp.Body
	if rc == nil {
		rc = http.NoBody
	}
	defer rc.Close()
	// A Doer whose body ignores the context still stops at the deadline
	// (net/http's own transport ends a body at its request's deadline).
	if !bodyHonoursContext(doer) {
		stop := context.AfterFunc(ctx, func() { rc.Close() })
		defer stop()
	}

	if resp.StatusCode >= 300 && resp.StatusCode <= 399 ||
		resp.Request != nil && resp.Request.URL != nil && !sameTarget(resp.Request.URL, target) {
		return nil, unfetchable(DetailRedirect, &StatusError{Status: resp.StatusCode, Location: resp.Header.Get("Location")})
	}
	if resp.StatusCode != http.StatusOK {
		return nil, unfetchable(DetailStatus(resp.StatusCode), &StatusError{Status: resp.StatusCode})
	}
	// Values joined as a JS Headers object would join repeated fields.
	coding := strings.ToLower(strings.TrimSpace(strings.Join(resp.Header.Values("Content-Encoding"), ", ")))
	if coding != "" && coding != "identity" || resp.Uncompressed {
		return nil, unfetchable(DetailCoding, fmt.Errorf("atr: the link served Content-Encoding %q", coding))
	}
	declared := int64(-1)
	if raw := strings.TrimSpace(resp.Header.Get("Content-Length")); raw != "" && strings.Trim(raw, "0123456789") == "" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n > MaxBytes { // err here can only be overflow
			return nil, tooLarge(fmt.Errorf("atr: the link declared Content-Length %s", raw))
		}
		declared = n
	} else if resp.ContentLength >= 0 {
		declared = resp.ContentLength
	}
	if declared > MaxBytes {
		return nil, tooLarge(fmt.Errorf("atr: the link declared Content-Length %d", declared))
	}
	if declared >= 0 {
		body, err = readDeclared(rc, declared, sum)
	} else {
		body, err = readStreamed(rc, sum)
	}
	if err == nil && ctx.Err() != nil {
		return nil, unfetchable(DetailUnfetchable, doCause(ctx, ctx.Err(), timeout))
	}
	var fe *FetchError
	if errors.As(err, &fe) && fe.Code == CodeUnfetchable && ctx.Err() != nil {
		fe.Err = doCause(ctx, fe.Err, timeout) // a read cut short by the deadline
	}
	return body, err
}

// StatusError is the cause of a fetch answered with a status other than
// 200: the status, and for a redirect where it pointed.
type StatusError struct {
	Status   int
	Location string
}

func (e *StatusError) Error() string {
	if e.Location != "" {
		return fmt.Sprintf("atr: the link answered %d %s to %q (redirects are not followed)", e.Status, http.StatusText(e.Status), e.Location)
	}
	return fmt.Sprintf("atr: the link answered %d %s", e.Status, http.StatusText(e.Status))
}

// doCause names a transport failure; past the deadline it says so, since
// the transport's own error then reads as a bare cancellation.
func doCause(ctx context.Context, err error, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("atr: no whole answer within %v: %w", timeout, context.DeadlineExceeded)
	}
	if err == nil {
		return ctx.Err()
	}
	return err
}

// readDeclared reads a body of known length into one buffer of exactly that
// size plus one probe byte, the probe showing whether more was sent.
//
// Each chunk goes to sum as it arrives, so that hashing a large record
// overlaps its transfer instead of following it.
func readDeclared(rc io.Reader, n int64, sum io.Writer) ([]byte, error) {
	buf := make([]byte, n+1)
	for got := int64(0); got < n; {
		k, err := rc.Read(buf[got:n])
		if k < 0 || int64(k) > n-got {
			return nil, unfetchable(DetailUnfetchable, errLength)
		}
		_, _ = sum.Write(buf[got : got+int64(k)])
		got += int64(k)
		if err != nil && (got < n || !errors.Is(err, io.EOF)) {
			if errors.Is(err, io.EOF) {
				err = errLength
			}
			return nil, unfetchable(DetailUnfetchable, err)
		}
		if err != nil {
			break // io.EOF exactly at the declared length
		}
	}
	if k, err := io.ReadFull(rc, buf[n:]); k != 0 || err != io.EOF {
		if k != 0 || err == nil {
			err = errLength
		}
		return nil, unfetchable(DetailUnfetchable, err) // more than declared, or a failure at the end
	}
	return buf[:n:n], nil
}

// readStreamed reads a body of unknown length, doubling one buffer up to
// MaxBytes+1 bytes; the extra byte is how an over-long body is seen.
func readStreamed(rc io.ReadCloser, sum io.Writer) ([]byte, error) {
	const limit = MaxBytes + 1
	buf := make([]byte, 0, 16<<10)
	for {
		if len(buf) == cap(buf) {
			next := min(2*cap(buf), limit)
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		free := buf[len(buf):cap(buf)]
		k, err := rc.Read(free)
		if k < 0 || k > len(free) {
			return nil, unfetchable(DetailUnfetchable, fmt.Errorf("atr: the body reader returned %d bytes for a %d-byte buffer", k, len(free)))
		}
		_, _ = sum.Write(free[:k])
		buf = buf[:len(buf)+k]
		if len(buf) > MaxBytes {
			rc.Close()
			return nil, tooLarge(fmt.Errorf("atr: the link sent more than %d bytes", MaxBytes))
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, unfetchable(DetailUnfetchable, err)
		}
	}
}

// sameTarget reports whether the response's request is the one asked for; a
// Doer that followed a redirect itself shows up here.
func sameTarget(got, want *url.URL) bool {
	return strings.EqualFold(got.Scheme, want.Scheme) && strings.EqualFold(got.Host, want.Host) &&
		(sameRequestFields(got, want) || got.RequestURI() == want.RequestURI())
}

// sameRequestFields reports whether every field RequestURI reads is the
// same in both, so that their RequestURIs are: the usual case (the
// response's request is the one sent), without writing either.
func sameRequestFields(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && a.Opaque == b.Opaque && a.Path == b.Path && a.RawPath == b.RawPath &&
		a.RawQuery == b.RawQuery && a.ForceQuery == b.ForceQuery
}

// buildRequestURL builds the URL to request from an https link the way
// WHATWG parses it (requestURL remembers the last one). The path is handed to net/http so that it is sent byte for byte:
// as Path/RawPath when net/url would write it back unchanged, otherwise as
// Opaque (net/url would re-escape, say, a "%zz" or a '{').
func buildRequestURL(link string) (*url.URL, bool) {
	if !IsHTTPSLink(link) {
		return nil, false
	}
	u, ok := parseURL(link)
	if !ok || u.scheme != "https" || u.host == "" {
		return nil, false
	}
	host := u.host
	if u.port >= 0 {
		host += ":" + strconv.Itoa(u.port)
	}
	t := &url.URL{Scheme: "https", Host: host, RawQuery: u.query, ForceQuery: u.hasQuery && u.query == ""}
	if p, err := url.PathUnescape(u.path); err == nil {
		t.Path, t.RawPath = p, u.path
	}
	if t.EscapedPath() != u.path {
		t.Path, t.RawPath = "", ""
		if strings.HasPrefix(u.path, "//") {
			t.Opaque = "//" + host + u.path // net/url would read "//x" as a host
		} else {
			t.Opaque = u.path
		}
	}
	return t, true
}
