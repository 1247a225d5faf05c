package app

import (
	"fmt"
	"slices"
	"sync"

	"vroom/app/config"
	"vroom/app/remote"
	"vroom/browser"
)

// The desktop's remote browsers. The person's own tabs (the sidebar, the
// omnibox) stay in the browser the session launched on this computer; with
// endpoints in Settings, the tabs a run opens for its agents go to those
// remote browsers. The live view and take-over find a tab in either.

// remotePool is the session's pool for the settings' endpoints, made when
// a run first needs it and replaced when the list changes.
type remotePool struct {
	mu   sync.Mutex
	pool *remote.Pool
	urls []string
}

// remoteBrowsers is the pool a run started now opens its tabs in: nil
// with no endpoints in Settings (this computer). A pool replaced by a new
// list is closed: runs take the session's one slot, so the run that used
// it is over.
func (a *App) remoteBrowsers(s *session, st config.BrowserSettings) (*remote.Pool, error) {
	rp := &s.remote
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.pool != nil && slices.Equal(rp.urls, st.Endpoints) {
		return rp.pool, nil
	}
	if old := rp.pool; old != nil {
		go func() {
			if err := old.Close(); err != nil {
				a.log.Warn("disconnecting from the previous remote browsers", "err", err)
			}
		}()
	}
	rp.pool, rp.urls = nil, nil
	if !st.Remote() {
		return nil, nil
	}
	p, err := remote.New(s.ctx, st.Endpoints, remote.Options{Browser: browser.Options{Logf: func(f string, args ...any) {
		a.log.Debug("remote browser", "msg", fmt.Sprintf(f, args...))
	}}})
	if err != nil {
		return nil, err
	}
	rp.pool, rp.urls = p, slices.Clone(st.Endpoints)
	return p, nil
}

// findTab finds a tab by id in the session's browser, then in its remote
// browsers: the live view streams, and take-over drives, an agent's tab
// wherever it is.
func (a *App) findTab(id string) (*browser.Tab, error) {
	b, err := a.browserNow()
	if err == nil {
		t, terr := b.Tab(id)
		if terr == nil {
			return t, nil
		}
		err = terr
	}
	if s := a.session(); s != nil {
		s.remote.mu.Lock()
		p := s.remote.pool
		s.remote.mu.Unlock()
		if p != nil {
			if t, perr := p.Tab(id); perr == nil {
				return t, nil
			}
		}
	}
	return nil, err
}
