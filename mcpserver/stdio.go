package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves MCP over newline-delimited JSON-RPC on in and out until
// in ends (then in-flight calls finish and are answered) or ctx is done
// (then they are cancelled). Each line is checked (wire.go) before mcp-go
// reads it; a refused line is answered with a JSON-RPC error and never
// reaches a tool. Diagnostics go to log (nil: discarded), never to out;
// *slog.Logger like pay.Transport's Logger, so one handler serves both.
//
// This is our own loop around mcp-go's HandleMessage rather than mcp-go's
// StdioServer: that one keeps one session per process and decodes every
// line several times over; here each connection has its own session, and a
// line is decoded by mcp-go only once it passed the check.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sess := newStdioSession()
	if err := s.mcp.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("mcpserver: %w", err)
	}
	defer s.mcp.UnregisterSession(context.Background(), sess.SessionID())
	ctx, cancel := context.WithCancel(s.mcp.WithContext(ctx, sess))
	defer cancel()

	w := &lockedWriter{w: out}
	write := func(m any) {
		b, err := json.Marshal(m)
		if err != nil {
			log.Error("cannot encode a message", "err", err)
			return
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			log.Error("writing", "err", err)
		}
	}

	pumpDone := make(chan struct{})
	go func() {
		defer close(pumpDone)
		for {
			select {
			case n := <-sess.notes:
				write(n)
			case <-ctx.Done():
				return
			}
		}
	}()

	// Requests run on their own goroutines, so that a long call never holds
	// up the reading of its own cancellation; at most maxInFlight at once.
	var calls sync.WaitGroup
	slots := make(chan struct{}, maxInFlight)
	lines := readLines(ctx, in)
	var readErr error
	for readErr == nil {
		var r lineRead
		select {
		case r = <-lines:
		case <-ctx.Done():
			readErr = ctx.Err()
			continue
		}
		readErr = r.err
		if errors.Is(r.err, errLineTooLong) {
			readErr = nil
			_, _ = w.Write((&wireError{code: rpcInvalidRequest, msg: fmt.Sprintf("The message is larger than %d bytes and was not processed.", MaxMessageBytes)}).response())
			continue
		}
		msg := bytes.TrimSpace(r.line)
		if len(msg) == 0 {
			continue // blank lines carry nothing
		}
		info, we := checkMessage(msg)
		if we != nil {
			if !we.silent {
				_, _ = w.Write(we.response())
			}
			continue
		}
		if !info.request {
			// Notifications (cancellations among them) in order, at once.
			s.dispatch(ctx, msg, log)
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		calls.Add(1)
		go func() {
			defer func() { <-slots; calls.Done() }()
			if resp := s.dispatch(ctx, msg, log); resp != nil {
				write(resp)
			}
		}()
	}
	// The input ended: answer what is in flight. The caller cancelled: the
	// calls were cancelled with ctx and end promptly.
	calls.Wait()
	cancel()
	<-pumpDone
	if errors.Is(readErr, io.EOF) {
		return nil
	}
	return readErr
}

type lineRead struct {
	line []byte
	err  error
}

// readLines reads in on its own goroutine (a read cannot be interrupted),
// so that ServeStdio can stop when ctx is done. It stops at the first
// error other than a long line, or when ctx is done.
func readLines(ctx context.Context, in io.Reader) <-chan lineRead {
	out := make(chan lineRead)
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(r, MaxMessageBytes)
			select {
			case out <- lineRead{line, err}:
			case <-ctx.Done():
				return
			}
			if err != nil && !errors.Is(err, errLineTooLong) {
				return
			}
		}
	}()
	return out
}

// maxInFlight bounds the calls one stdio connection runs at once.
const maxInFlight = 32

// dispatch hands one checked message to mcp-go. A panic below is answered
// as an internal error, never allowed to end the process.
func (s *Server) dispatch(ctx context.Context, msg []byte, log *slog.Logger) (resp mcp.JSONRPCMessage) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("recovered from a panic", "panic", r)
			var head struct {
				ID any `json:"id"`
			}
			_ = json.Unmarshal(msg, &head)
			resp = mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(head.ID), Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, "internal error", nil)}
		}
	}()
	return s.mcp.HandleMessage(ctx, msg)
}

// lockedWriter makes each Write whole: answers, notifications and
// refusals are written from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// stdioSession is one stdio connection's session in mcp-go.
type stdioSession struct {
	id          string
	notes       chan mcp.JSONRPCNotification
	initialized atomic.Bool

	mu         sync.Mutex
	clientInfo mcp.Implementation
	clientCaps mcp.ClientCapabilities
}

func newStdioSession() *stdioSession {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &stdioSession{id: "stdio-" + hex.EncodeToString(b[:]), notes: make(chan mcp.JSONRPCNotification, 64)}
}

func (s *stdioSession) SessionID() string                                   { return s.id }
func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notes }
func (s *stdioSession) Initialize()                                         { s.initialized.Store(true) }
func (s *stdioSession) Initialized() bool                                   { return s.initialized.Load() }

func (s *stdioSession) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientInfo
}

func (s *stdioSession) SetClientInfo(v mcp.Implementation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientInfo = v
}

func (s *stdioSession) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientCaps
}

func (s *stdioSession) SetClientCapabilities(v mcp.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientCaps = v
}

var _ server.SessionWithClientInfo = (*stdioSession)(nil)

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
