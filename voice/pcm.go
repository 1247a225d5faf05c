package voice

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"time"
)

// Clip is a recording: mono 16-bit samples at Rate.
type Clip struct {
	Samples []int16
	Rate    int
	// Speech reports whether the energy detector heard speech in it.
	Speech bool
}

// Duration is the clip's length.
func (c *Clip) Duration() time.Duration {
	if c == nil || c.Rate == 0 {
		return 0
	}
	return time.Duration(len(c.Samples)) * time.Second / time.Duration(c.Rate)
}

// WAV encodes the clip as a RIFF WAVE file (PCM, 16-bit, mono).
func (c *Clip) WAV() []byte {
	return WAV(c.Samples, c.Rate)
}

// ErrFormat reports audio the package cannot decode.
var ErrFormat = errors.New("unsupported audio format")

// pcmReader turns a stream of s16le mono bytes (raw, or WAV when it starts
// with a RIFF header) into chunks of samples at the player's rate.
type pcmReader struct {
	r     *bufio.Reader
	c     io.Closer
	buf   []byte
	odd   []byte // a sample split across reads
	rs    resampler
	close func() error
}

// newPCMReader wraps rc; rate is the raw stream's rate, overridden by a WAV
// header when there is one; out is the rate wanted.
func newPCMReader(rc io.ReadCloser, rate, out int) (*pcmReader, error) {
	br := bufio.NewReaderSize(rc, 8192)
	if magic, err := br.Peek(4); err == nil && bytes.Equal(magic, []byte("RIFF")) {
		r, err := wavHeader(br)
		if err != nil {
			rc.Close()
			return nil, err
		}
		rate = r
	}
	return &pcmReader{r: br, c: rc, buf: make([]byte, 4096), rs: resampler{step: float64(rate) / float64(out)}}, nil
}

// Next returns the next chunk of samples; at the end of the stream it
// returns what is left with io.EOF.
func (p *pcmReader) Next() ([]int16, error) {
	n, err := p.r.Read(p.buf)
	b := p.buf[:n]
	if len(p.odd) > 0 && n > 0 {
		b = append(p.odd, b...)
		p.odd = p.odd[:0]
	}
	if len(b)%2 == 1 {
		p.odd = append(p.odd[:0], b[len(b)-1])
		b = b[:len(b)-1]
	}
	in := make([]int16, len(b)/2)
	for i := range in {
		in[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return p.rs.process(in), err
}

// Close releases the stream.
func (p *pcmReader) Close() error {
	err := p.c.Close()
	if p.close != nil {
		if err2 := p.close(); err == nil {
			err = err2
		}
	}
	return err
}

// resampler converts rates by linear interpolation: enough for speech,
// and it keeps its state across chunks so streaming adds no clicks.
type resampler struct {
	step   float64 // input samples per output sample
	pos    float64 // position of the next output between prev (0) and the next input (1)
	prev   int16
	primed bool
}

func (r *resampler) process(in []int16) []int16 {
	if r.step == 1 {
		return in
	}
	out := make([]int16, 0, int(float64(len(in))/r.step)+2)
	for _, s := range in {
		if !r.primed {
			r.prev, r.primed = s, true
			continue
		}
		for r.pos < 1 {
			out = append(out, int16(float64(r.prev)+(float64(s)-float64(r.prev))*r.pos))
			r.pos += r.step
		}
		r.pos--
		r.prev = s
	}
	return out
}
