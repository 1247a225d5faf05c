package modeltest_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"vroom/internal/modeltest"
)

// plan asks the planner role for its next call after the conversation msgs
// and returns the call's name and arguments.
func plan(t *testing.T, s *modeltest.Server, msgs []openai.ChatCompletionMessage) (string, map[string]any) {
	t.Helper()
	resp, err := client(s).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "planner", Messages: msgs})
	if err != nil || len(resp.Choices) == 0 || len(resp.Choices[0].Message.ToolCalls) != 1 {
		t.Fatalf("planner: %v %+v", err, resp)
	}
	tc := resp.Choices[0].Message.ToolCalls[0]
	var args map[string]any
	if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil {
		t.Fatal(err)
	}
	return tc.Function.Name, args
}

// answered is msgs with the planner's call and its tool result appended.
func answered(msgs []openai.ChatCompletionMessage, name, result string) []openai.ChatCompletionMessage {
	id := "call_" + name + string(rune('a'+len(msgs)))
	return append(msgs,
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: "{}"}}}},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: result})
}

// The planner spawns each task once, however many results come in
// between, waits until nothing runs, and finishes with the summaries.
func TestPlannerScript(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Script("planner", modeltest.PlannerTasks("north", "east"))
	msgs := userMsg("get two quotes")
	var spawned []string
	for range 2 {
		name, args := plan(t, s, msgs)
		if name != "spawn" {
			t.Fatalf("call %q before both spawns", name)
		}
		spawned = append(spawned, args["task"].(string))
		msgs = answered(msgs, "spawn", `{"pid":1}`)
	}
	if strings.Join(spawned, ",") != "north,east" {
		t.Fatalf("spawned %v", spawned)
	}
	if name, args := plan(t, s, msgs); name != "wait" || args["mode"] != "all" {
		t.Fatalf("after the spawns: %s %v", name, args)
	}
	msgs = answered(msgs, "wait", `{"finished":[{"pid":1,"summary":"quote 101","success":true}],"running":[2]}`)
	if name, _ := plan(t, s, msgs); name != "wait" {
		t.Fatalf("with an agent running: %s", name)
	}
	msgs = answered(msgs, "wait", `{"finished":[{"pid":2,"summary":"no quote","success":false}],"running":[]}`)
	name, args := plan(t, s, msgs)
	if name != "done" || args["summary"] != "all finished: quote 101; no quote" || args["success"] != false {
		t.Fatalf("at the end: %s %v", name, args)
	}
}

// "tone <hz> <duration>" is answered with that tone; HoldSpeech holds the
// rest of the body back until released.
func TestToneSpeechHeld(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	release := make(chan struct{})
	s.HoldSpeech(100*time.Millisecond, release)
	raw, err := client(s).CreateSpeech(context.Background(), openai.CreateSpeechRequest{
		Model: "tts", Input: "tone 500 300ms", Voice: openai.VoiceAlloy, ResponseFormat: openai.SpeechResponseFormatPcm,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	first := make([]byte, modeltest.SpeechRate/10*2)
	if _, err := io.ReadFull(raw, first); err != nil {
		t.Fatalf("the first 100 ms did not arrive before the release: %v", err)
	}
	close(release)
	rest, err := io.ReadAll(raw)
	if err != nil || len(rest) != modeltest.SpeechRate/5*2 {
		t.Fatalf("after the release: %v, %d bytes, want 200 ms", err, len(rest))
	}
	if got := modeltest.ToneSpeech(modeltest.SpeechRequest{Input: "hello"}); len(got) != 5*60*modeltest.SpeechRate/1000*2 {
		t.Errorf("plain input: %d bytes, want 60 ms a character", len(got))
	}
}
