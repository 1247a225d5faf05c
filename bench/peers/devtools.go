package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
)

// devtoolsSpec is chrome-devtools-mcp: take_snapshot is its look (the
// accessibility tree with uids); an action answers with a line, and a
// snapshot only when asked for one.
func devtoolsSpec() peerSpec {
	return peerSpec{
		name:     "chrome-devtools-mcp " + version(chromeDevtoolsMCP),
		open:     func(u string) toolCall { return toolCall{"navigate_page", args{"type": "url", "url": u}} },
		observe:  func() toolCall { return toolCall{"take_snapshot", args{}} },
		click:    func(r string) toolCall { return toolCall{"click", args{"uid": r}} },
		typ:      func(r, t string) toolCall { return toolCall{"fill", args{"uid": r, "value": t}} },
		sel:      func(r, o string) toolCall { return toolCall{"fill", args{"uid": r, "value": o}} },
		waitText: func(t string) toolCall { return toolCall{"wait_for", args{"text": []string{t}}} },
		refs:     refFinder{re: regexp.MustCompile(`uid=(\S+)`)},
	}
}

// startDevtools runs chrome-devtools-mcp headless and isolated on the
// kit's Chromium, without its usage statistics and CrUX look-ups (the
// network is closed).
func startDevtools(ctx context.Context, k kit, scratch string) (*peerEngine, error) {
	a := []string{"--headless", "--isolated", "--executablePath", k.Chromium, "--no-usage-statistics", "--no-performance-crux"}
	for _, f := range chromeFlags() {
		a = append(a, "--chromeArg="+f)
	}
	cmd := exec.Command(k.bin("chrome-devtools-mcp"), a...)
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1")
	p, err := startPeer(ctx, devtoolsSpec(), cmd)
	if err != nil {
		return nil, err
	}
	// Its page-scoped tools take a pageId: a client lists the pages once
	// and drives the selected one (not counted: it is the session's
	// start, not a page's).
	r, _, err := p.conn.call(ctx, "list_pages", map[string]any{})
	if err != nil {
		return nil, errors.Join(err, p.Close())
	}
	m := regexp.MustCompile(`(?m)^(\d+): .*\[selected\]`).FindStringSubmatch(r.Text)
	if m == nil {
		return nil, errors.Join(fmt.Errorf("chrome-devtools-mcp: no selected page in %q", r.Text), p.Close())
	}
	id, err := strconv.Atoi(m[1])
	if err != nil {
		return nil, errors.Join(err, p.Close())
	}
	p.fixed = map[string]any{"pageId": id}
	return p, nil
}
