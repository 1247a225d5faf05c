package voice

import (
	"encoding/binary"
	"fmt"
	"io"
)

// WAV encodes samples, mono 16-bit at rate, as a RIFF WAVE file: the
// container a transcription endpoint accepts for a clip.
func WAV(samples []int16, rate int) []byte {
	n := len(samples) * 2
	b := make([]byte, 44, 44+n)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+n))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], uint32(rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(rate*2))
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(n))
	for _, s := range samples {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return b
}

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
