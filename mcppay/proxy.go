package mcppay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
)

// Conn is the paid server's end of a proxy: JSON-RPC messages, one each,
// both ways (StdioConn, HTTPConn).
type Conn interface {
	// Send writes one message to the server.
	Send(ctx context.Context, msg []byte) error
	// Recv delivers the server's messages; it is closed when the server is
	// gone.
	Recv() <-chan []byte
	Close() error
}

// Proxy is an MCP server on the agent's side that forwards every message
// both ways between the agent host and a paid server, and pays the tool
// calls the server answers with "payment required" (Payer.Settle). The
// agent gets the paid answer, or a tool error for a decline.
type Proxy struct {
	Payer  *Payer
	Server Conn
	Logger *slog.Logger // nil discards

	out     io.Writer
	outMu   sync.Mutex
	mu      sync.Mutex
	calls   map[string]call          // tools/call requests in flight, by id
	retries map[string]chan<- []byte // paid retries in flight, by the proxy's id
	seq     atomic.Int64
	wg      sync.WaitGroup
}

type call struct {
	id     json.RawMessage
	tool   string
	params json.RawMessage
}

// envelope is the part of a message the proxy reads.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

// Serve relays between the agent host (in, out: newline-delimited JSON-RPC,
// MCP's stdio transport) and the server until either side ends. It returns
// nil when in ends.
func (p *Proxy) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.out = out
	p.calls = map[string]call{}
	p.retries = map[string]chan<- []byte{}
	serverGone := make(chan struct{})
	go func() {
		defer close(serverGone)
		for msg := range p.Server.Recv() {
			p.fromServer(ctx, msg)
		}
	}()
	clientDone := make(chan error, 1)
	go func() { clientDone <- p.readClient(ctx, in) }()
	var err error
	select {
	case err = <-clientDone:
	case <-serverGone:
		err = errors.New("mcppay: the server closed the connection")
	case <-ctx.Done():
		err = ctx.Err()
	}
	cancel()
	p.wg.Wait()
	p.Server.Close()
	return err
}

func (p *Proxy) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// readClient forwards the agent host's messages, noting each tools/call.
func (p *Proxy) readClient(ctx context.Context, in io.Reader) error {
	lines := newLineReader(in)
	for {
		line, err := lines.next()
		if err == io.EOF {
			return nil
		}
		if errors.Is(err, errLineTooLong) {
			p.logger().Warn("mcppay: a message from the client longer than the bound was dropped", "bytes", MaxMessageBytes)
			continue
		}
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e envelope
		if json.Unmarshal(line, &e) == nil && e.Method != nil && *e.Method == "tools/call" && len(e.ID) > 0 && !paysItself(e.Params) {
			var named struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(e.Params, &named)
			p.mu.Lock()
			p.calls[string(e.ID)] = call{id: e.ID, tool: named.Name, params: e.Params}
			p.mu.Unlock()
		}
		if err := p.Server.Send(ctx, line); err != nil {
			return fmt.Errorf("mcppay: sending to the server: %w", err)
		}
	}
}

// fromServer routes one server message: the answer to a paid retry goes to
// its waiter, the answer to a tool call that asks for payment is paid, and
// everything else goes to the agent host as it came.
func (p *Proxy) fromServer(ctx context.Context, msg []byte) {
	var e envelope
	if json.Unmarshal(msg, &e) != nil || e.Method != nil || len(e.ID) == 0 {
		p.write(msg)
		return
	}
	key := string(e.ID)
	p.mu.Lock()
	if w, ok := p.retries[key]; ok {
		delete(p.retries, key)
		p.mu.Unlock()
		w <- msg
		return
	}
	c, ok := p.calls[key]
	delete(p.calls, key)
	p.mu.Unlock()
	if !ok {
		p.write(msg)
		return
	}
	first := Answer{Result: e.Result, Error: e.Error}
	if req, err := ReadRequired(first); req == nil && err == nil {
		p.write(msg)
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		answer, out := p.Payer.Settle(ctx, c.tool, c.params, first, p.retry)
		p.report(c.tool, out)
		p.write(response(c.id, answer))
	}()
}

// retry sends the paid call under an id of the proxy's own and waits for
// its answer.
func (p *Proxy) retry(ctx context.Context, params json.RawMessage) (Answer, error) {
	id := strconv.Quote("termsgate-paid-" + strconv.FormatInt(p.seq.Add(1), 10))
	wait := make(chan []byte, 1)
	p.mu.Lock()
	p.retries[id] = wait
	p.mu.Unlock()
	forget := func() {
		p.mu.Lock()
		delete(p.retries, id)
		p.mu.Unlock()
	}
	msg := []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":`)
	msg = append(append(msg, params...), '}')
	if err := p.Server.Send(ctx, msg); err != nil {
		forget()
		return Answer{}, err
	}
	select {
	case got := <-wait:
		var e envelope
		if err := json.Unmarshal(got, &e); err != nil {
			return Answer{}, fmt.Errorf("the answer to the paid call is not JSON-RPC: %w", err)
		}
		return Answer{Result: e.Result, Error: e.Error}, nil
	case <-ctx.Done():
		forget()
		return Answer{}, ctx.Err()
	}
}

// response is a JSON-RPC response with id.
func response(id json.RawMessage, a Answer) []byte {
	out := []byte(`{"jsonrpc":"2.0","id":`)
	out = append(out, id...)
	if a.Error != nil {
		e, _ := json.Marshal(a.Error)
		out = append(append(append(out, `,"error":`...), e...), '}')
		return out
	}
	return append(append(append(out, `,"result":`...), a.Result...), '}')
}

func (p *Proxy) write(msg []byte) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	_, _ = p.out.Write(append(bytes.TrimRight(msg, "\r\n"), '\n'))
}

func (p *Proxy) report(tool string, o Outcome) {
	log := p.logger()
	switch {
	case o.Declined != nil:
		log.Warn("mcppay: declined", "tool", tool, "code", string(o.Declined.Code), "detail", o.Declined.Detail, "moved", o.Declined.Moved != nil)
	case o.Paid != nil:
		attrs := []any{"tool", tool, "summary", o.Paid.Summary.String()}
		if o.Paid.Unbound {
			attrs = append(attrs, "unbound", true)
		}
		if s := o.Paid.Settlement; s != nil {
			attrs = append(attrs, "settled", s.Success, "transaction", s.Transaction)
		}
		log.Info("mcppay: paid", attrs...)
	}
}

// errLineTooLong: a line over MaxMessageBytes, skipped.
var errLineTooLong = errors.New("mcppay: line longer than the bound")

// lineReader reads newline-delimited messages of at most MaxMessageBytes;
// a longer line is skipped to its end and reported once.
type lineReader struct{ r *bufio.Reader }

func newLineReader(r io.Reader) *lineReader { return &lineReader{bufio.NewReaderSize(r, 64<<10)} }

func (l *lineReader) next() ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxMessageBytes+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, errLineTooLong
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(line) > 0 && !tooLong:
			return line, nil
		default:
			return nil, err
		}
	}
}
