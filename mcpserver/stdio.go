package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves MCP over newline-delimited JSON-RPC on in and out until
// in ends or ctx is done. Each line is checked (wire.go) before mcp-go reads
// it; a refused line is answered here with a JSON-RPC error and never
// reaches a tool. Log lines go to logw (nil: discarded), never to out.
//
// mcp-go keeps one stdio session per process, so one process serves one
// stdio connection at a time.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, logw io.Writer) error {
	if logw == nil {
		logw = io.Discard
	}
	w := &lockedWriter{w: out}
	ss := server.NewStdioServer(s.mcp)
	ss.SetErrorLogger(log.New(logw, "termsgate mcp: ", log.LstdFlags))
	return ss.Listen(ctx, &checkedReader{in: bufio.NewReaderSize(in, 64<<10), out: w}, w)
}

// lockedWriter makes each Write whole: mcp-go writes one message per Write
// call from several goroutines, and refusals are written from the reader.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// checkedReader passes on only the lines that checkMessage accepts.
type checkedReader struct {
	in      *bufio.Reader
	out     io.Writer
	pending []byte // an accepted line not yet read
	err     error
}

func (r *checkedReader) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, err := readLine(r.in, MaxMessageBytes)
		r.err = err
		if errors.Is(err, errLineTooLong) {
			r.err = nil
			r.refuse(&wireError{code: rpcInvalidRequest, msg: "The message is larger than the limit and was not processed."})
			continue
		}
		msg := bytes.TrimSpace(line)
		if len(msg) == 0 {
			continue // blank lines carry nothing
		}
		if we := checkMessage(msg); we != nil {
			r.refuse(we)
			continue
		}
		r.pending = append(msg, '\n')
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

func (r *checkedReader) refuse(we *wireError) {
	if !we.silent {
		_, _ = r.out.Write(we.response())
	}
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line (without its newline) of at most limit bytes; a
// longer line is consumed to its end and reported as errLineTooLong. At the
// end of input the last, unterminated line comes with io.EOF.
func readLine(in *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := in.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			if tooLong {
				return nil, errLineTooLong
			}
			return line, err
		case tooLong:
			return nil, errLineTooLong
		default:
			return line[:len(line)-1], nil
		}
	}
}
