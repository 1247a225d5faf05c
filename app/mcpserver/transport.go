package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/app/runner"
)

// The transports the one server object is carried over: stdio, as a
// client starts vroom mcp, and streamable HTTP on a loopback address with
// a bearer token.

// ServeStdio speaks MCP on in and out until ctx ends or the client
// closes in.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.server.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
}

// nopWriteCloser leaves stdout open when the transport closes: the
// process's own exit closes it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// ListenHTTP serves streamable HTTP at addr/mcp until ctx ends, printing
// the URL and the bearer token first.
func (s *Server) ListenHTTP(ctx context.Context, addr string, stdout io.Writer) error {
	token, err := newToken()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s.httpHandler(token), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "vroom mcp: streamable HTTP at http://%s/mcp\nvroom mcp: Authorization: Bearer %s\n", ln.Addr(), token)
	go func() {
		<-ctx.Done()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runner.CloseGrace)
		defer cancel()
		srv.Shutdown(cctx) // streams still open are cut when the grace ends
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve MCP over HTTP: %w", err)
	}
	return nil
}

// httpHandler is the streamable HTTP endpoint at /mcp, every request of
// which must carry the bearer token.
func (s *Server) httpHandler(token string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireToken(token, h))
	return mux
}

// requireToken answers 401 to a request without the bearer token.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="vroom mcp"`)
			http.Error(w, "a valid bearer token is required: the one vroom mcp printed at start", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// newToken is a random bearer token, new at every start.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}
