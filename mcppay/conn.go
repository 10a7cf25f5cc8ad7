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
	"mime"
	"net/http"
	"os/exec"
	"strings"
	"sync"
)

// StdioConn is a paid server run as a child process speaking MCP's stdio
// transport: a message per line on its standard input and output. Its
// standard error goes where cmd.Stderr says.
type StdioConn struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	recv chan []byte
	mu   sync.Mutex
	done chan struct{}
}

// StartStdio starts cmd and reads its messages.
func StartStdio(cmd *exec.Cmd, log *slog.Logger) (*StdioConn, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := NewStreamConn(in, out, log)
	c.cmd = cmd
	return c, nil
}

// NewStreamConn is a StdioConn over a server's input and output streams
// already open (an in-process server on pipes); Close closes in.
func NewStreamConn(in io.WriteCloser, out io.Reader, log *slog.Logger) *StdioConn {
	c := &StdioConn{in: in, recv: make(chan []byte, 16), done: make(chan struct{})}
	go func() {
		defer close(c.recv)
		lines := newLineReader(out)
		for {
			line, err := lines.next()
			if errors.Is(err, errLineTooLong) {
				if log != nil {
					log.Warn("mcppay: a message from the server longer than the bound was dropped", "bytes", MaxMessageBytes)
				}
				continue
			}
			if err != nil {
				return
			}
			if line = bytes.TrimSpace(line); len(line) > 0 {
				select {
				case c.recv <- line:
				case <-c.done:
					return
				}
			}
		}
	}()
	return c
}

func (c *StdioConn) Send(_ context.Context, msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.in.Write(append(bytes.TrimRight(msg, "\r\n"), '\n'))
	return err
}

func (c *StdioConn) Recv() <-chan []byte { return c.recv }

// Close ends the server's input and waits for it to exit.
func (c *StdioConn) Close() error {
	c.mu.Lock()
	select {
	case <-c.done:
		c.mu.Unlock()
		return nil
	default:
		close(c.done)
	}
	c.mu.Unlock()
	c.in.Close()
	if c.cmd == nil {
		return nil
	}
	return c.cmd.Wait()
}

// HTTPConn is a paid server at a URL speaking MCP's streamable HTTP
// transport: each message is POSTed; the answer is one JSON message or an
// event stream of them. The session id the server gives at initialize is
// sent back on every later request, with the protocol version agreed.
type HTTPConn struct {
	URL     string
	Client  *http.Client
	Header  http.Header // sent on every request (an Authorization, say)
	recv    chan []byte
	mu      sync.Mutex
	session string
	version string
	initID  string
	wg      sync.WaitGroup
	ctx     context.Context
	cancel  context.CancelFunc
	once    sync.Once
}

// DialHTTP returns the connection to url; nothing is sent yet.
func DialHTTP(url string, client *http.Client, header http.Header) *HTTPConn {
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &HTTPConn{URL: url, Client: client, Header: header, recv: make(chan []byte, 16), ctx: ctx, cancel: cancel}
}

func (c *HTTPConn) Recv() <-chan []byte { return c.recv }

// Close ends the session (DELETE, as the transport asks) and the streams.
func (c *HTTPConn) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		session := c.session
		c.mu.Unlock()
		if session != "" {
			if req, err := http.NewRequest(http.MethodDelete, c.URL, nil); err == nil {
				req.Header.Set("Mcp-Session-Id", session)
				if resp, err := c.Client.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}
		c.cancel()
		c.wg.Wait()
		close(c.recv)
	})
	return nil
}

// Send POSTs msg. The server's answer is read on its own goroutine, so
// that a long tool call does not hold up the next message.
func (c *HTTPConn) Send(_ context.Context, msg []byte) error {
	var e envelope
	_ = json.Unmarshal(msg, &e)
	if e.Method != nil && *e.Method == "initialize" {
		c.mu.Lock()
		c.initID = string(e.ID)
		c.mu.Unlock()
	}
	req, err := http.NewRequestWithContext(c.ctx, http.MethodPost, c.URL, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c.mu.Lock()
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.exchange(req, e)
	}()
	return nil
}

func (c *HTTPConn) exchange(req *http.Request, sent envelope) {
	resp, err := c.Client.Do(req)
	if err != nil {
		c.failed(sent, fmt.Sprintf("the server could not be reached: %v", err))
		return
	}
	defer resp.Body.Close()
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		c.mu.Lock()
		c.session = s
		c.mu.Unlock()
	}
	if resp.StatusCode == http.StatusAccepted {
		return
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		c.failed(sent, fmt.Sprintf("the server answered HTTP %d", resp.StatusCode))
		return
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "text/event-stream":
		c.events(resp.Body)
	default:
		body, err := io.ReadAll(io.LimitReader(resp.Body, MaxMessageBytes+1))
		if err != nil || len(body) > MaxMessageBytes {
			c.failed(sent, "the server's answer is unreadable or larger than the bound")
			return
		}
		if body = bytes.TrimSpace(body); len(body) > 0 {
			c.deliver(body)
		}
	}
}

// events reads an event stream's data fields, each event one message.
func (c *HTTPConn) events(body io.Reader) {
	r := bufio.NewReaderSize(body, 64<<10)
	var data []byte
	for {
		line, err := r.ReadString('\n')
		if len(line) > MaxMessageBytes || len(data) > MaxMessageBytes {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if len(data) > 0 {
				c.deliver(bytes.TrimSpace(data))
				data = nil
			}
		case strings.HasPrefix(line, "data:"):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		}
		if err != nil {
			if len(data) > 0 {
				c.deliver(bytes.TrimSpace(data))
			}
			return
		}
	}
}

func (c *HTTPConn) deliver(msg []byte) {
	var e envelope
	if json.Unmarshal(msg, &e) == nil && e.Method == nil && len(e.ID) > 0 {
		c.mu.Lock()
		if string(e.ID) == c.initID && c.initID != "" {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(e.Result, &r) == nil {
				c.version = r.ProtocolVersion
			}
		}
		c.mu.Unlock()
	}
	select {
	case c.recv <- msg:
	case <-c.ctx.Done():
	}
}

// failed answers a request that got no JSON-RPC answer with an error of
// its own id, so that the agent is not left waiting.
func (c *HTTPConn) failed(sent envelope, why string) {
	if sent.Method == nil || len(sent.ID) == 0 {
		return
	}
	c.deliver(response(sent.ID, Answer{Error: &RPCError{Code: -32000, Message: "termsgate proxy: " + why}}))
}
