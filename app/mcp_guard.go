package app

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
)

// The safety gate of the tabs an MCP client drives itself: the checks an
// agent's action goes through before it runs (irreversible actions,
// links off the tab's sites), and the exfiltration guard an agent's tab
// gets (agents.TabGuard over app's guard.go), which holds the tab's
// requests while the client has it. Both ask the client's user through
// elicitation, and deny without it.

// guardTab puts d's tab under the exfiltration guard for the server's
// life, with site (the host it opened on) as its first site. The guard
// asks through the tool call acting in the tab (during); a request the
// page sends by itself, with no call under way, is denied when it would
// carry the person's data off the sites.
func (s *mcpServer) guardTab(d *drivenTab, site string) (*agents.TabGuard, error) {
	p := agents.Policy{Sites: []string{site}}
	ask := agents.ConfirmFunc(func(ctx context.Context, c agents.Confirmation) (agents.Decision, error) {
		s.mu.Lock()
		el := d.call
		s.mu.Unlock()
		if el == nil {
			return agents.Deny, fmt.Errorf("%w: %s, and no tool call is under way to ask the user through", agents.ErrDenied, c.Reason)
		}
		return el.Confirm(ctx, c)
	})
	g, err := agents.GuardTab(s.ctx, d.tab, mcpAgent, p, ask)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	return g, nil
}

// during marks the tool call req (its context ctx) as the one acting in
// d, for the guard to ask through; the returned func ends that.
func (s *mcpServer) during(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab) func() {
	el := &elicitor{ss: req.Session, call: ctx}
	s.mu.Lock()
	d.call = el
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if d.call == el {
			d.call = nil
		}
		s.mu.Unlock()
	}
}

// admit puts a through the gate the agents' actions go through: its class
// from its target (agents.Classify), and where a link leads.
func (s *mcpServer) admit(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, a agents.Action) error {
	if a.Kind == agents.ActScroll {
		return nil
	}
	t, err := d.tab.Target(ctx, a)
	if err != nil {
		return fmt.Errorf("%s: %w; observe the page for current refs", a, err)
	}
	if class, reason := agents.Classify(a, t); class == agents.Irreversible {
		target := strings.TrimSpace(t.Role + " " + fmt.Sprintf("%q", t.Name))
		c := agents.Confirmation{Agent: mcpAgent, Action: a.String(), Target: target, Reason: reason, URL: t.URL}
		if err := s.confirm(ctx, req, d, c, c.Action+"\x00"+target); err != nil {
			return err
		}
	}
	if t.Role == "link" && a.Kind == agents.ActClick && t.URL != "" && !s.onSites(d, t.URL) {
		c := agents.Confirmation{Agent: mcpAgent, Action: a.String() + " to " + t.URL, Target: siteOf(t.URL), Reason: "it leaves the tab's sites (" + s.sitesOf(d) + ")", URL: t.URL}
		return s.confirm(ctx, req, d, c, "")
	}
	return nil
}

// confirm asks the client's user to approve c; key, when set, remembers
// "allow for this run" for the tab's life. Leaving the sites, once
// allowed for the run, adds the host to the tab's sites.
func (s *mcpServer) confirm(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, c agents.Confirmation, key string) error {
	s.mu.Lock()
	ok := key != "" && d.allowed[key]
	s.mu.Unlock()
	if ok {
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
		if key != "" {
			s.mu.Lock()
			d.allowed[key] = true
			s.mu.Unlock()
		} else if u, err := url.Parse(c.URL); err == nil {
			if err := d.guard.AddSite(u.Hostname()); err != nil {
				s.env.Log.Warn("a site the user allowed is not remembered", "url", c.URL, "err", err)
			}
		}
		return nil
	}
	return fmt.Errorf("%s: %w by the user (%s)", c.Action, agents.ErrDenied, c.Reason)
}

// onSites reports whether raw is on one of d's sites (or a subdomain).
func (s *mcpServer) onSites(d *drivenTab, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	if u.Scheme == "about" || u.Scheme == "javascript" {
		return true
	}
	return d.guard.InSites(raw)
}

// siteOf is raw's scheme and host, as a confirmation's target.
func siteOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

// sitesOf names d's sites for a reason shown to the user.
func (s *mcpServer) sitesOf(d *drivenTab) string {
	return strings.Join(d.guard.Sites(), ", ")
}
