package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
)

// The safety gate of the tabs an MCP client drives itself: the check an
// agent's action goes through before it runs (irreversible actions), and
// the exfiltration guard an agent's tab gets (agents.TabGuard over app's
// guard.go), which holds the tab's document requests while the client has
// it. Leaving the tab's sites — a link, a form, a redirect, a script — and
// sending the person's data off them are decided there, once, before the
// request leaves the browser. Both ask the client's user through
// elicitation, and deny without it.

// guardTab puts d's tab under the exfiltration guard for the server's
// life, with site (the host it opened on) as its first site. The guard
// asks through the tool call acting in the tab (during); a request the
// page sends by itself, with no call under way, is denied when it would
// carry the person's data off the sites.
func (s *Server) guardTab(d *drivenTab, site string) (*agents.TabGuard, error) {
	p := agents.Policy{Sites: []string{site}, ConfirmLeaveOrigin: true}
	ask := agents.ConfirmFunc(func(ctx context.Context, c agents.Confirmation) (agents.Decision, error) {
		el := d.asking()
		if el == nil {
			return agents.Deny, fmt.Errorf("%w: %s, and no tool call is under way to ask the user through", agents.ErrDenied, c.Reason)
		}
		return el.Confirm(ctx, c)
	})
	g, err := agents.GuardTab(s.ctx, d.current(), mcpAgent, p, ask)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	return g, nil
}

// during marks the tool call req (its context ctx) as the one acting in
// d, for the guard to ask through; the returned func ends that.
func (s *Server) during(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab) func() {
	return d.acting(&elicitor{ss: req.Session, call: ctx})
}

// admit puts a through the gate the agents' actions go through: its class
// from its target (agents.Classify). Where a link leads is the guard's to
// ask, when the browser is about to go there — except a link into a new
// tab, whose request the tab's guard never sees: it is checked here.
func (s *Server) admit(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, a agents.Action) error {
	if a.Kind == agents.ActScroll {
		return nil
	}
	t, err := d.current().Target(ctx, a)
	if err != nil {
		return fmt.Errorf("%s: %w; observe the page for current refs", a, err)
	}
	if a.Kind == agents.ActClick && t.NewTab && t.URL != "" {
		if err := d.guard.Destination(ctx, t.URL); err != nil {
			return fmt.Errorf("%s: %w", a, err)
		}
	}
	if class, reason := agents.Classify(a, t); class == agents.Irreversible {
		target := strings.TrimSpace(t.Role + " " + fmt.Sprintf("%q", t.Name))
		c := agents.Confirmation{Agent: mcpAgent, Action: a.String(), Target: target, Reason: reason, URL: t.URL}
		if err := s.confirm(ctx, req, d, c, c.Action+"\x00"+target); err != nil {
			return err
		}
	}
	return nil
}

// confirm asks the client's user to approve c; key remembers "allow for
// this run" for the tab's life.
func (s *Server) confirm(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, c agents.Confirmation, key string) error {
	if d.isAllowed(key) {
		return nil
	}
	dec, err := elicitor{ss: req.Session, call: ctx}.Confirm(ctx, c)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Action, err)
	}
	switch dec {
	case agents.AllowOnce:
		return nil
	case agents.AllowForRun:
		d.allow(key)
		return nil
	}
	return fmt.Errorf("%s: %w by the user (%s)", c.Action, agents.ErrDenied, c.Reason)
}
