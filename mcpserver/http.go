package mcpserver

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/server"
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer <token>); without it, a request is answered 401.
	Token string
	// Path is the endpoint path; "" means /mcp.
	Path string
}

// HTTPHandler serves MCP over streamable HTTP. In front of mcp-go's handler
// (which already refuses a non-loopback Host on a loopback connection) it
// refuses, in this order:
//
//   - a request whose Origin header is present and not a loopback origin
//     (403): a web page the user visits must not drive the gate, and with
//     DNS rebinding its requests would otherwise look local;
//   - a request without the bearer token, when one is set (401);
//   - a POST body over MaxMessageBytes, or one whose JSON-RPC message fails
//     checkMessage (400, with a JSON-RPC error body).
func (s *Server) HTTPHandler(opts HTTPOptions) http.Handler {
	path := opts.Path
	if path == "" {
		path = "/mcp"
	}
	inner := server.NewStreamableHTTPServer(s.mcp, server.WithEndpointPath(path))
	var tokenSum [32]byte
	if opts.Token != "" {
		tokenSum = sha256.Sum256([]byte(opts.Token))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Values("Origin"); len(origin) > 0 && (len(origin) > 1 || !loopbackOrigin(origin[0])) {
			http.Error(w, "Forbidden: this MCP server accepts requests only from loopback origins.", http.StatusForbidden)
			return
		}
		if opts.Token != "" && !bearerMatches(r.Header.Get("Authorization"), tokenSum) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="termsgate"`)
			http.Error(w, "Unauthorized: a bearer token is required.", http.StatusUnauthorized)
			return
		}
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, MaxMessageBytes+1))
			_ = r.Body.Close()
			if err != nil {
				http.Error(w, "Bad request: the body could not be read.", http.StatusBadRequest)
				return
			}
			if _, we := checkMessage(bytes.TrimSpace(body)); we != nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write(we.response())
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		inner.ServeHTTP(w, r)
	})
}

// bearerMatches compares the presented token in constant time (over hashes,
// so that the length leaks nothing either).
func bearerMatches(header string, want [32]byte) bool {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// loopbackOrigin reports whether origin is http(s) on localhost or a
// loopback address, with any port. "null" (a sandboxed or file: page) is
// not.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" && u.Path != "/" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// IsLoopbackAddr reports whether a listen address (host:port) names a
// loopback interface: the CLI binds only those unless told otherwise.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
