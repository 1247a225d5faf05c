package agents

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// LogRecord is one line of a run log.
type LogRecord struct {
	Time    time.Time       `json:"t"`
	Event   LogEvent        `json:"event"`
	Agent   string          `json:"agent,omitempty"`
	PID     int             `json:"pid,omitempty"`
	Step    int             `json:"step,omitempty"`
	Tab     string          `json:"tab,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Kind    string          `json:"kind,omitempty"`
	Text    string          `json:"text,omitempty"`
	URL     string          `json:"url,omitempty"`
	Outcome string          `json:"outcome,omitempty"`
	Effect  *bool           `json:"effect,omitempty"`
	Bytes   int             `json:"bytes,omitempty"` // observation size
	Usage   *Usage          `json:"usage,omitempty"`
	Success *bool           `json:"success,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// ErrRunLogWrite means a run's log could not be written (the disk full,
// the file's permission taken away). The run stops at once: a run whose
// record is cut must not claim success, and history and replay read the
// log alone.
var ErrRunLogWrite = errors.New("the run log cannot be written")

// RunLogError is the first write to a run log that failed. errors.Is
// matches ErrRunLogWrite and the cause (syscall.ENOSPC for a full disk).
type RunLogError struct {
	Path string // the log file, or "the run log" when it is not a file
	Err  error
}

// Error names the file and the cause: "the run log cannot be written:
// /home/me/.local/share/vroom/runs/ID.jsonl: no space left on device".
func (e *RunLogError) Error() string {
	cause := e.Err
	var pe *os.PathError
	if errors.As(cause, &pe) {
		cause = pe.Err // the path is already named
	}
	return fmt.Sprintf("%v: %s: %v", ErrRunLogWrite, e.Path, cause)
}

// Unwrap matches ErrRunLogWrite and the cause.
func (e *RunLogError) Unwrap() []error { return []error{ErrRunLogWrite, e.Err} }

// RunLog appends a run's events as JSON lines. Secrets registered with
// Redact never reach it. A nil *RunLog discards everything, so callers need
// not check. It is safe for concurrent use.
type RunLog struct {
	clock Clock
	path  string

	mu      sync.Mutex
	w       *bufio.Writer
	c       io.Closer
	secrets []string
	err     error
	// failed is told of the first write error, once (the run fails).
	failed func(error)
}

// NewRunLog writes records to w. A w that names itself (an *os.File) is
// named in a write error.
func NewRunLog(w io.Writer, clock Clock) *RunLog {
	if clock == nil {
		clock = wallClock()
	}
	l := &RunLog{clock: clock, w: bufio.NewWriter(w), path: "the run log"}
	if c, ok := w.(io.Closer); ok {
		l.c = c
	}
	if n, ok := w.(interface{ Name() string }); ok {
		l.path = n.Name()
	}
	return l
}

// NewRunID names a run by its start time, sortable, with a random suffix
// so two runs started in the same second differ.
func NewRunID(now time.Time) string {
	return now.UTC().Format("20060102-150405") + fmt.Sprintf("-%04x", rand.IntN(1<<16))
}

// CreateRunLog creates dir/runID.jsonl, readable only by the user since a
// run log can hold what pages showed. A log that cannot be created is a
// *RunLogError, as one that cannot be written.
func CreateRunLog(dir, runID string, clock Clock) (*RunLog, error) {
	path := filepath.Join(dir, runID+".jsonl")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, &RunLogError{Path: path, Err: err}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, &RunLogError{Path: path, Err: err}
	}
	return NewRunLog(f, clock), nil
}

// Redact makes the log replace secret wherever it would appear.
func (l *RunLog) Redact(secret string) {
	if l == nil || len(secret) < 4 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.secrets = append(l.secrets, secret)
}

// Write appends rec, stamping its time. Records are flushed at once so a
// crash loses nothing and a watcher can tail the file.
func (l *RunLog) Write(rec LogRecord) {
	if l == nil {
		return
	}
	if rec.Time.IsZero() {
		rec.Time = l.clock.Now()
	}
	if len(rec.Args) > 0 && !json.Valid(rec.Args) {
		// Malformed arguments are logged as the text they were.
		q, _ := json.Marshal(string(rec.Args))
		rec.Args = q
	}
	b, err := json.Marshal(rec)
	if err != nil {
		b, _ = json.Marshal(LogRecord{Time: rec.Time, Event: LogLogError, Error: err.Error()})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	line := string(b)
	for _, s := range l.secrets {
		line = strings.ReplaceAll(line, s, "[redacted]")
		// The JSON form of a secret with quotes or backslashes differs.
		if js, _ := json.Marshal(s); len(js) > 2 {
			line = strings.ReplaceAll(line, string(js[1:len(js)-1]), "[redacted]")
		}
	}
	first := l.err == nil
	if _, err := l.w.WriteString(line + "\n"); err != nil && l.err == nil {
		l.err = &RunLogError{Path: l.path, Err: err}
	}
	if err := l.w.Flush(); err != nil && l.err == nil {
		l.err = &RunLogError{Path: l.path, Err: err}
	}
	if first && l.err != nil && l.failed != nil {
		// Told in a goroutine of its own: a writer may hold the run's
		// locks, and failing the run takes them.
		go l.failed(l.err)
	}
}

// Err returns the first write error (a *RunLogError), nil while every
// record was written whole.
func (l *RunLog) Err() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// onFail makes f told of the log's first write error, at once if it has
// already failed.
func (l *RunLog) onFail(f func(error)) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failed = f
	if l.err != nil {
		go f(l.err)
	}
}

// Close flushes and closes the log, reporting the first write error.
func (l *RunLog) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.w.Flush(); err != nil && l.err == nil {
		l.err = &RunLogError{Path: l.path, Err: err}
	}
	if l.c != nil {
		if err := l.c.Close(); err != nil && l.err == nil {
			l.err = &RunLogError{Path: l.path, Err: err}
		}
	}
	return l.err
}

// ReadRunLog decodes a run log.
func ReadRunLog(r io.Reader) ([]LogRecord, error) {
	var out []LogRecord
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var rec LogRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return out, fmt.Errorf("read run log line %d: %w", n, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read run log: %w", err)
	}
	return out, nil
}

// Replay writes recs as a readable timeline, one line per record, with
// times relative to the first record.
func Replay(w io.Writer, recs []LogRecord) error {
	if len(recs) == 0 {
		return nil
	}
	start := recs[0].Time
	for _, r := range recs {
		if _, err := fmt.Fprintln(w, FormatRecord(r, start)); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	}
	return nil
}

// FormatRecord renders one record as a line, times relative to start.
func FormatRecord(r LogRecord, start time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%8.2fs ", r.Time.Sub(start).Seconds())
	who := r.Agent
	if who == "" {
		who = "run"
	}
	fmt.Fprintf(&b, "%-10s %-16s", who, r.Event)
	if r.Step > 0 {
		fmt.Fprintf(&b, " #%d", r.Step)
	}
	if r.Tool != "" {
		fmt.Fprintf(&b, " %s", r.Tool)
		if len(r.Args) > 0 {
			fmt.Fprintf(&b, " %s", clip(string(r.Args), 160))
		}
	}
	if r.Kind != "" {
		fmt.Fprintf(&b, " [%s]", r.Kind)
	}
	if r.Tab != "" {
		fmt.Fprintf(&b, " tab %s", r.Tab)
	}
	if r.Text != "" {
		fmt.Fprintf(&b, " %q", clip(r.Text, 200))
	}
	if r.Outcome != "" {
		fmt.Fprintf(&b, " → %s", clip(r.Outcome, 160))
	}
	if r.Effect != nil && !*r.Effect {
		b.WriteString(" (no visible effect)")
	}
	if r.URL != "" {
		fmt.Fprintf(&b, " @ %s", r.URL)
	}
	if r.Bytes > 0 {
		fmt.Fprintf(&b, " (%d bytes)", r.Bytes)
	}
	if r.Usage != nil {
		fmt.Fprintf(&b, " tokens %d↑ %d↓ $%.4f", r.Usage.PromptTokens, r.Usage.CompletionTokens, r.Usage.Cost)
	}
	if r.Success != nil {
		if *r.Success {
			b.WriteString(" success")
		} else {
			b.WriteString(" FAILED")
		}
	}
	if r.Error != "" {
		fmt.Fprintf(&b, " error: %s", clip(r.Error, 200))
	}
	return b.String()
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
