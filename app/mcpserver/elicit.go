package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
)

// ErrNoElicitation is why an irreversible action or leaving the sites is
// denied for an MCP client that cannot ask its user: it did not declare
// elicitation when it connected.
var ErrNoElicitation = errors.New("the MCP client cannot ask its user (it does not support elicitation)")

// The answers a confirmation offers, as the elicitation form's choices.
const (
	answerAllowOnce = "allow once"
	answerAllowRun  = "allow for this run"
	answerDeny      = "deny"
)

// decisionSchema is the form a confirmation shows: one required choice.
var decisionSchema = json.RawMessage(`{"type":"object","properties":{"decision":{"type":"string","title":"Decision",` +
	`"enum":["` + answerDeny + `","` + answerAllowOnce + `","` + answerAllowRun + `"]}},"required":["decision"]}`)

// elicitor asks the MCP client's user, through elicitation, what the
// desktop asks with a card: confirmations (agents.Confirmer) and the
// agents' questions (agents.Asker).
type elicitor struct {
	ss *mcp.ServerSession
	// call is the tool call's context. Over HTTP, a request to the client
	// goes out on the stream of the call it carries; the agents' own
	// contexts do not carry it.
	call context.Context
}

// canElicit reports whether the client declared elicitation.
func canElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// within is the call's context, ended also when ctx (an agent's) ends.
func (e elicitor) within(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(e.call)
	stop := context.AfterFunc(ctx, cancel)
	return c, func() { stop(); cancel() }
}

// Confirm asks the client's user to approve c. Without elicitation it is
// denied, and the error says why; a declined or dismissed form is a deny.
func (e elicitor) Confirm(ctx context.Context, c agents.Confirmation) (agents.Decision, error) {
	if !canElicit(e.ss) {
		return agents.Deny, fmt.Errorf("%w: %s, and %w", agents.ErrDenied, c.Reason, ErrNoElicitation)
	}
	ctx, cancel := e.within(ctx)
	defer cancel()
	res, err := e.ss.Elicit(ctx, &mcp.ElicitParams{Message: confirmMessage(c), RequestedSchema: decisionSchema})
	if err != nil {
		return agents.Deny, fmt.Errorf("ask the MCP client's user: %w", err)
	}
	if res.Action != "accept" {
		return agents.Deny, nil
	}
	switch res.Content["decision"] {
	case answerAllowOnce:
		return agents.AllowOnce, nil
	case answerAllowRun:
		return agents.AllowForRun, nil
	}
	return agents.Deny, nil
}

// confirmMessage is what the client shows its user.
func confirmMessage(c agents.Confirmation) string {
	var b strings.Builder
	who := c.Agent
	if who == "" {
		who = "Vroom"
	}
	fmt.Fprintf(&b, "%s wants to %s", who, c.Action)
	if c.Target != "" {
		fmt.Fprintf(&b, " (%s)", c.Target)
	}
	if c.URL != "" {
		fmt.Fprintf(&b, " on %s", c.URL)
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, ". It needs your approval: %s", c.Reason)
	}
	b.WriteString(".")
	return b.String()
}

// Ask puts an agent's question to the client's user: a choice when the
// agent offered options, else free text.
func (e elicitor) Ask(ctx context.Context, q agents.Question) (string, error) {
	if !canElicit(e.ss) {
		return "", ErrNoElicitation
	}
	answer := map[string]any{"type": "string", "title": "Answer"}
	if len(q.Options) > 0 {
		answer["enum"] = q.Options
	}
	schema, err := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"answer": answer}, "required": []string{"answer"}})
	if err != nil {
		return "", fmt.Errorf("ask the MCP client's user: %w", err)
	}
	ctx, cancel := e.within(ctx)
	defer cancel()
	res, err := e.ss.Elicit(ctx, &mcp.ElicitParams{Message: q.Agent + " asks: " + q.Question, RequestedSchema: json.RawMessage(schema)})
	if err != nil {
		return "", fmt.Errorf("ask the MCP client's user: %w", err)
	}
	if a, ok := res.Content["answer"].(string); ok && res.Action == "accept" {
		return a, nil
	}
	if res.Action == "decline" {
		return "", errors.New("the user declined to answer")
	}
	return "", errors.New("the user dismissed the question")
}
