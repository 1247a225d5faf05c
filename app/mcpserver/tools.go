package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
	"vroom/browser"
)

// The browser engine for a client that drives a tab itself: the agents'
// own adapter (runner.Tab: compact observations, diffs, verified trusted
// input, the safety gate's target), leased to the client.

// mcpAgent names the client's model in what its user is asked.
const mcpAgent = "Your assistant"

type tabArg struct {
	Tab string `json:"tab" jsonschema:"the tab's id, from open"`
}

type openArgs struct {
	URL string `json:"url" jsonschema:"the page to open, http or https"`
}

type observeArgs struct {
	Tab    string   `json:"tab" jsonschema:"the tab's id, from open"`
	Query  string   `json:"query,omitempty" jsonschema:"only controls whose name, value or nearby text contains this, over the whole page"`
	Roles  []string `json:"roles,omitempty" jsonschema:"only controls with these roles: button, link, textbox, option..."`
	Within string   `json:"within,omitempty" jsonschema:"a ref: only that control's subtree (a dialog, a list)"`
	Limit  int      `json:"limit,omitempty" jsonschema:"at most this many controls"`
}

// pageResult is a tab's page as the agents see it.
type pageResult struct {
	Tab   string `json:"tab"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Page  string `json:"page" jsonschema:"the compact observation: one control a line with its ref (e12 button \"Save\"), then the page's text"`
}

type clickArgs struct {
	Tab string `json:"tab" jsonschema:"the tab's id, from open"`
	Ref string `json:"ref" jsonschema:"the control's ref, from the latest observation"`
}

type typeArgs struct {
	Tab    string `json:"tab" jsonschema:"the tab's id, from open"`
	Ref    string `json:"ref" jsonschema:"the field's ref"`
	Text   string `json:"text" jsonschema:"the text, replacing the field's value"`
	Submit bool   `json:"submit,omitempty" jsonschema:"press Enter after typing"`
}

type selectArgs struct {
	Tab    string `json:"tab" jsonschema:"the tab's id, from open"`
	Ref    string `json:"ref" jsonschema:"the select's ref"`
	Option string `json:"option" jsonschema:"the option's text"`
}

type pressArgs struct {
	Tab string `json:"tab" jsonschema:"the tab's id, from open"`
	Key string `json:"key" jsonschema:"a key or chord: Enter, Escape, Tab, Control+a"`
}

type scrollArgs struct {
	Tab       string  `json:"tab" jsonschema:"the tab's id, from open"`
	Direction string  `json:"direction" jsonschema:"up, down, left or right"`
	Amount    float64 `json:"amount,omitempty" jsonschema:"screens to scroll (default 1)"`
	Ref       string  `json:"ref,omitempty" jsonschema:"scroll this control's box instead of the page"`
}

// actResult is an action's verdict and what changed on the page.
type actResult struct {
	Tab       string `json:"tab"`
	Verdict   string `json:"verdict" jsonschema:"what was done and whether it had any visible effect"`
	Effect    bool   `json:"effect"`
	Navigated bool   `json:"navigated"`
	URL       string `json:"url,omitempty"`
	Changes   string `json:"changes,omitempty" jsonschema:"the diff since the last look, or the new page after a navigation"`
	// Denied says why the action was not performed: the safety gate's
	// reason, and why nobody approved it.
	Denied string `json:"denied,omitempty"`
}

type waitArgs struct {
	Tab      string  `json:"tab" jsonschema:"the tab's id, from open"`
	Text     string  `json:"text,omitempty" jsonschema:"until the page's text contains this"`
	Gone     string  `json:"gone,omitempty" jsonschema:"until the page's text no longer contains this"`
	URL      string  `json:"url,omitempty" jsonschema:"until the URL contains this"`
	Query    string  `json:"query,omitempty" jsonschema:"until a control matching this exists"`
	TimeoutS float64 `json:"timeout_s,omitempty" jsonschema:"seconds to wait at most (default 10, at most 60)"`
}

type waitResult struct {
	Tab       string `json:"tab"`
	Met       bool   `json:"met"`
	Condition string `json:"condition"`
	TookMS    int64  `json:"took_ms"`
	Pending   int    `json:"pending" jsonschema:"requests still in flight"`
}

type closeResult struct {
	Tab    string `json:"tab"`
	Closed bool   `json:"closed"`
}

func (s *Server) addEngineTools() {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s.server, &mcp.Tool{Name: "open", Description: "Opens a URL in a new tab leased to you; returns the tab's id and its compact observation."}, s.open)
	mcp.AddTool(s.server, &mcp.Tool{Name: "observe", Annotations: ro, Description: "Observes a tab: the ranked controls with refs, and the text. With query, roles or within, searches the whole page for matching controls."}, s.observe)
	mcp.AddTool(s.server, &mcp.Tool{Name: "click", Description: "Clicks a control by ref, with trusted input; returns the verdict and what changed."}, s.click)
	mcp.AddTool(s.server, &mcp.Tool{Name: "type", Description: "Types text into a field by ref, replacing its value; submit presses Enter."}, s.typeText)
	mcp.AddTool(s.server, &mcp.Tool{Name: "select", Description: "Chooses an option of a select (native or custom) by ref."}, s.selectOption)
	mcp.AddTool(s.server, &mcp.Tool{Name: "press", Description: "Presses a key or chord in the focused element."}, s.press)
	mcp.AddTool(s.server, &mcp.Tool{Name: "scroll", Description: "Scrolls the page or a control's box."}, s.scroll)
	mcp.AddTool(s.server, &mcp.Tool{Name: "wait", Annotations: ro, Description: "Waits until text appears or goes, the URL changes, a control appears, or (with none) the page is idle."}, s.wait)
	mcp.AddTool(s.server, &mcp.Tool{Name: "screenshot", Annotations: ro, Description: "Captures the tab's viewport as an image; one pixel is one CSS pixel."}, s.screenshot)
	mcp.AddTool(s.server, &mcp.Tool{Name: "close", Description: "Closes a tab you opened."}, s.closeTab)
}

// open leases a new tab at the URL to the client. The URL's host is the
// tab's site: leaving it asks the user.
func (s *Server) open(ctx context.Context, req *mcp.CallToolRequest, in openArgs) (*mcp.CallToolResult, pageResult, error) {
	u, err := url.Parse(in.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, pageResult{}, fmt.Errorf("open %q: only http and https URLs", in.URL)
	}
	at, err := s.tabs.OpenTab(ctx, mcpOwner, in.URL)
	if err != nil {
		return nil, pageResult{}, err
	}
	d := newDrivenTab(at)
	if d.guard, err = s.guardTab(d, u.Hostname()); err != nil {
		s.tabs.Release(at, mcpOwner)
		// Unguarded, the tab is not the client's to drive.
		return nil, pageResult{}, errors.Join(err, at.Close(context.WithoutCancel(ctx)))
	}
	s.mu.Lock()
	s.driven[at.ID()] = d
	s.mu.Unlock()
	return s.page(ctx, d.guard.Tab(), agents.FindOptions{})
}

// tab returns the client's tab id, or why it cannot be used now.
func (s *Server) tab(id string) (*drivenTab, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.driven[id]
	switch {
	case d == nil:
		return nil, fmt.Errorf("tab %q: %w", id, ErrNoSuchTab)
	}
	if to := d.lent(); to != "" {
		return nil, fmt.Errorf("tab %q is in use by %s until it ends", id, to)
	}
	return d, nil
}

func (s *Server) observe(ctx context.Context, req *mcp.CallToolRequest, in observeArgs) (*mcp.CallToolResult, pageResult, error) {
	d, err := s.tab(in.Tab)
	if err != nil {
		return nil, pageResult{}, err
	}
	return s.page(ctx, d.guard.Tab(), agents.FindOptions{Query: in.Query, Roles: in.Roles, Within: in.Within, Limit: in.Limit})
}

// page observes t (a guarded tab, so the guard sees what the page shows):
// the whole view (and Diff's new baseline), or a search when o narrows it.
func (s *Server) page(ctx context.Context, t agents.Tab, o agents.FindOptions) (*mcp.CallToolResult, pageResult, error) {
	var obs agents.Observation
	var err error
	if o.Narrowed() || o.Limit > 0 {
		obs, err = t.Find(ctx, o)
	} else {
		obs, err = t.Observe(ctx)
	}
	if err != nil {
		return nil, pageResult{}, fmt.Errorf("observe tab %s: %w", t.ID(), err)
	}
	out := pageResult{Tab: t.ID(), URL: obs.URL, Title: obs.Title, Page: obs.Text}
	text := fmt.Sprintf("tab %s: %s (%s)\n%s", out.Tab, out.Title, out.URL, out.Page)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

func (s *Server) click(ctx context.Context, req *mcp.CallToolRequest, in clickArgs) (*mcp.CallToolResult, actResult, error) {
	return s.act(ctx, req, in.Tab, agents.Action{Kind: agents.ActClick, Ref: in.Ref})
}

func (s *Server) typeText(ctx context.Context, req *mcp.CallToolRequest, in typeArgs) (*mcp.CallToolResult, actResult, error) {
	return s.act(ctx, req, in.Tab, agents.Action{Kind: agents.ActType, Ref: in.Ref, Text: in.Text, Submit: in.Submit})
}

func (s *Server) selectOption(ctx context.Context, req *mcp.CallToolRequest, in selectArgs) (*mcp.CallToolResult, actResult, error) {
	return s.act(ctx, req, in.Tab, agents.Action{Kind: agents.ActSelect, Ref: in.Ref, Option: in.Option})
}

func (s *Server) press(ctx context.Context, req *mcp.CallToolRequest, in pressArgs) (*mcp.CallToolResult, actResult, error) {
	return s.act(ctx, req, in.Tab, agents.Action{Kind: agents.ActPress, Key: in.Key})
}

func (s *Server) scroll(ctx context.Context, req *mcp.CallToolRequest, in scrollArgs) (*mcp.CallToolResult, actResult, error) {
	return s.act(ctx, req, in.Tab, agents.Action{Kind: agents.ActScroll, Direction: in.Direction, Amount: in.Amount, Ref: in.Ref})
}

// act performs a on the client's tab, after the safety gate: an
// irreversible action needs the user's approval through elicitation. The
// document requests the action causes go through the exfiltration guard:
// leaving the tab's sites, or the person's data leaving them, is asked
// before the request goes, and a refusal is the result. The result is the verdict and what changed, as
// an agent's.
func (s *Server) act(ctx context.Context, req *mcp.CallToolRequest, id string, a agents.Action) (*mcp.CallToolResult, actResult, error) {
	d, err := s.tab(id)
	if err != nil {
		return nil, actResult{}, err
	}
	defer s.during(ctx, req, d)()
	out := actResult{Tab: id}
	if err := s.admit(ctx, req, d, a); err != nil {
		if !errors.Is(err, agents.ErrDenied) {
			return nil, actResult{}, err
		}
		out.Denied = err.Error()
		out.Verdict = a.String() + " was not performed"
		return deniedResult(out), out, nil
	}
	o, refused, err := d.guard.Act(ctx, a)
	if err != nil {
		return nil, actResult{}, fmt.Errorf("%s: %w", a, err)
	}
	out.Verdict, out.Effect, out.Navigated, out.URL = o.Summary, o.Effect, o.Navigated, o.URL
	if refused != "" {
		out.Denied = refused + "; the page did not send it"
		return deniedResult(out), out, nil
	}
	if o.Navigated {
		obs, err := d.guard.Tab().Observe(ctx)
		out.Changes = obs.Text
		if err != nil {
			out.Changes = "(the new page could not be observed: " + err.Error() + ")"
		}
	} else if out.Changes, err = d.guard.Tab().Diff(ctx); err != nil {
		out.Changes = "(what changed could not be read: " + err.Error() + ")"
	}
	text := out.Verdict
	if out.Changes != "" {
		text += "\n" + out.Changes
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// deniedResult is a refused action's result: an error for the client's
// model, saying why.
func deniedResult(out actResult) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
		Text: "refused: " + out.Denied + ". The action was not performed.",
	}}}
}

func (s *Server) wait(ctx context.Context, req *mcp.CallToolRequest, in waitArgs) (*mcp.CallToolResult, waitResult, error) {
	d, err := s.tab(in.Tab)
	if err != nil {
		return nil, waitResult{}, err
	}
	timeout := 10 * time.Second
	if in.TimeoutS > 0 {
		timeout = min(time.Duration(in.TimeoutS*float64(time.Second)), time.Minute)
	}
	w := agents.WaitFor{Text: in.Text, Gone: in.Gone, URL: in.URL, Query: in.Query}
	o, err := d.current().Wait(ctx, w, timeout)
	if err != nil {
		return nil, waitResult{}, fmt.Errorf("wait in tab %s: %w", in.Tab, err)
	}
	out := waitResult{Tab: in.Tab, Met: o.Met, Condition: o.Condition, TookMS: o.Took.Milliseconds(), Pending: o.Pending}
	text := fmt.Sprintf("waited %v until %s", o.Took.Round(time.Millisecond), o.Condition)
	if !o.Met {
		text = fmt.Sprintf("after %v, this did not happen: %s", o.Took.Round(time.Millisecond), w)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

func (s *Server) screenshot(ctx context.Context, req *mcp.CallToolRequest, in tabArg) (*mcp.CallToolResult, any, error) {
	d, err := s.tab(in.Tab)
	if err != nil {
		return nil, nil, err
	}
	shot, err := d.current().Screenshot(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("screenshot of tab %s: %w", in.Tab, err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.ImageContent{Data: shot.Data, MIMEType: shot.MIME},
		&mcp.TextContent{Text: fmt.Sprintf("%dx%d CSS pixels of tab %s", shot.Width, shot.Height, in.Tab)},
	}}, nil, nil
}

func (s *Server) closeTab(ctx context.Context, req *mcp.CallToolRequest, in tabArg) (*mcp.CallToolResult, closeResult, error) {
	d, err := s.tab(in.Tab)
	if err != nil {
		return nil, closeResult{}, err
	}
	s.mu.Lock()
	delete(s.driven, in.Tab)
	s.mu.Unlock()
	d.guard.Stop()
	t := d.current()
	s.tabs.Release(t, mcpOwner)
	if err := t.Close(ctx); err != nil && !errors.Is(err, browser.ErrTabClosed) {
		return nil, closeResult{}, fmt.Errorf("close tab %s: %w", in.Tab, err)
	}
	return nil, closeResult{Tab: in.Tab, Closed: true}, nil
}

// lend hands the client's tab id to a run: its lease ends until takeBack.
func (s *Server) lend(id string) (*drivenTab, error) {
	d, err := s.tab(id)
	if err != nil {
		return nil, err
	}
	d.lend("a run (run_task)")
	d.guard.Stop() // the run's agent guards it while it holds it
	s.tabs.Release(d.current(), mcpOwner)
	return d, nil
}

// takeBack leases a lent tab to the client again once the run is over,
// guarded again; a tab the run closed, or that cannot be guarded, is
// forgotten.
func (s *Server) takeBack(ctx context.Context, d *drivenTab) {
	id := d.current().ID()
	t, err := s.tabs.AttachTab(ctx, mcpOwner, id)
	if err == nil {
		if err = d.guard.Resume(s.ctx, t); err != nil {
			s.tabs.Release(t, mcpOwner)
			s.env.Log.Warn("a tab lent to a run is not given back: its requests cannot be checked", "tab", t.ID(), "err", err)
		}
	}
	if err != nil {
		s.mu.Lock()
		delete(s.driven, id)
		s.mu.Unlock()
		return
	}
	d.takenBack(t)
}

// closeDriven closes the client's tabs (the server is closing).
func (s *Server) closeDriven(ctx context.Context) error {
	s.mu.Lock()
	tabs := make([]*drivenTab, 0, len(s.driven))
	for id, d := range s.driven {
		tabs = append(tabs, d)
		delete(s.driven, id)
	}
	s.mu.Unlock()
	var errs []error
	for _, d := range tabs {
		d.guard.Stop()
		t := d.current()
		s.tabs.Release(t, mcpOwner)
		if err := t.Close(ctx); err != nil && !errors.Is(err, browser.ErrTabClosed) && !errors.Is(err, browser.ErrBrowserClosed) {
			errs = append(errs, fmt.Errorf("close tab %s: %w", t.ID(), err))
		}
	}
	return errors.Join(errs...)
}
