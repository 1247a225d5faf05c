package modeltest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"vroom/internal/modeltest"
)

func client(s *modeltest.Server) *openai.Client {
	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = s.URL
	return openai.NewClientWithConfig(cfg)
}

func userMsg(s string) []openai.ChatCompletionMessage {
	return []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: s}}
}

func TestStreamToolCallsInterleaved(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("exec", modeltest.Calls(
		modeltest.CallOf("click", map[string]string{"ref": "e12"}),
		modeltest.CallOf("type", map[string]any{"ref": "e3", "text": "hello world, a long enough text"}),
	))
	st, err := client(s).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: "exec", Messages: userMsg("go"), Stream: true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	type acc struct{ id, name, args string }
	calls := map[int]*acc{}
	var order []int // index of each argument chunk, to see interleaving
	var usage *openai.Usage
	var finish openai.FinishReason
	for {
		resp, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage != nil {
			usage = resp.Usage
		}
		for _, ch := range resp.Choices {
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index == nil {
					t.Fatal("tool call chunk without index")
				}
				a := calls[*tc.Index]
				if a == nil {
					if tc.ID == "" || tc.Function.Name == "" {
						t.Fatalf("first chunk of call %d lacks id or name: %+v", *tc.Index, tc)
					}
					a = &acc{}
					calls[*tc.Index] = a
				} else if tc.ID != "" || tc.Function.Name != "" {
					t.Fatalf("later chunk of call %d repeats id or name", *tc.Index)
				}
				a.id += tc.ID
				a.name += tc.Function.Name
				if tc.Function.Arguments != "" {
					a.args += tc.Function.Arguments
					order = append(order, *tc.Index)
				}
			}
		}
	}
	if len(calls) != 2 || calls[0].name != "click" || calls[1].name != "type" {
		t.Fatalf("calls = %+v", calls)
	}
	if calls[0].args != `{"ref":"e12"}` || !strings.Contains(calls[1].args, "long enough") {
		t.Fatalf("args = %q, %q", calls[0].args, calls[1].args)
	}
	if len(order) < 3 || order[0] != 0 || order[1] != 1 {
		t.Fatalf("argument chunks not interleaved by index: %v", order)
	}
	if finish != openai.FinishReasonToolCalls {
		t.Fatalf("finish = %q", finish)
	}
	if usage == nil || usage.PromptTokens == 0 || usage.TotalTokens != usage.PromptTokens+usage.CompletionTokens {
		t.Fatalf("usage = %+v", usage)
	}
	reqs := s.Requests("exec")
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("recorded %d requests", len(reqs))
	}
}

func TestNotStreamedAndMatchers(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Script("planner",
		modeltest.Step{Match: modeltest.LastToolResultContains("pid 1 done"), Reply: modeltest.Call("done", map[string]any{"summary": "ok", "success": true})},
		modeltest.Step{Reply: modeltest.Call("spawn", map[string]string{"task": "x"})},
	)
	c := client(s)
	sys := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: "You plan. [role:planner]"}
	resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "same-model", Messages: []openai.ChatCompletionMessage{sys, {Role: "user", Content: "task"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.ToolCalls[0].Function.Name; got != "spawn" {
		t.Fatalf("first reply calls %q, want spawn (role from marker, matcher skipped)", got)
	}
	resp, err = c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "same-model", Messages: []openai.ChatCompletionMessage{sys,
			{Role: "user", Content: "task"},
			{Role: "assistant", ToolCalls: resp.Choices[0].Message.ToolCalls},
			{Role: "tool", ToolCallID: resp.Choices[0].Message.ToolCalls[0].ID, Content: "pid 1 done: found it"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.ToolCalls[0].Function.Name; got != "done" {
		t.Fatalf("second reply calls %q, want done", got)
	}
	if resp.Usage.TotalTokens == 0 {
		t.Fatal("no usage in non-streamed reply")
	}
	// Script exhausted: a clear error, recorded as unmatched.
	_, err = c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "same-model", Messages: []openai.ChatCompletionMessage{sys}})
	if err == nil || len(s.Unmatched()) != 1 {
		t.Fatalf("exhausted script: err=%v unmatched=%d", err, len(s.Unmatched()))
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("m",
		modeltest.RateLimited(2*time.Second),
		modeltest.ServerError(),
		modeltest.Slow(time.Minute, modeltest.Text("never")),
		modeltest.MalformedArgs("click", `{"ref": "e1"`),
		modeltest.Think("hmm", modeltest.Text("prose instead")),
		modeltest.Truncated(30, modeltest.Call("done", map[string]any{"summary": "a long summary that will be cut off", "success": true})),
	)
	c := client(s)
	req := openai.ChatCompletionRequest{Model: "m", Messages: userMsg("x")}

	_, err := c.CreateChatCompletion(context.Background(), req)
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 429 {
		t.Fatalf("want 429, got %v", err)
	}
	_, err = c.CreateChatCompletion(context.Background(), req)
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 500 {
		t.Fatalf("want 500, got %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	start := time.Now()
	_, err = c.CreateChatCompletion(ctx, req)
	cancel()
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("slow reply: err=%v after %v", err, time.Since(start))
	}

	resp, err := c.CreateChatCompletion(context.Background(), req)
	if err != nil || resp.Choices[0].Message.ToolCalls[0].Function.Arguments != `{"ref": "e1"` {
		t.Fatalf("malformed: %v %+v", err, resp)
	}
	resp, err = c.CreateChatCompletion(context.Background(), req)
	if err != nil || resp.Choices[0].Message.Content != "<think>hmm</think>prose instead" {
		t.Fatalf("think: %v %q", err, resp.Choices[0].Message.Content)
	}
	resp, err = c.CreateChatCompletion(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	ch := resp.Choices[0]
	if ch.FinishReason != openai.FinishReasonLength || len(ch.Message.ToolCalls[0].Function.Arguments) != 30 {
		t.Fatalf("truncated: %q %q", ch.FinishReason, ch.Message.ToolCalls[0].Function.Arguments)
	}
}

func TestRetryAfterHeader(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("m", modeltest.RateLimited(1500*time.Millisecond))
	resp, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("status %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestDynamicStep(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Script("m", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		return modeltest.Text("echo: " + r.Chat.Messages[len(r.Chat.Messages)-1].Content)
	}})
	c := client(s)
	for _, w := range []string{"a", "b", "c"} {
		resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: userMsg(w)})
		if err != nil || resp.Choices[0].Message.Content != "echo: "+w {
			t.Fatalf("%v %+v", err, resp)
		}
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.SetModels("gpt-x", "gpt-y")
	list, err := client(s).ListModels(context.Background())
	if err != nil || len(list.Models) != 2 || list.Models[0].ID != "gpt-x" {
		t.Fatalf("%v %+v", err, list)
	}
}

func TestSpeech(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.SetSpeech(func(r modeltest.SpeechRequest) []byte {
		return modeltest.PCMBytes(modeltest.Tone(1000, 100*time.Millisecond, modeltest.SpeechRate, 0.5))
	})
	c := client(s)
	for _, tc := range []struct {
		format openai.SpeechResponseFormat
		size   int
		magic  string
	}{
		{openai.SpeechResponseFormatPcm, 4800, ""},
		{openai.SpeechResponseFormatWav, 4844, "RIFF"},
	} {
		raw, err := c.CreateSpeech(context.Background(), openai.CreateSpeechRequest{
			Model: "tts", Input: "hello", Voice: openai.VoiceAlloy, ResponseFormat: tc.format,
		})
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(raw)
		raw.Close()
		if err != nil || len(b) != tc.size || !bytes.HasPrefix(b, []byte(tc.magic)) {
			t.Fatalf("%s: %v, %d bytes", tc.format, err, len(b))
		}
	}
	if sp := s.Speeches(); len(sp) != 2 || sp[0].Input != "hello" || sp[0].Voice != "alloy" || sp[0].ResponseFormat != "pcm" {
		t.Fatalf("speeches = %+v", sp)
	}
}

func TestTranscription(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Transcribe("find the most recent repo", "second")
	c := client(s)
	clip := modeltest.WAVBytes(modeltest.PCMBytes(modeltest.Tone(300, time.Second, 16000, 0.3)), 16000)
	resp, err := c.CreateTranscription(context.Background(), openai.AudioRequest{
		Model: "whisper-1", FilePath: "clip.wav", Reader: bytes.NewReader(clip), Language: "en",
	})
	if err != nil || resp.Text != "find the most recent repo" {
		t.Fatalf("%v %+v", err, resp)
	}
	resp, err = c.CreateTranscription(context.Background(), openai.AudioRequest{
		Model: "whisper-1", FilePath: "clip.wav", Reader: bytes.NewReader(clip), Format: openai.AudioResponseFormatText,
	})
	if err != nil || resp.Text != "second" {
		t.Fatalf("text format: %v %+v", err, resp)
	}
	ups := s.Uploads()
	if len(ups) != 2 || ups[0].Filename != "clip.wav" || !bytes.Equal(ups[0].Data, clip) ||
		ups[0].Fields["model"] != "whisper-1" || ups[0].Fields["language"] != "en" {
		t.Fatalf("upload = %+v", ups[0].Fields)
	}
}

func TestChangedWakesWaiter(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("m", modeltest.Text("hi"))
	ch := s.Changed()
	go client(s).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: userMsg("x")})
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification of a request")
	}
	if len(s.Requests("m")) != 1 {
		t.Fatal("request not recorded")
	}
}
