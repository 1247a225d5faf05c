package agents

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"

	openai "github.com/sashabaranov/go-openai"
)

// ProbeResult is what one probe call found.
type ProbeResult struct {
	Model string
	API   API
	// Reply is the tool call's arguments, or the prose the model answered
	// instead.
	Reply string
	Usage Usage
}

// probeTool is the one tool a probe offers.
var probeTool = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
	Name:        "report",
	Description: "Report the word you were asked for.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string","description":"the word"}},` +
		`"required":["word"],"additionalProperties":false}`),
}}

// Probe makes one streamed tool-call round trip with role's model, through
// the API it is spoken to with, as a run's first call would: the model is
// asked to call a "report" tool. With image, the request carries a small
// PNG (input_image through the Responses API), as a screenshot reaches
// the vision model. A reply without that call wraps ErrNoToolCall; a
// refused key or a dead server is a ModelFault, as in a run. Vroom's
// agents act only through tool calls: a model that answers in prose,
// calls another tool or sends arguments that are not JSON cannot run them.
func (m *Model) Probe(ctx context.Context, role Role, withImage bool) (ProbeResult, error) {
	res := ProbeResult{Model: m.modelFor(role), API: m.APIFor(role)}
	ask := "This is a connection check. Call the report tool with the word \"ready\"."
	user := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: ask}
	if withImage {
		img, err := probePNG()
		if err != nil {
			return res, fmt.Errorf("probe %s: %w", role, err)
		}
		user = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: ask + " The image below is a red square; it needs no answer."},
			{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{
				URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(img), Detail: openai.ImageURLDetailLow}},
		}}
	}
	r, err := m.complete(ctx, modelCall{Role: role, Tools: []openai.Tool{probeTool}, Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You check a connection. Answer only by calling the tool you are given."}, user,
	}})
	if err != nil {
		return res, fmt.Errorf("probe %s: %w", role, err)
	}
	res.Usage, res.Reply = r.Usage, r.Content
	for _, c := range r.ToolCalls {
		if c.Name == probeTool.Function.Name {
			res.Reply = c.Args
			if !json.Valid([]byte(c.Args)) {
				return res, fmt.Errorf("probe %s: arguments %q are not JSON: %w", role, c.Args, ErrNoToolCall)
			}
			return res, nil
		}
	}
	if len(r.ToolCalls) > 0 {
		return res, fmt.Errorf("probe %s: called %q instead: %w", role, r.ToolCalls[0].Name, ErrNoToolCall)
	}
	return res, fmt.Errorf("probe %s: answered in prose: %w", role, ErrNoToolCall)
}

// probePNG is a 32×32 red square.
func probePNG() ([]byte, error) {
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for i := 0; i < len(img.Pix); i += 4 { // RGBA: opaque red
		img.Pix[i], img.Pix[i+3] = 0xff, 0xff
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("encode probe image: %w", err)
	}
	return b.Bytes(), nil
}
