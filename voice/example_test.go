package voice_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"vroom/voice"
)

// A run speaks through a Voice when there is sound and carries on
// text-only when there is not.
func ExampleNew() {
	ctx := context.Background()
	v, err := voice.New(ctx, voice.Config{
		BaseURL: "http://localhost:8080/v1", // any OpenAI-compatible server
		APIKey:  "sk-...",
	})
	if errors.Is(err, voice.ErrNoAudio) {
		log.Printf("no sound, text only: %v", err)
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()

	p, err := v.Say(ctx, "executor-1", "I found three repositories.")
	if err != nil {
		log.Print(err) // the message stays in the transcript, unspoken
		return
	}
	<-p.Done()
	fmt.Println(p.Played(), p.Interrupted())
}

// Push-to-talk: key down opens the microphone and silences the agents,
// key up sends the recording for transcription.
func ExampleVoice_PushToTalk() {
	ctx := context.Background()
	v, err := voice.New(ctx, voice.Config{BaseURL: "http://localhost:8080/v1"})
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()

	if _, err := v.PushToTalk(ctx, true); err != nil { // key down
		log.Fatal(err)
	}
	// ... the UI polls v.Level() for its meter while the key is held ...
	if _, err := v.PushToTalk(ctx, false); err != nil { // key up
		log.Fatal(err)
	}
	t := <-v.Transcripts()
	if t.Err != nil {
		log.Fatal(t.Err)
	}
	fmt.Println("the person said:", t.Text)
}
