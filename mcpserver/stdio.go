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
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves MCP over newline-delimited JSON-RPC on in and out until
// in ends (then in-flight calls finish and are answered) or ctx is done
// (then they are cancelled). Each line is checked (wire.go) before mcp-go
// reads it; a refused line is answered with a JSON-RPC error and never
// reaches a tool. What each malformed line is answered is in docs/mcp.md. Diagnostics go to log (nil: discarded), never to out;
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
	sess.send = write

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

	c := &stdioConn{srv: s, sess: sess, ctx: ctx, log: log, out: w, write: write,
		slots: make(chan struct{}, maxInFlight), inflight: map[string]*stdioCall{}}
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
		if msg := bytes.TrimSpace(r.line); len(msg) > 0 { // blank lines carry nothing
			c.handle(msg)
		}
	}
	// The input ended: answer what is in flight. The caller cancelled: the
	// calls were cancelled with ctx and end promptly.
	c.calls.Wait()
	cancel()
	<-pumpDone
	if errors.Is(readErr, io.EOF) {
		return nil
	}
	return readErr
}

// stdioConn is one stdio connection's dispatcher. Lines are read ahead on
// their own goroutine (readLines); this one checks each line and acts on it
// in the order they came, and every request but ping runs on a goroutine
// of its own, so that a long call holds up neither the reading nor the
// answering of other lines: a ping, another call, the call's own
// cancellation.
type stdioConn struct {
	srv   *Server
	sess  *stdioSession
	ctx   context.Context
	log   *slog.Logger
	out   io.Writer
	write func(any)
	slots chan struct{} // one per running call, at most maxInFlight
	calls sync.WaitGroup

	mu       sync.Mutex
	inflight map[string]*stdioCall // by idKey
}

// stdioCall is a running request.
type stdioCall struct {
	cancel    context.CancelFunc
	cancelled bool // by notifications/cancelled: its response is dropped
}

// rpcServerBusy answers a request that would exceed maxInFlight: a JSON-RPC
// implementation-defined server error.
const rpcServerBusy = -32000

func (c *stdioConn) refuse(code int, id json.RawMessage, msg string) {
	_, _ = c.out.Write((&wireError{code: code, id: id, msg: msg}).response())
}

func (c *stdioConn) handle(msg []byte) {
	info, we := checkMessage(msg)
	if we != nil {
		if !we.silent {
			_, _ = c.out.Write(we.response())
		}
		return
	}
	switch {
	case info.kind == kindResponse:
		// The answer to a question termsgate asked (elicitation/create);
		// an answer to nothing asked is dropped.
		c.sess.answer(info.id, msg)
		return
	case info.kind == kindNotification:
		// In order, at once: a cancellation finds its call registered.
		if info.method == "notifications/cancelled" {
			c.cancelled(msg)
		}
		c.srv.dispatch(c.ctx, msg, c.log)
		return
	case info.method == "ping":
		// Answered here, even when every slot is taken: it is how a client
		// tells a busy server from a stuck one.
		if resp := c.srv.dispatch(c.ctx, msg, c.log); resp != nil {
			c.write(resp)
		}
		return
	}
	key := idKey(info.id)
	c.mu.Lock()
	_, dup := c.inflight[key]
	c.mu.Unlock()
	if dup {
		c.refuse(rpcInvalidRequest, info.id, fmt.Sprintf("Invalid Request: the id %s is already used by a request in progress; the message was not processed.", info.id))
		return
	}
	select {
	case c.slots <- struct{}{}:
	default:
		// Waiting for a slot would stop the reading of the cancellations
		// that free one.
		c.refuse(rpcServerBusy, info.id, fmt.Sprintf("termsgate is already running %d requests on this connection; this one was not run. Send it again once one has finished.", maxInFlight))
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	call := &stdioCall{cancel: cancel}
	c.mu.Lock()
	c.inflight[key] = call
	c.mu.Unlock()
	c.calls.Add(1)
	go func() {
		defer c.calls.Done()
		ctx, msg := slimCall(ctx, msg, info)
		resp := c.srv.dispatch(ctx, msg, c.log)
		c.mu.Lock()
		delete(c.inflight, key)
		dropped := call.cancelled
		c.mu.Unlock()
		cancel()
		<-c.slots
		// MCP: the receiver of a cancellation sends no response for the
		// request it cancelled.
		if resp != nil && !dropped {
			c.write(resp)
		}
	}()
}

// cancelled marks the call a notifications/cancelled names, if it is still
// running, and cancels its context (mcp-go, which the notification goes to
// next, cancels its own as well).
func (c *stdioConn) cancelled(msg []byte) {
	var n struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &n) != nil || len(n.Params.RequestID) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if call := c.inflight[idKey(n.Params.RequestID)]; call != nil {
		call.cancelled = true
		call.cancel()
	}
}

// idKey is the identity of a request id: 7 and 7.0 name one request, 7 and
// "7" two.
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "?" + string(raw)
	}
	switch x := v.(type) {
	case string:
		return "s:" + x
	case float64:
		return "n:" + strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return "?" + string(raw)
	}
}

type lineRead struct {
	line []byte
	err  error
}

// readLines reads in on its own goroutine (a read cannot be interrupted),
// so that ServeStdio can stop when ctx is done. It stops at the first
// error other than a long line, or when ctx is done.
func readLines(ctx context.Context, in io.Reader) <-chan lineRead {
	// A few lines are read ahead, so that reading goes on while one is
	// being checked; more would only hold more memory (8 MiB a line).
	out := make(chan lineRead, 4)
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

// callArgsKey carries a tools/call's arguments past mcp-go (slimCall).
type callArgsKey struct{}

// slimCall is the tools/call fast path. mcp-go decodes a message several
// times over (its envelope, the protocol information, the trace metadata,
// then CallToolParams, whose arguments it also decodes into a map the tools
// never read), and each decoding first scans the whole message again: for
// a call whose arguments hold a payment and an ATR that was most of the
// call's cost. The check (wire.go) already walked the message and knows
// where params.arguments is; when it is an object, mcp-go is handed the
// same message with {} in its place, so that every other member (the
// name, _meta and its progress token, the id) is read by mcp-go exactly as
// before, with the session, hooks and cancellation it keeps, and the
// tool's handler takes the arguments as sent from ctx (callArguments).
// Hooks that mcp-go runs therefore see {} as a stdio call's arguments.
func slimCall(ctx context.Context, msg []byte, info message) (context.Context, []byte) {
	if info.method != "tools/call" || len(info.args) <= 2 {
		return ctx, msg
	}
	end := info.argsAt + len(info.args)
	slim := make([]byte, 0, len(msg)-len(info.args)+2)
	slim = append(slim, msg[:info.argsAt]...)
	slim = append(slim, '{', '}')
	slim = append(slim, msg[end:]...)
	return context.WithValue(ctx, callArgsKey{}, info.args), slim
}

// callArguments is what slimCall took out of the message, or raw (what
// mcp-go read) when nothing was.
func callArguments(ctx context.Context, raw []byte) []byte {
	if a, ok := ctx.Value(callArgsKey{}).([]byte); ok {
		return a
	}
	return raw
}

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

	// The requests termsgate sends the client (elicitation/create), each
	// waiting for the response with its id.
	send    func(any) // writes one message; set by ServeStdio before any line is read
	lastID  atomic.Int64
	askMu   sync.Mutex
	pending map[string]chan []byte // by idKey
}

func newStdioSession() *stdioSession {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &stdioSession{id: "stdio-" + hex.EncodeToString(b[:]), notes: make(chan mcp.JSONRPCNotification, 64), pending: map[string]chan []byte{}}
}

// maxPending bounds the questions waiting for an answer on one connection
// (at most one per running call).
const maxPending = maxInFlight

// ask sends the client a request and waits for its response, or for ctx
// (the caller's deadline). A request given up on is cancelled with
// notifications/cancelled, as MCP asks of the side that gives up.
func (s *stdioSession) ask(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := "termsgate-" + strconv.FormatInt(s.lastID.Add(1), 10)
	key := "s:" + id // idKey of the string id
	ch := make(chan []byte, 1)
	s.askMu.Lock()
	if len(s.pending) >= maxPending {
		s.askMu.Unlock()
		return nil, fmt.Errorf("%d requests to the client are already waiting for an answer", maxPending)
	}
	s.pending[key] = ch
	s.askMu.Unlock()
	defer func() {
		s.askMu.Lock()
		delete(s.pending, key)
		s.askMu.Unlock()
	}()
	s.send(mcp.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Request: mcp.Request{Method: method}, Params: params})
	select {
	case msg := <-ch:
		var r struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(msg, &r); err != nil {
			return nil, fmt.Errorf("the client's answer to %s is not readable: %w", method, err)
		}
		if r.Error != nil {
			return nil, fmt.Errorf("the client answered %s with error %d: %s", method, r.Error.Code, r.Error.Message)
		}
		if len(r.Result) == 0 || string(r.Result) == "null" {
			return nil, fmt.Errorf("the client's answer to %s has no result", method)
		}
		return r.Result, nil
	case <-ctx.Done():
		s.send(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
			Method: "notifications/cancelled",
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": "termsgate stopped waiting for the answer"}},
		}})
		return nil, ctx.Err()
	}
}

// answer hands a response to the request waiting for its id. Each id is
// answered once; a second response, or one for an id never sent, is
// dropped.
func (s *stdioSession) answer(id json.RawMessage, msg []byte) {
	key := idKey(id)
	s.askMu.Lock()
	ch := s.pending[key]
	delete(s.pending, key)
	s.askMu.Unlock()
	if ch != nil {
		ch <- bytes.Clone(msg)
	}
}

// RequestElicitation puts the question to the client's human and returns
// the answer (server.SessionWithElicitation).
func (s *stdioSession) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	raw, err := s.ask(ctx, string(mcp.MethodElicitationCreate), req.Params)
	if err != nil {
		return nil, err
	}
	var res mcp.ElicitationResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("the client's answer to elicitation/create is not readable: %w", err)
	}
	return &res, nil
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

var (
	_ server.SessionWithClientInfo  = (*stdioSession)(nil)
	_ server.SessionWithElicitation = (*stdioSession)(nil)
)

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
