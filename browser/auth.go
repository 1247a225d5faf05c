package browser

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// A site that asks for a user name and password (HTTP basic or digest
// auth, or a proxy) gets, in a headless Chromium, no prompt and an error
// page. The tab intercepts the challenge instead: its request waits, the
// challenge is an event and the Result of the action that met it, and the
// holder answers with credentials or a cancel (ActAuth) — or the tab's
// policy does, after a while nobody answered.

// AuthChallenge is a site's request for credentials.
type AuthChallenge struct {
	// ID is the waiting request's, which ActAuth answers.
	ID     string `json:"id"`
	URL    string `json:"url"`
	Origin string `json:"origin"`
	Scheme string `json:"scheme"`
	Realm  string `json:"realm,omitempty"`
	// Proxy: the challenge is a proxy's, not the site's.
	Proxy bool `json:"proxy,omitempty"`
	// Answered and By are set once it was answered: "credentials" or
	// "cancelled", never the credentials themselves.
	Answered string   `json:"answered,omitempty"`
	By       DialogBy `json:"by,omitempty"`
}

// String describes the challenge as a model or a person reads it.
func (c AuthChallenge) String() string {
	who := "the site " + c.Origin
	if c.Proxy {
		who = "the proxy " + c.Origin
	}
	s := who + " asks for a user name and password"
	if c.Realm != "" {
		s += fmt.Sprintf(" (%q)", clipText(c.Realm, 80))
	}
	if c.Answered != "" {
		return s + ": " + c.Answered
	}
	return s
}

// AuthAnswer answers a challenge: credentials, or Cancel (the site then
// shows what it shows to those who have none).
type AuthAnswer struct {
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
	Cancel   bool   `json:"cancel,omitempty"`
}

// AuthPolicy decides what becomes of a challenge nobody has answered: an
// answer at once, or after a wait. It runs on the tab's event loop and
// must return at once.
type AuthPolicy func(AuthChallenge) AuthPlan

// AuthPlan is a policy's decision: Answer after Wait (0: at once).
type AuthPlan struct {
	Answer AuthAnswer
	Wait   time.Duration
}

// DefaultAuthPolicy holds a challenge two minutes for the holder, then
// cancels it, so no request waits for ever.
func DefaultAuthPolicy(AuthChallenge) AuthPlan {
	return AuthPlan{Answer: AuthAnswer{Cancel: true}, Wait: 2 * time.Minute}
}

// auths is a tab's pending challenges.
type auths struct {
	mu      sync.Mutex
	policy  AuthPolicy
	pending []*openAuth
	wake    chan struct{} // closed when a challenge arrives
	// hold ends, with an *AuthError, while a challenge of the top frame's
	// navigation waits; a new one replaces it when none does.
	hold   context.Context
	unhold context.CancelCauseFunc
}

// openAuth is a challenge waiting for its answer. blocks: it is the top
// frame's navigation's, which freezes the page.
type openAuth struct {
	c      AuthChallenge
	sess   *chromedp.Target
	timer  *time.Timer
	blocks bool
}

func (a *auths) init() {
	a.hold, a.unhold = context.WithCancelCause(context.Background())
}

// held returns the context that ends while the page waits for a password.
func (a *auths) held() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hold
}

// rehold renews the hold once no blocking challenge waits. Caller holds
// a.mu.
func (a *auths) rehold() {
	for _, p := range a.pending {
		if p.blocks {
			return
		}
	}
	if a.hold.Err() != nil {
		a.hold, a.unhold = context.WithCancelCause(context.Background())
	}
}

// SetAuthPolicy sets what becomes of the tab's unanswered challenges (nil:
// Options.Auth, else DefaultAuthPolicy). It is for the tab's holder.
func (t *Tab) SetAuthPolicy(ctx context.Context, p AuthPolicy) error {
	_, cancel, err := t.beginTab(ctx)
	if err != nil {
		return fmt.Errorf("auth policy %s: %w", t.id, err)
	}
	cancel()
	t.auth.mu.Lock()
	t.auth.policy = p
	t.auth.mu.Unlock()
	return nil
}

// AuthChallenges returns the challenges waiting for an answer, oldest
// first.
func (t *Tab) AuthChallenges() []AuthChallenge {
	t.auth.mu.Lock()
	defer t.auth.mu.Unlock()
	out := make([]AuthChallenge, 0, len(t.auth.pending))
	for _, a := range t.auth.pending {
		out = append(out, a.c)
	}
	return out
}

// AnswerAuth answers the oldest waiting challenge and returns, as any
// action does, what became of the page (the protected page loaded, or
// the site's refusal).
func (t *Tab) AnswerAuth(ctx context.Context, ans AuthAnswer) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActAuth, Username: ans.Username, Password: ans.Password, Accept: !ans.Cancel})
}

// authWaiting reports whether a challenge waits for its answer.
func (t *Tab) authWaiting() bool {
	t.auth.mu.Lock()
	defer t.auth.mu.Unlock()
	return len(t.auth.pending) > 0
}

// authAsked returns a channel closed when the next challenge arrives,
// closed already while one waits.
func (t *Tab) authAsked() <-chan struct{} {
	t.auth.mu.Lock()
	defer t.auth.mu.Unlock()
	if len(t.auth.pending) > 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if t.auth.wake == nil {
		t.auth.wake = make(chan struct{})
	}
	return t.auth.wake
}

// authRequired runs in sess's read loop when a request meets a challenge.
func (t *Tab) authRequired(sess *chromedp.Target, ev *fetch.EventAuthRequired) {
	c := AuthChallenge{ID: string(ev.RequestID)}
	if ev.Request != nil {
		c.URL = ev.Request.URL
	}
	if ch := ev.AuthChallenge; ch != nil {
		c.Origin, c.Scheme, c.Realm, c.Proxy = ch.Origin, ch.Scheme, ch.Realm, ch.Source == fetch.AuthChallengeSourceProxy
	}
	oa := &openAuth{c: c, sess: sess, blocks: sess == t.target() && string(ev.FrameID) == t.id && ev.ResourceType == network.ResourceTypeDocument}
	t.auth.mu.Lock()
	policy := t.auth.policy
	if policy == nil {
		policy = t.b.opts.Auth
	}
	if policy == nil {
		policy = DefaultAuthPolicy
	}
	plan := policy(c)
	t.auth.pending = append(t.auth.pending, oa)
	if t.auth.wake != nil {
		close(t.auth.wake)
		t.auth.wake = nil
	}
	oa.timer = time.AfterFunc(plan.Wait, func() { t.autoAuth(oa, plan.Answer) })
	if oa.blocks && t.auth.hold.Err() == nil {
		t.auth.unhold(&AuthError{Challenge: c})
	}
	t.auth.mu.Unlock()
	t.notes.add(pageNote{auth: &c})
	t.b.emit(Event{Kind: AuthRequired, Tab: t.Info(), Auth: &c})
}

// autoAuth gives a challenge the policy's answer; nobody waits on it, so
// a failure (the tab closed, the holder answered first) is logged.
func (t *Tab) autoAuth(oa *openAuth, ans AuthAnswer) {
	ctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
	defer cancel()
	if err := t.answerAuth(ctx, oa, ans, DialogByPolicy); err != nil && context.Cause(t.dead) == nil {
		t.b.opts.Logf("tab %s: answer the challenge of %s: %v", t.id, oa.c.Origin, err)
	}
}

// takeAuth removes and returns the oldest waiting challenge (or oa).
func (t *Tab) takeAuth(oa *openAuth) *openAuth {
	t.auth.mu.Lock()
	defer t.auth.mu.Unlock()
	for i, p := range t.auth.pending {
		if oa == nil || p == oa {
			t.auth.pending = append(t.auth.pending[:i], t.auth.pending[i+1:]...)
			p.timer.Stop()
			t.auth.rehold()
			return p
		}
	}
	return nil
}

// answerAuth answers a waiting challenge (nil: the oldest).
func (t *Tab) answerAuth(ctx context.Context, oa *openAuth, ans AuthAnswer, by DialogBy) error {
	oa = t.takeAuth(oa)
	if oa == nil {
		return ErrNoChallenge
	}
	resp := &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseCancelAuth}
	oa.c.Answered, oa.c.By = "cancelled", by
	if !ans.Cancel {
		resp = &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseProvideCredentials, Username: ans.Username, Password: ans.Password}
		oa.c.Answered = "credentials given"
	}
	_, err := cdp.Call(ctx, oa.sess, fetch.ContinueWithAuth, fetch.ContinueWithAuthParams{RequestID: fetch.RequestID(oa.c.ID), AuthChallengeResponse: resp})
	if err != nil {
		return err
	}
	t.b.emit(Event{Kind: AuthAnswered, Tab: t.Info(), Auth: &oa.c})
	return nil
}

// topCommitted drops the challenges of the top frame's navigation once
// another document committed there: that navigation is gone, and nothing
// else says so.
func (t *Tab) topCommitted() {
	t.auth.mu.Lock()
	defer t.auth.mu.Unlock()
	kept := t.auth.pending[:0]
	for _, p := range t.auth.pending {
		if p.blocks {
			p.timer.Stop()
			continue
		}
		kept = append(kept, p)
	}
	t.auth.pending = kept
	t.auth.rehold()
}

// doAuth answers the oldest challenge as an action: the page is frozen
// until then, so it takes no baseline before; the answer's navigation is
// the verdict, or the challenge asked again (a wrong password).
func (t *Tab) doAuth(ctx context.Context, a Action) (*Result, error) {
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	start, mark := time.Now(), t.notes.mark()
	ev := t.subscribeNav()
	defer ev.stop()
	ans := AuthAnswer{Username: a.Username, Password: a.Password, Cancel: !a.Accept}
	if err := t.answerAuth(cctx, nil, ans, DialogByHolder); err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), t.fail(cctx, err))
	}
	ictx, done := t.interruptible(cctx)
	defer done()
	s := &step{a: a, r: &Result{Action: a.Kind}}
	r, err := t.afterAnswer(ictx, s, ev, start)
	if interrupted(ictx) {
		return t.raised(ictx, s, mark, start), nil
	}
	if r != nil {
		t.noteResult(ictx, r, mark)
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w", describe(a), t.fail(ictx, err))
	}
	return r, nil
}
