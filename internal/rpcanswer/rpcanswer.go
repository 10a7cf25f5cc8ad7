// Package rpcanswer serves a chain node's JSON-RPC answers in process, with
// no socket, for the fuzz targets of the node clients (signer/evmrpc and
// the Solana, XRPL and Soroban clients): Fixed answers every request with
// the fuzzed bytes, Recorder keeps what a test node really answers as seeds.
package rpcanswer

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
)

// Fixed is an in-process node: every request gets these bytes as its HTTP
// 200 answer.
type Fixed []byte

func (a Fixed) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(a)),
		ContentLength: int64(len(a)), Request: r,
	}, nil
}

// Recorder serves requests from a handler in process and keeps each
// answer's body.
type Recorder struct {
	Handler http.Handler
	Answers [][]byte
}

func (rec *Recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	w := httptest.NewRecorder()
	rec.Handler.ServeHTTP(w, r)
	rec.Answers = append(rec.Answers, bytes.Clone(w.Body.Bytes()))
	return w.Result(), nil
}
