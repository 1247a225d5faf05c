package voice

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
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
	n := len(c.Samples) * 2
	b := make([]byte, 44, 44+n)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+n))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], uint32(c.Rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(c.Rate*2))
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(n))
	for _, s := range c.Samples {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return b
}

// ErrFormat reports audio the package cannot decode.
var ErrFormat = errors.New("unsupported audio format")

// wavHeader reads a WAV header up to the start of the data chunk and
// returns the sample rate. The data chunk's size is ignored: streaming
// writers (espeak-ng --stdout) do not know it and write a placeholder.
func wavHeader(r io.Reader) (rate int, err error) {
	var riff [12]byte
	if _, err := io.ReadFull(r, riff[:]); err != nil {
		return 0, fmt.Errorf("read wav header: %w", err)
	}
	if string(riff[0:4]) != "RIFF" || string(riff[8:12]) != "WAVE" {
		return 0, fmt.Errorf("read wav header: %w: not RIFF/WAVE", ErrFormat)
	}
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return 0, fmt.Errorf("read wav chunk: %w", err)
		}
		size := int64(binary.LittleEndian.Uint32(hdr[4:]))
		switch string(hdr[0:4]) {
		case "data":
			if rate == 0 {
				return 0, fmt.Errorf("read wav: %w: data before fmt", ErrFormat)
			}
			return rate, nil
		case "fmt ":
			if size < 16 {
				return 0, fmt.Errorf("read wav fmt: %w", ErrFormat)
			}
			f := make([]byte, size+size%2)
			if _, err := io.ReadFull(r, f); err != nil {
				return 0, fmt.Errorf("read wav fmt: %w", err)
			}
			format := binary.LittleEndian.Uint16(f[0:])
			channels := binary.LittleEndian.Uint16(f[2:])
			bits := binary.LittleEndian.Uint16(f[14:])
			if format != 1 || channels != 1 || bits != 16 {
				return 0, fmt.Errorf("read wav: %w: format %d, %d channels, %d bits", ErrFormat, format, channels, bits)
			}
			rate = int(binary.LittleEndian.Uint32(f[4:]))
		default:
			if _, err := io.CopyN(io.Discard, r, size+size%2); err != nil {
				return 0, fmt.Errorf("skip wav chunk: %w", err)
			}
		}
	}
}

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
