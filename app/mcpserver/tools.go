package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

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

// pageResult is a tab's page as the agents see it.
type pageResult struct {
	Tab   string `json:"tab"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Page  string `json:"page" jsonschema:"the compact observation: the page line (title and URL; left out while they are the ones last sent), one control a line with its ref (e12 button \"Save\"), then the page's text"`
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
	// Dialog is the page's dialog the action left open: the dialog tool
	// answers it, and until then the page does nothing.
	Dialog *dialogInfo `json:"dialog,omitempty"`
}

// dialogInfo is a JavaScript dialog waiting for an answer.
type dialogInfo struct {
	Kind    string `json:"kind" jsonschema:"confirm, prompt or beforeunload"`
	Message string `json:"message"`
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

// addEngineTools adds open and close, the client's own, and the page
// tools (pagetools.go).
func (s *Server) addEngineTools() {
	mcp.AddTool(s.server, &mcp.Tool{Name: "open", Description: "Opens a URL in a new tab leased to you; returns the tab's id and its compact observation. navigate opens one in a tab you have."}, s.open)
	mcp.AddTool(s.server, &mcp.Tool{Name: "close", Description: "Closes a tab you opened."}, s.closeTab)
	s.addPageTools()
}

// open leases a new tab at the URL to the client. The URL's host is the
// tab's site: leaving it asks the user.
func (s *Server) open(ctx context.Context, req *mcp.CallToolRequest, in openArgs) (*mcp.CallToolResult, pageResult, error) {
	u, err := webURL("open", in.URL)
	if err != nil {
		return nil, pageResult{}, err
	}
	// A blank tab, prewarmed while the client worked, guarded before the
	// page loads: the page's first requests are held like any later one.
	at, err := s.tabs.OpenTab(ctx, mcpOwner, "about:blank")
	if err != nil {
		return nil, pageResult{}, err
	}
	go s.prewarm()
	d := newDrivenTab(at)
	if d.guard, err = s.guardTab(d, u.Hostname()); err != nil {
		s.tabs.Release(at, mcpOwner)
		// Unguarded, the tab is not the client's to drive.
		return nil, pageResult{}, errors.Join(err, at.Close(context.WithoutCancel(ctx)))
	}
	s.mu.Lock()
	s.driven[at.ID()] = d
	s.mu.Unlock()
	if err := s.load(ctx, d, in.URL); err != nil {
		s.drop(ctx, at.ID())
		return nil, pageResult{}, err
	}
	res, out, err := s.page(ctx, d, agents.FindOptions{})
	if err == nil {
		// The new tab's id is what the client's next call names.
		res.Content = []mcp.Content{&mcp.TextContent{Text: "tab " + out.Tab + "\n" + out.Page}}
	}
	return res, out, err
}

// load navigates the client's new tab d to url through its guard.
func (s *Server) load(ctx context.Context, d *drivenTab, url string) error {
	o, refused, err := d.guard.Act(ctx, agents.Action{Kind: agents.ActNavigate, URL: url})
	switch {
	case err != nil:
		return fmt.Errorf("open %s: %w", url, err)
	case refused != "":
		return fmt.Errorf("open %s: %s", url, o.Summary)
	}
	return nil
}

// prewarm keeps a blank tab ready for the client's next open. Best
// effort: without one, the next open makes its own.
func (s *Server) prewarm() {
	if err := s.tabs.Prewarm(s.ctx, 1); err != nil && s.ctx.Err() == nil {
		s.env.Log.Warn("prewarm a tab", "err", err)
	}
}

// drop forgets the client's tab id and closes it, after an open that
// could not load its page.
func (s *Server) drop(ctx context.Context, id string) {
	s.mu.Lock()
	d := s.driven[id]
	delete(s.driven, id)
	s.mu.Unlock()
	if d == nil {
		return
	}
	d.guard.Stop()
	t := d.current()
	s.tabs.Release(t, mcpOwner)
	if err := t.Close(context.WithoutCancel(ctx)); err != nil && !errors.Is(err, browser.ErrTabClosed) {
		s.env.Log.Warn("close a tab whose page did not load", "tab", id, "err", err)
	}
}

// webURL parses raw, the URL op opens: an http or https one only.
func webURL(op, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("%s %q: only http and https URLs", op, raw)
	}
	return u, nil
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

// page observes t (a guarded tab, so the guard sees what the page shows):
// the whole view (and Diff's new baseline), or a search when o narrows it.
// Its text is the page's alone: the page line names the title and URL,
// and the client named the tab.
func (s *Server) page(ctx context.Context, d *drivenTab, o agents.FindOptions) (*mcp.CallToolResult, pageResult, error) {
	t := d.guard.Tab()
	var obs agents.Observation
	var err error
	if o.Narrowed() || o.Limit > 0 {
		obs, err = t.Find(ctx, o)
	} else {
		obs, err = t.Observe(ctx)
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "observe "+t.ID()) {
			return nil, pageResult{}, err // the browser's error names the tab already
		}
		return nil, pageResult{}, fmt.Errorf("observe tab %s: %w", t.ID(), err)
	}
	out := pageResult{Tab: t.ID(), URL: obs.URL, Title: obs.Title, Page: d.brief(obs, false)}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.Page}}}, out, nil
}

// act performs a on the client's tab, after the safety gate: an
// irreversible action needs the user's approval through elicitation. The
// document requests the action causes go through the exfiltration guard:
// leaving the tab's sites, or the person's data leaving them, is asked
// before the request goes, and a refusal is the result. The result is the verdict and what changed, as
// an agent's.
func (s *Server) act(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, id string, a agents.Action) (*mcp.CallToolResult, actResult, error) {
	switch a.Kind {
	case agents.ActNavigate:
		if _, err := webURL("navigate", a.URL); err != nil {
			return nil, actResult{}, err
		}
	case agents.ActUpload:
		if err := agents.CheckUpload(s.env.Files, a.Files); err != nil {
			return nil, actResult{}, err
		}
	}
	defer s.during(ctx, req, d)()
	out := actResult{Tab: id}
	if err := s.admit(ctx, req, d, a); err != nil {
		if !errors.Is(err, agents.ErrDenied) {
			return nil, actResult{}, err
		}
		out.Denied = err.Error()
		out.Verdict = a.String() + " was not performed"
		if a.Kind == agents.ActDialog {
			// As for an executor: the dialog whose acceptance was
			// denied is dismissed, so the page goes on without doing
			// what it asked.
			out.Denied += s.dismiss(ctx, d)
		}
		return deniedResult(out), out, nil
	}
	o, refused, err := d.guard.Act(ctx, a)
	if err != nil {
		return nil, actResult{}, actError(a, err)
	}
	out.Verdict, out.Effect, out.Navigated, out.URL = o.Summary, o.Effect, o.Navigated, o.URL
	if refused != "" {
		out.Denied = refused + "; the page did not send it"
		return deniedResult(out), out, nil
	}
	switch {
	case o.Dialog != nil:
		// The page runs nothing until its dialog is answered: looking at
		// it now would wait for that.
		out.Dialog = &dialogInfo{Kind: o.Dialog.Kind, Message: o.Dialog.Message}
		out.Changes = "(the page waits for the dialog: answer it with the dialog tool)"
	case o.Navigated:
		obs, err := d.guard.Tab().Observe(ctx)
		out.Changes = d.brief(obs, true)
		if err != nil {
			out.Changes = "(the new page could not be observed: " + err.Error() + ")"
		}
	default:
		if out.Changes, err = d.guard.Tab().Diff(ctx); err != nil {
			out.Changes = "(what changed could not be read: " + err.Error() + ")"
		}
	}
	text := out.Verdict
	if out.Changes != "" {
		text += "\n" + out.Changes
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// actError is a's failure as the client reads it: one line, naming the
// action once (the browser's errors already start with it: "drag e2: e2:
// the element is no longer on the page").
func actError(a agents.Action, err error) error {
	if strings.HasPrefix(err.Error(), string(a.Kind)+" ") || strings.HasPrefix(err.Error(), string(a.Kind)+":") {
		return err
	}
	return fmt.Errorf("%s: %w", a, err)
}

// dismiss cancels d's open dialog after its acceptance was denied, and
// says so (or why it could not be).
func (s *Server) dismiss(ctx context.Context, d *drivenTab) string {
	if _, _, err := d.guard.Act(ctx, agents.Action{Kind: agents.ActDialog}); err != nil {
		return "; dismissing the dialog failed: " + err.Error()
	}
	return "; the dialog was dismissed (Cancel)"
}

// deniedResult is a refused action's result: an error for the client's
// model, saying why.
func deniedResult(out actResult) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
		Text: "refused: " + out.Denied + ". The action was not performed.",
	}}}
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
	// The blank tab kept ready for the next open, and any tab a failed
	// open left.
	if err := s.tabs.CloseOpened(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
