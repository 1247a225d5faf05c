package voice

import "math"

// vadEvent is what the detector saw in a frame.
type vadEvent int

const (
	vadNone  vadEvent = iota
	vadStart          // speech began in this frame
	vadEnd            // the hangover after speech ran out in this frame
)

// vad finds utterances by energy. Time is counted in samples, not read
// from a clock, so it behaves the same on any machine and in tests.
type vad struct {
	threshold float64 // RMS, full scale = 1
	minSpeech int     // samples above threshold before an utterance counts
	hangover  int     // samples below threshold that end an utterance

	inSpeech bool
	heard    bool // any utterance since reset
	loud     int  // consecutive loud samples
	quiet    int  // consecutive quiet samples while in speech
}

func (d *vad) reset() {
	d.inSpeech, d.heard, d.loud, d.quiet = false, false, 0, 0
}

// push feeds one frame.
func (d *vad) push(frame []int16) vadEvent {
	if rms(frame) >= d.threshold {
		d.loud += len(frame)
		d.quiet = 0
		if !d.inSpeech && d.loud >= d.minSpeech {
			d.inSpeech, d.heard = true, true
			return vadStart
		}
		return vadNone
	}
	d.loud = 0
	if !d.inSpeech {
		return vadNone
	}
	d.quiet += len(frame)
	if d.quiet >= d.hangover {
		d.inSpeech, d.quiet = false, 0
		return vadEnd
	}
	return vadNone
}

// rms is the root mean square of s, full scale = 1. It does not allocate,
// so the capture callback uses it for the live level.
func rms(s []int16) float64 {
	if len(s) == 0 {
		return 0
	}
	var sum float64
	for _, v := range s {
		f := float64(v)
		sum += f * f
	}
	return math.Sqrt(sum/float64(len(s))) / 32768
}
