package browser

import (
	"context"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Chromium downloads each page's icon for its own tab strip. With its
// windows hidden nobody sees that strip: Vroom's tabs show the icon's URL
// (TabInfo.Favicon), which the desktop loads itself. In a guarded tab the
// download is a request a page names (its <link rel=icon>) that the guard
// holds until the page's secrets are read, and an image the renderer
// decodes, right after a load, under the new page's first input; so a
// guarded tab of a launched browser without windows refuses it. A browser
// elsewhere (RemoteURL) may be watched by someone, and keeps its icons; a
// tab without a guard pauses only its documents, and Chromium fetches its
// icons as it always does.

// refusesIcons reports whether the tab refuses Chromium's icon downloads
// that its guard pauses.
func (t *Tab) refusesIcons() bool {
	return !t.b.opts.Headed && t.b.opts.RemoteURL == ""
}

// browserIcon reports whether a paused request is Chromium's download of
// the top frame's icon: of no resource type a page's own request has,
// asking for an image. A page's images, fetches and beacons all have one.
func (t *Tab) browserIcon(ev *fetch.EventRequestPaused) bool {
	if ev.ResourceType != network.ResourceTypeOther || string(ev.FrameID) != t.id || ev.Request.Method != "GET" || !t.refusesIcons() {
		return false
	}
	for k, v := range ev.Request.Headers {
		if strings.EqualFold(k, "Accept") {
			s, _ := v.(string) // a header that is not a string is no image's
			return strings.HasPrefix(s, "image/")
		}
	}
	return false
}

// refuseIcon fails an icon download as the client's own block. A tab that
// closed has nothing to answer.
func (t *Tab) refuseIcon(sess *chromedp.Target, ev *fetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(t.dead, guardWait)
	defer cancel()
	if _, err := cdp.Call(ctx, sess, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient}); err != nil && context.Cause(t.dead) == nil {
		t.b.opts.Logf("tab %s: refuse the icon %s: %v", t.id, ev.Request.URL, err)
	}
}
