package browser

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A page whose script never yields is said to be busy within a few
// seconds, for every call, not after the 30 s call timeout; and a
// navigation away stops its script, after which the tab works again.
func TestBusyPageSaidWithinSeconds(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/busy.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	freeze := find(t, o, "button", "Freeze")
	for _, call := range []struct {
		name string
		do   func() error
	}{
		{"the click that froze it", func() error { _, err := tab.Click(ctx, freeze.Ref); return err }},
		{"a look after", func() error { _, err := tab.Observe(ctx, ObserveOptions{}); return err }},
	} {
		began := time.Now()
		err := call.do()
		took := time.Since(began)
		var busy *BusyError
		if !errors.As(err, &busy) || !errors.Is(err, ErrUnresponsive) {
			// A click may come back before the handler runs; the look
			// after it must not.
			if call.name == "the click that froze it" && err == nil {
				continue
			}
			t.Fatalf("%s: %v after %v, want the page said busy", call.name, err, took)
		}
		if took > 5*time.Second {
			t.Errorf("%s: said busy after %v, want a few seconds", call.name, took)
		}
		if !strings.Contains(err.Error(), "may be stuck") {
			t.Errorf("%s: %q", call.name, err)
		}
	}
	if _, err := tab.Navigate(ctx, site.URL+"/form.html"); err != nil {
		t.Fatalf("navigate away from the busy page: %v", err)
	}
	o, err = tab.Observe(ctx, ObserveOptions{})
	if err != nil || !strings.Contains(o.URL, "/form.html") {
		t.Fatalf("after leaving: %v, %v", o, err)
	}
}

// A page still loading is at work, not stuck: one long script building
// it (3.5 s, more than a loaded page is given) ends in a page to act on,
// not in a busy error.
func TestLongLoadIsNotStuck(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/form.html")
	ctx := tctx(t)
	r, err := tab.Navigate(ctx, site.URL+"/slowbuild.html")
	if err != nil {
		t.Fatalf("navigate to a page that builds itself for 3.5 s: %v", err)
	}
	if !r.Navigated {
		t.Fatalf("navigate: %+v", r)
	}
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	find(t, o, "button", "Built")
}

// A page that redirects itself in a loop gives calls in words a model can
// read, never a raw protocol error with its code.
func TestRedirectLoopInWords(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/redirectloop.html")
	ctx := tctx(t)
	for i := range 20 {
		_, err := tab.Observe(ctx, ObserveOptions{})
		if err == nil {
			continue
		}
		if strings.Contains(err.Error(), "-32000") || strings.Contains(err.Error(), "(-3") {
			t.Fatalf("look %d: a raw protocol error: %v", i, err)
		}
		if !errors.Is(err, ErrPageChanged) {
			t.Logf("look %d: %v", i, err)
		}
	}
}
