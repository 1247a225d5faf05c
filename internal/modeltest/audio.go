package modeltest

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// Tone returns d of a sine at freq Hz sampled at rate, with amplitude amp
// (0..1 of full scale): a known signal tests can find again in a recording.
func Tone(freq float64, d time.Duration, rate int, amp float64) []int16 {
	n := int(d * time.Duration(rate) / time.Second) // whole samples, no float rounding
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(amp * math.MaxInt16 * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return out
}

// PCMBytes encodes samples as signed 16-bit little-endian.
func PCMBytes(samples []int16) []byte {
	b := make([]byte, 2*len(samples))
	for i, s := range samples {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(s))
	}
	return b
}

// WAVBytes wraps raw mono s16le PCM at rate in a WAV container.
func WAVBytes(pcm []byte, rate int) []byte {
	const header = 44
	b := make([]byte, header+len(pcm))
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+len(pcm)))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], uint32(rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(rate*2))
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(len(pcm)))
	copy(b[header:], pcm)
	return b
}

// ToneSpeech is the speech endpoint's default audio: for an input
// "tone <hz> <duration>" (say "tone 440 800ms") that tone at half of full
// scale, so a test can find each message again by pitch and length in what
// the speaker played; for any other input about 60 ms of 440 Hz a
// character, as long as speech would be.
func ToneSpeech(r SpeechRequest) []byte {
	var freq float64
	var ds string
	if _, err := fmt.Sscanf(r.Input, "tone %g %s", &freq, &ds); err == nil {
		if d, err := time.ParseDuration(ds); err == nil {
			return PCMBytes(Tone(freq, d, SpeechRate, 0.5))
		}
	}
	d := time.Duration(len(r.Input)) * 60 * time.Millisecond
	return PCMBytes(Tone(440, d, SpeechRate, 0.5))
}
