package runner

import (
	"slices"
	"strings"
	"testing"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// The dialog, window and hover flows run on apptest's asks site, whose
// pages report what they did to /event: the flows are judged by the server.

// dialogFlow clicks the button named button on /project, answers the
// dialog it raises with answer (nil: the next call is done) and reports.
func dialogFlow(tb testing.TB, button string, answer map[string]any) (*flowTally, []string) {
	s := apptest.NewAsksSite(tb)
	h := newHarness(tb, nil)
	f := &flowTally{}
	steps := []func(r *modeltest.Request) modeltest.Reply{
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", button))
		},
		func(r *modeltest.Request) modeltest.Reply {
			if !strings.Contains(r.LastText(), "waits for an answer") {
				return apptest.Done("no dialog: "+r.LastText(), false)
			}
			return modeltest.Call("dialog", answer)
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done(r.LastText(), !strings.HasPrefix(r.LastText(), "error"))
		},
	}
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": button, "url": s.URL + "/project"}))
	h.srv.Script("executor", executorFunc(f, stepper(f, steps...)))
	h.execute(tb, button)
	events := s.Events()
	return f, events
}

// TestFlowConfirm: a confirm raised by a click is reported with its
// message and answered in one more call.
func TestFlowConfirm(t *testing.T) {
	t.Parallel()
	f, events := dialogFlow(t, "Archive", map[string]any{"accept": true})
	if !slices.Contains(events, "archived") && !strings.Contains(strings.Join(f.results, "\n"), "Archived") {
		t.Fatalf("the project was not archived: events %v, results %v", events, f.results)
	}
	if !strings.Contains(f.results[0], "Archive this project?") {
		t.Fatalf("the click's result does not show the confirm:\n%s", f.results[0])
	}
	if f.total() != 3 {
		t.Fatalf("%d calls, want 3: %v", f.total(), f.calls)
	}
}

// TestFlowConfirmDelete: accepting a confirm that asks to delete is
// irreversible; headless, it is denied and the dialog dismissed.
func TestFlowConfirmDelete(t *testing.T) {
	t.Parallel()
	f, events := dialogFlow(t, "Clean up", map[string]any{"accept": true})
	if slices.Contains(events, "deleted") {
		t.Fatalf("the files were deleted without the person: %v", events)
	}
	if len(f.results) < 2 || !strings.Contains(f.results[1], "refused") || !strings.Contains(f.results[1], "dismissed") {
		t.Fatalf("the dialog answer's result:\n%v", f.results)
	}
}

// TestFlowPrompt: a prompt answered with text.
func TestFlowPrompt(t *testing.T) {
	t.Parallel()
	f, events := dialogFlow(t, "Rename", map[string]any{"accept": true, "text": "Artemis"})
	if !slices.Contains(events, "renamed:Artemis") && !strings.Contains(strings.Join(f.results, "\n"), "Artemis") {
		t.Fatalf("not renamed: events %v, results %v", events, f.results)
	}
	if f.total() != 3 {
		t.Fatalf("%d calls, want 3: %v", f.total(), f.calls)
	}
}

// pageFlow runs steps in one executor at path of a fresh asks site.
func pageFlow(tb testing.TB, path, task string, steps ...func(r *modeltest.Request) modeltest.Reply) (*flowTally, *apptest.AsksSite) {
	s := apptest.NewAsksSite(tb)
	h := newHarness(tb, nil)
	f := &flowTally{}
	runFlow(tb, h, task, s.URL+path, f, stepper(f, steps...))
	return f, s
}

// TestFlowBeforeUnload: leaving a page with unsaved notes asks "leave
// site?"; the agent answers it in one call and the navigation goes on.
func TestFlowBeforeUnload(t *testing.T) {
	t.Parallel()
	if f := beforeUnloadFlow(t); f.total() != 4 {
		t.Fatalf("%d calls, want 4: %v", f.total(), f.calls)
	}
}

// beforeUnloadFlow types a note, then follows a link and answers "leave
// site?".
func beforeUnloadFlow(tb testing.TB) *flowTally {
	f, _ := pageFlow(tb, "/editor", "Note something, then open the security page",
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("type", "ref", modeltest.Ref(r.Text(), "textbox", "Notes"), "text", "draft")
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "link", "Security"))
		},
		func(r *modeltest.Request) modeltest.Reply {
			if !strings.Contains(r.LastText(), "Leave site?") {
				return apptest.Done("no leave dialog: "+r.LastText(), false)
			}
			return apptest.Call("dialog", "accept", true)
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done(r.LastText(), strings.Contains(r.LastText(), "Security"))
		})
	return f
}

// TestFlowAlertLoop: a page that opens twenty alerts in a loop ends
// cleanly: the alerts are accepted and reported, and the run finishes.
func TestFlowAlertLoop(t *testing.T) {
	t.Parallel()
	f := alertLoopFlow(t)
	if !strings.Contains(f.results[0], "Are you still there?") {
		t.Fatalf("the click's result does not report the alerts:\n%s", f.results[0])
	}
	if f.total() > 3 {
		t.Fatalf("%d calls, want at most 3: %v", f.total(), f.calls)
	}
}

// alertLoopFlow presses Start on the page of twenty alerts.
func alertLoopFlow(tb testing.TB) *flowTally {
	f, _ := pageFlow(tb, "/alerts", "Press Start",
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Start"))
		},
		func(r *modeltest.Request) modeltest.Reply {
			if strings.Contains(r.LastText(), "waits for an answer") {
				return apptest.Call("dialog", "accept", true)
			}
			return apptest.Done(r.LastText(), strings.Contains(r.LastText(), "alert"))
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done(r.LastText(), !strings.HasPrefix(r.LastText(), "error"))
		})
	return f
}

// TestFlowPopupSignIn: the provider's popup takes the agent's view; the
// agent signs in there, the popup closes, the view comes back and the
// opener shows the sign-in.
func TestFlowPopupSignIn(t *testing.T) {
	t.Parallel()
	f, s := popupSignInFlow(t)
	if signins := s.Signins(); !slices.Equal(signins, []string{"ada@example.com"}) {
		t.Fatalf("the provider saw sign-ins %v", signins)
	}
	if f.total() > 5 {
		t.Fatalf("%d calls, want at most 5: %v", f.total(), f.calls)
	}
}

// popupSignInFlow signs in through the provider's popup.
func popupSignInFlow(tb testing.TB) (*flowTally, *apptest.AsksSite) {
	return pageFlow(tb, "/login", "Sign in with Example ID as ada@example.com",
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Example ID"))
		},
		func(r *modeltest.Request) modeltest.Reply {
			if !strings.Contains(r.LastText(), "your view is now that window") {
				return apptest.Done("no popup: "+r.LastText(), false)
			}
			return apptest.Call("type", "ref", modeltest.Ref(r.LastText(), "textbox", "Email"), "text", "ada@example.com")
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Continue"))
		},
		func(r *modeltest.Request) modeltest.Reply {
			if !strings.Contains(r.LastText(), "your view is back") {
				return apptest.Done("the view did not come back: "+r.LastText(), false)
			}
			if strings.Contains(r.LastText(), "Signed in as ada@example.com") {
				return apptest.Done("signed in as ada@example.com", true)
			}
			return apptest.Call("wait", "text", "Signed in as")
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("read_page")
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done(r.LastText(), strings.Contains(r.LastText(), "Signed in as ada@example.com"))
		})
}

// TestFlowHoverMenu: an item shown only on hover is reached by hovering
// its menu, then clicked.
func TestFlowHoverMenu(t *testing.T) {
	t.Parallel()
	if f := hoverMenuFlow(t); f.total() != 3 {
		t.Fatalf("%d calls, want 3: %v", f.total(), f.calls)
	}
}

// hoverMenuFlow hovers Account and clicks Security in its menu.
func hoverMenuFlow(tb testing.TB) *flowTally {
	f, _ := pageFlow(tb, "/menu", "Open Account, then Security",
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("hover", "ref", modeltest.Ref(r.Text(), "link", "Account"))
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("click", "ref", modeltest.Ref(r.LastText(), "link", "Security"))
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done(r.LastText(), strings.Contains(r.LastText(), "/security"))
		})
	return f
}
