package app

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"vroom/browser"
)

// liveServer streams tabs' screencast frames to the UI over a loopback HTTP
// endpoint guarded by a per-launch token. Frames go as raw JPEG bytes in a
// fetch stream rather than base64 through Wails' event bus: no encoding, no
// JSON, and a tile that stops reading (closed, or scrolled out of view)
// cancels its request, which ends the screencast subscription so Chromium
// stops encoding for it.
//
// The stream is a sequence of records: a big-endian uint32 length, that many
// bytes of JSON header ({seq, w, h, at}), a uint32 length, that many bytes of
// JPEG.
//
// A subscription asks for frames of the size it shows them at (query
// parameters w and h, in device pixels, and the JPEG quality q): a single
// large tile gets sharp frames and four small ones stay cheap. Chromium
// runs one screencast per tab at the largest size any subscriber asks for
// (browser.Tab.Screencast); a view that changes size opens a new
// subscription and drops the old one, which restarts the screencast at the
// new size.
type liveServer struct {
	token string
	tab   func(id string) (*browser.Tab, error)
	ln    net.Listener
	srv   *http.Server
}

// newLiveServer listens on a random loopback port.
func newLiveServer(tab func(id string) (*browser.Tab, error)) (*liveServer, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("live view token: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("live view listen: %w", err)
	}
	s := &liveServer{token: hex.EncodeToString(b[:]), tab: tab, ln: ln}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /live/{tab}", s.frames)
	s.srv = &http.Server{Handler: s.guard(mux), ReadHeaderTimeout: liveHeaderWait}
	go s.srv.Serve(ln)
	return s, nil
}

// URL is the base the UI appends /live/{tab}?token=… to.
func (s *liveServer) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops serving and ends every stream.
func (s *liveServer) Close() error { return s.srv.Close() }

// guard checks the token and allows the UI's origin (wails:// in the
// window, http://localhost in a dev browser) to read the stream.
func (s *liveServer) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(s.token)) != 1 {
			http.Error(w, "bad token", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// frameHeader describes one frame to the UI.
type frameHeader struct {
	Seq int64 `json:"seq"`
	W   int   `json:"w"` // the viewport in CSS pixels the frame shows
	H   int   `json:"h"`
	At  int64 `json:"at"` // capture time, Unix milliseconds
}

func (s *liveServer) frames(w http.ResponseWriter, r *http.Request) {
	tab, err := s.tab(r.PathValue("tab"))
	if err != nil {
		status := http.StatusNotFound
		if !errors.Is(err, browser.ErrTabClosed) {
			status = http.StatusServiceUnavailable
		}
		http.Error(w, err.Error(), status)
		return
	}
	q := r.URL.Query()
	opts := browser.ScreencastOptions{
		Quality:   atoiOr(q.Get("q"), 60),
		MaxWidth:  atoiOr(q.Get("w"), 0),
		MaxHeight: atoiOr(q.Get("h"), 0),
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	frames, err := tab.Screencast(ctx, opts)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	var lenBuf [4]byte
	for f := range frames {
		hdr, _ := json.Marshal(frameHeader{Seq: f.Seq, W: f.Width, H: f.Height, At: f.At.UnixMilli()})
		binary.BigEndian.PutUint32(lenBuf[:], uint32(len(hdr)))
		if _, err := w.Write(lenBuf[:]); err != nil {
			return
		}
		w.Write(hdr)
		binary.BigEndian.PutUint32(lenBuf[:], uint32(len(f.Data)))
		w.Write(lenBuf[:])
		if _, err := w.Write(f.Data); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return n
	}
	return def
}
