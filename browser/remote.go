package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// ErrBadEndpoint is what CheckEndpoint, ResolveEndpoint and
// ConnectEndpoint wrap for a remote browser's address that cannot be a
// CDP endpoint (no host, a scheme other than ws, wss, http or https).
var ErrBadEndpoint = errors.New("not a CDP endpoint")

// ErrEndpointVersion is what ResolveEndpoint wraps when an http(s)
// endpoint's /json/version did not name a webSocketDebuggerUrl: the
// address answers, but not as a DevTools server.
var ErrEndpointVersion = errors.New("no webSocketDebuggerUrl in /json/version")

// resolveTimeout bounds the /json/version request when ctx has no
// deadline of its own.
const resolveTimeout = 10 * time.Second

// secretParams are query parameters browser services carry credentials
// in (browserless's token, hosted services' apiKey); EndpointName hides
// their values.
var secretParams = []string{"token", "apikey", "api_key", "key", "auth", "password", "secret", "access_token"}

// CheckEndpoint says whether raw can address a remote browser: a
// ws:// or wss:// CDP WebSocket URL (query parameters such as a token are
// kept), or an http:// or https:// DevTools server whose /json/version
// names the WebSocket. It makes no request.
func CheckEndpoint(raw string) error {
	_, err := parseEndpoint(raw)
	return err
}

func parseEndpoint(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, fmt.Errorf("%w: empty", ErrBadEndpoint)
	}
	if !strings.Contains(raw, "://") {
		return nil, fmt.Errorf("%w: %s has no scheme: want ws://, wss://, http:// or https://", ErrBadEndpoint, EndpointName(raw))
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url's error repeats the address, which may hold a token.
		return nil, fmt.Errorf("%w: %s does not parse", ErrBadEndpoint, EndpointName(raw))
	}
	switch strings.ToLower(u.Scheme) {
	case "ws", "wss", "http", "https":
	default:
		return nil, fmt.Errorf("%w: %s: want ws://, wss://, http:// or https://", ErrBadEndpoint, EndpointName(raw))
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%w: %s has no host", ErrBadEndpoint, EndpointName(raw))
	}
	if u.Fragment != "" {
		return nil, fmt.Errorf("%w: %s has a #fragment, which no CDP server reads", ErrBadEndpoint, EndpointName(raw))
	}
	return u, nil
}

// EndpointName is raw fit to show and log: the values of credential-like
// query parameters (token, apiKey...) and a password in the user info are
// replaced by "***". A string that does not parse is cut to its scheme and
// host as far as they can be seen.
func EndpointName(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		if i := strings.IndexAny(raw, "?#@"); i >= 0 {
			return raw[:i] + "…"
		}
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "***")
	}
	q := u.Query()
	hidden := false
	for k := range q {
		for _, s := range secretParams {
			if strings.EqualFold(k, s) {
				q[k] = []string{"***"}
				hidden = true
			}
		}
	}
	if hidden {
		u.RawQuery = q.Encode()
	}
	return strings.ReplaceAll(u.String(), "%2A%2A%2A", "***")
}

// ResolveEndpoint returns the WebSocket URL to dial for raw. A ws:// or
// wss:// URL is used as given. An http(s):// one is asked for
// /json/version (under its path, with its query, so a token goes along)
// and its webSocketDebuggerUrl is used, with raw's query parameters added
// where it lacks them and, when the server named itself by a loopback or
// unspecified address (Chromium in a container says ws://127.0.0.1/… or
// 0.0.0.0), raw's host put back. client nil is http.DefaultClient.
func ResolveEndpoint(ctx context.Context, raw string, client *http.Client) (string, error) {
	u, err := parseEndpoint(raw)
	if err != nil {
		return "", err
	}
	if s := strings.ToLower(u.Scheme); s == "ws" || s == "wss" {
		return strings.TrimSpace(raw), nil
	}
	if client == nil {
		client = http.DefaultClient
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, resolveTimeout)
		defer cancel()
	}
	ws, err := versionURL(ctx, client, u)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", EndpointName(raw), err)
	}
	return joinEndpoint(u, ws)
}

// versionURL asks u's /json/version for the browser's WebSocket URL.
func versionURL(ctx context.Context, client *http.Client, u *url.URL) (string, error) {
	v := *u
	v.Path = strings.TrimSuffix(v.Path, "/") + "/json/version"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.String(), nil)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadEndpoint, err)
	}
	if strings.EqualFold(u.Scheme, "http") && net.ParseIP(u.Hostname()) == nil && u.Hostname() != "localhost" {
		// Chromium answers DevTools requests only to a Host header that
		// is an IP address or localhost (DNS rebinding protection): dial
		// the name, present the address. https keeps its name for TLS.
		if ip, err := net.DefaultResolver.LookupIPAddr(ctx, u.Hostname()); err == nil && len(ip) > 0 {
			req.Host = net.JoinHostPort(ip[0].IP.String(), u.Port())
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		// The client's error names the URL, token included: say it
		// without.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("GET /json/version: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return "", fmt.Errorf("GET /json/version: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /json/version: HTTP %d: %w", resp.StatusCode, ErrEndpointVersion)
	}
	var ver struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.Unmarshal(body, &ver); err != nil || ver.WebSocketDebuggerURL == "" {
		return "", fmt.Errorf("GET /json/version: %w", ErrEndpointVersion)
	}
	return ver.WebSocketDebuggerURL, nil
}

// joinEndpoint is the debugger URL ws the server at u named, completed
// with what u says that the server could not know: its public host and
// the credentials in u's query.
func joinEndpoint(u *url.URL, ws string) (string, error) {
	w, err := url.Parse(ws)
	if err != nil || (w.Scheme != "ws" && w.Scheme != "wss") {
		return "", fmt.Errorf("resolve %s: %w: %q is not a WebSocket URL", EndpointName(u.String()), ErrEndpointVersion, EndpointName(ws))
	}
	if ip := net.ParseIP(w.Hostname()); (ip != nil && (ip.IsLoopback() || ip.IsUnspecified())) || w.Hostname() == "localhost" {
		if w.Hostname() != u.Hostname() {
			w.Host = u.Host
		}
	}
	if strings.EqualFold(u.Scheme, "https") {
		w.Scheme = "wss"
	}
	q := w.Query()
	for k, vs := range u.Query() {
		if !q.Has(k) {
			q[k] = vs
		}
	}
	w.RawQuery = q.Encode()
	return w.String(), nil
}

// ConnectEndpoint connects to the remote browser at raw (any form
// CheckEndpoint accepts), resolving an http(s) address first; opts
// configure it as for Launch (viewport, timeouts, Logf). The URL is dialled
// as resolved: chromedp's own rewriting, which would drop a token and
// turn wss into http, is off.
func ConnectEndpoint(ctx context.Context, raw string, opts Options) (*Browser, error) {
	ws, err := ResolveEndpoint(ctx, raw, nil)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	opts.RemoteURL, opts.resolved = ws, true
	b, err := Launch(ctx, opts)
	if err != nil {
		// chromedp's dial error quotes the URL, credentials and all.
		return nil, &redactedError{fmt.Errorf("connect %s: %w", EndpointName(raw), err), append(secretsOf(raw), secretsOf(ws)...)}
	}
	return b, nil
}

// secretsOf lists the credentials in an endpoint's address: the values of
// its credential-like query parameters and its password.
func secretsOf(raw string) []string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p)
	}
	for k, vs := range u.Query() {
		for _, s := range secretParams {
			if strings.EqualFold(k, s) {
				for _, v := range vs {
					if v != "" {
						out = append(out, v, url.QueryEscape(v))
					}
				}
			}
		}
	}
	return out
}

// redactedError is an error whose text has an endpoint's credentials
// replaced by "***"; errors.Is and errors.As see the error under it.
type redactedError struct {
	err     error
	secrets []string
}

// Error is the wrapped error's text without the credentials.
func (e *redactedError) Error() string {
	s := e.err.Error()
	for _, sec := range e.secrets {
		s = strings.ReplaceAll(s, sec, "***")
	}
	return s
}

// Unwrap returns the error with the credentials in its text.
func (e *redactedError) Unwrap() error { return e.err }

// Version is what the browser says it is: its product and version
// ("HeadlessChrome/131.0.6778.85"), and the DevTools protocol's. vroom
// doctor shows it for a remote endpoint, so the person sees which browser
// answered at an address.
func (b *Browser) Version(ctx context.Context) (string, error) {
	s, err := b.session(ctx)
	if err != nil {
		return "", fmt.Errorf("browser version: %w", err)
	}
	v, err := cdp.Call(ctx, chromedp.FromContext(s.ctx).Browser, cdpbrowser.GetVersion, cdp.Empty{})
	if err != nil {
		return "", fmt.Errorf("browser version: %w", b.mapErr(err))
	}
	return fmt.Sprintf("%s (protocol %s)", v.Product, v.ProtocolVersion), nil
}
