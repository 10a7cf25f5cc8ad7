package pay

import (
	"bytes"
	"errors"
	"io"
	"net/http"
)

// DefaultMaxReplayBody bounds the request body the Transport buffers so that
// it can send it again with the payment, when the request has no GetBody.
// Requests made with http.NewRequest from a *bytes.Buffer, *bytes.Reader or
// *strings.Reader have GetBody and are never buffered.
const DefaultMaxReplayBody = 1 << 20

// ErrBodyNotReplayable is returned (wrapped) when a 402 asks for payment for
// a request whose body cannot be sent again: it has no GetBody and is longer
// than the buffering bound. Nothing is signed.
var ErrBodyNotReplayable = errors.New("pay: the request body cannot be replayed with the payment")

// replay prepares req's body to be sent twice. It returns the request to
// send first and a function giving a fresh body for the paid retry (nil
// when there is no body). When the body is too long to buffer, the first
// request still carries all of it, and again returns ErrBodyNotReplayable.
func replay(req *http.Request, limit int64) (*http.Request, func() (io.ReadCloser, error)) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	if req.GetBody != nil {
		return req, req.GetBody
	}
	// Read at most limit+1 bytes: one more than the bound says it is over.
	buf, err := io.ReadAll(io.LimitReader(req.Body, limit+1))
	first := req.Clone(req.Context())
	if err != nil {
		// Let the base transport meet the same failure when it reads.
		first.Body = readCloser{io.MultiReader(bytes.NewReader(buf), errReader{err}), req.Body}
		return first, func() (io.ReadCloser, error) { return nil, ErrBodyNotReplayable }
	}
	if int64(len(buf)) > limit {
		first.Body = readCloser{io.MultiReader(bytes.NewReader(buf), req.Body), req.Body}
		return first, func() (io.ReadCloser, error) { return nil, ErrBodyNotReplayable }
	}
	req.Body.Close()
	get := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf)), nil }
	first.Body, _ = get()
	first.GetBody = get
	first.ContentLength = int64(len(buf))
	return first, get
}

// readCloser reads from r and closes c, the original body.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (rc readCloser) Close() error { return rc.c.Close() }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
