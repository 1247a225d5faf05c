package cli

import (
	"bufio"
	"context"
	"io"
	"strings"

	"vroom/agents"
	"vroom/voice"
)

// listen turns the person's input into corrections: a typed line is said
// to every agent at once; with push-to-talk an empty line opens the
// microphone and the next one closes it. What was said then reaches every
// agent through the run's transcripts (BuiltRun.hear).
func listen(ctx context.Context, in io.Reader, room *agents.Room, v *voice.Voice, ptt bool) {
	lines := make(chan string)
	go func() {
		// Reading a terminal cannot be cancelled: this goroutine ends
		// with the input or the process.
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- strings.TrimSpace(sc.Text()):
			case <-ctx.Done():
				return
			}
		}
	}()
	talking := false
	for {
		var line string
		select {
		case l, ok := <-lines:
			if !ok {
				return
			}
			line = l
		case <-ctx.Done():
			return
		}
		switch {
		case line != "":
			room.UserStarts()
			room.UserSays(line)
			room.UserStops()
		case v != nil && ptt && !talking:
			room.UserStarts()
			if err := v.Unmute(ctx); err != nil {
				room.Notice("the microphone did not open: %v", err)
				room.UserStops()
				continue
			}
			talking = true
		case talking:
			talking = false
			if c, err := v.Mute(ctx); err != nil || c == nil || !c.Speech {
				room.UserStops() // nothing to transcribe
			}
		}
	}
}
