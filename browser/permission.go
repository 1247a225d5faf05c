package browser

import (
	"context"
	"fmt"
	"net/url"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// A page's permission requests (location, notifications, camera and
// microphone, clipboard) have no event in the DevTools protocol: a
// headless Chromium answers each from its settings, which deny what was
// never granted, and says nothing. What the protocol does offer is the
// settings themselves, per origin: SetPermission grants or denies ahead of
// the page's request (a person's "always allow on this site", an agent
// task's "this site may know where I am"), and the page's request is then
// answered so.

// PermissionState is a permission's setting for an origin.
type PermissionState string

// Permission states. PermissionPrompt is "ask", which a headless browser
// answers as denied.
const (
	PermissionGranted PermissionState = "granted"
	PermissionDenied  PermissionState = "denied"
	PermissionPrompt  PermissionState = "prompt"
)

// SetPermission sets permission name ("geolocation", "notifications",
// "camera", "microphone", "clipboard-read", … as the Permissions API names
// them) for pages of origin (scheme://host[:port]).
func (b *Browser) SetPermission(ctx context.Context, origin, name string, state PermissionState) error {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Errorf("permission %s for %q: %w: want an origin such as https://example.com", name, origin, ErrBadArgument)
	}
	switch state {
	case PermissionGranted, PermissionDenied, PermissionPrompt:
	default:
		return fmt.Errorf("permission %s: %w: state %q", name, ErrBadArgument, state)
	}
	s, err := b.session(ctx)
	if err != nil {
		return fmt.Errorf("permission %s: %w", name, err)
	}
	_, err = cdp.Call(ctx, chromedp.FromContext(s.ctx).Browser, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSetting(state), Origin: u.Scheme + "://" + u.Host,
	})
	if err != nil {
		return fmt.Errorf("permission %s for %s: %w", name, origin, b.mapErr(err))
	}
	return nil
}

// ResetPermissions forgets every permission set, back to the browser's
// defaults.
func (b *Browser) ResetPermissions(ctx context.Context) error {
	s, err := b.session(ctx)
	if err != nil {
		return fmt.Errorf("reset permissions: %w", err)
	}
	if _, err := cdp.Call(ctx, chromedp.FromContext(s.ctx).Browser, browser.ResetPermissions, browser.ResetPermissionsParams{}); err != nil {
		return fmt.Errorf("reset permissions: %w", b.mapErr(err))
	}
	return nil
}
