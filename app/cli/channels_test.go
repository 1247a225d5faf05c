package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// channelExecutor signs up as a careful model would: types the email and
// the password, sends the form, waits for the account, and says what the
// browser refused on the way.
func channelExecutor() modeltest.Step {
	return modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch n := r.ToolResults(); {
		case n == 0:
			return apptest.Call("type", "ref", modeltest.Ref(r.Text(), "textbox", "Email"), "text", channelEmail)
		case n == 1:
			return apptest.Call("type", "ref", modeltest.Ref(r.Text(), "textbox", "Password"), "text", channelPassword)
		case n == 2:
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Sign up"))
		case strings.Contains(r.LastText(), "Account created"):
			return apptest.Done("signed up"+refusals(r.Text()), true)
		case n < 8:
			return apptest.Call("wait", "text", "Account created")
		}
		return apptest.Done("no account: "+r.LastText(), false)
	}}
}

// refusals are the lines of text that say the browser refused something.
func refusals(text string) string {
	var out []string
	for _, ln := range strings.Split(text, "\\n") {
		for _, l := range strings.Split(ln, "\n") {
			if i := strings.Index(l, "refused"); i >= 0 {
				out = append(out, l[i:min(len(l), i+400)])
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; " + strings.Join(out, "; ")
}

// channelPlanner spawns one executor on the page the task names.
func channelPlanner(cs *channelSites, channel string) modeltest.Step {
	return modeltest.PlannerScript(map[string]any{"task": "sign up as " + channelEmail, "url": cs.site.URL + "/c/" + channel})
}

// checkChannel asserts what reached whom: nothing the attacker, the
// legitimate requests their sites.
func checkChannel(t *testing.T, cs *channelSites, channel, output string) {
	t.Helper()
	hits, udp, conns, signups, ownSocks, frames := cs.reached()
	if len(hits) > 0 || udp > 0 || conns > 0 {
		t.Errorf("%s: the attacker received %d requests %q, %d datagrams and %d connections", channel, len(hits), hits, udp, conns)
	}
	if len(signups) != 1 || signups[0] != channelEmail {
		t.Errorf("%s: the form's own posts %q, want one with the email", channel, signups)
	}
	if ownSocks < 1 {
		t.Errorf("%s: the same-site socket never opened", channel)
	}
	if frames < 1 {
		t.Errorf("%s: the payment frame never loaded from its allowed site", channel)
	}
	if unsent[channel] {
		return // nothing was refused: nothing to name
	}
	attacker := strings.TrimPrefix(cs.attacker.URL, "http://")
	named := strings.Contains(output, attacker) || strings.Contains(output, ".localhost:")
	if what, ok := refusedInPage[channel]; ok {
		named = strings.Contains(output, strings.ReplaceAll(what, "ATTACKER", attacker))
	}
	if !strings.Contains(output, "refused") || !named {
		t.Errorf("%s: the result does not name what was refused:\n%s", channel, lastLines(output, 4))
	}
}

// unsent are the channels Chromium never sends on in a launched profile:
// pings (--no-pings), and the connections and requests it would make
// ahead of a page's need (it predicts nothing). Nothing is refused.
var unsent = map[string]bool{"ping": true, "preconnect": true}

// refusedInPage are the channels the guard's wrapper refuses in the page
// itself, and how the result names each (ATTACKER: the attacker's host):
// no request is made, the page's script is told no, and the agent is
// told what.
var refusedInPage = map[string]string{
	"websocket":     "a WebSocket to ATTACKER",
	"workersocket":  "a WebSocket to ATTACKER",
	"wsstream":      "a WebSocket to ATTACKER",
	"webtransport":  "a WebTransport session to ATTACKER",
	"serviceworker": "a service worker's registration",
	"sharedworker":  "a shared worker",
	"webrtc":        "a WebRTC connection",
}

// TestChannelsRun: through vroom run, headless, each adversarial page
// signs the person up while its script tries to send their email, typed
// password and saved card to an attacker by one channel: nothing reaches
// the attacker, the form, the same-site socket and the payment frame go,
// and the agent's result names what was refused where a request was.
func TestChannelsRun(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	// One page at a time: fifteen runs at once would only test the
	// machine's load.
	for _, channel := range slices.Sorted(maps.Keys(channels)) {
		t.Run(channel, func(t *testing.T) {
			cs := newChannelSites(t)
			srv := modeltest.New(t)
			srv.Script("planner", channelPlanner(cs, channel))
			srv.Script("executor", channelExecutor())
			env := testEnv(t, srv)
			var out, errb bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			code := runTask(ctx, []string{"--allow-host", cs.thirdHost(), "sign up on " + cs.site.URL + "/c/" + channel + " as " + channelEmail}, env, &out, &errb)
			if code != 0 {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
			}
			checkChannel(t, cs, channel, out.String())

		})
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}

// planFromTask spawns one executor on the page the task names ("sign up
// on URL as …"), for a server that serves many runs.
func planFromTask() modeltest.Step {
	urlRE := regexp.MustCompile(`sign up on (http://\S+) as`)
	return modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		m := urlRE.FindStringSubmatch(r.Text())
		if m == nil {
			return modeltest.Call("done", map[string]any{"summary": "no page named", "success": false})
		}
		return modeltest.PlannerScript(map[string]any{"task": "sign up as " + channelEmail, "url": m[1]}).Func(r)
	}}
}

// TestChannelsMCP: the same pages through vroom mcp (this binary as the
// command, driven by an MCP client over stdio), each a run_task with the
// payment frame's host allowed: nothing reaches the attacker, the
// legitimate requests go, and the run's result names what was refused.
func TestChannelsMCP(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	srv := modeltest.New(t)
	srv.Script("planner", planFromTask())
	srv.Script("executor", channelExecutor())
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "mcp", "--base-url", srv.URL, "--model", "executor", "--planner-model", "planner")
	cmd.Env = append(os.Environ(), cliEnv+"=1", "VROOM_DATA_DIR="+dir, "VROOM_CONFIG_DIR="+dir, "OPENAI_API_KEY=sk-test-channels")
	cmd.Stderr = io.Discard
	c := mcp.NewClient(&mcp.Implementation{Name: "channels", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	session, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to vroom mcp: %v", err)
	}
	defer session.Close()
	for _, channel := range slices.Sorted(maps.Keys(channels)) {
		cs := newChannelSites(t)
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "run_task", Arguments: map[string]any{
			"task":          "sign up on " + cs.site.URL + "/c/" + channel + " as " + channelEmail,
			"allowed_hosts": []string{cs.thirdHost()},
		}})
		if err != nil {
			t.Fatalf("%s: run_task: %v", channel, err)
		}
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Success bool   `json:"success"`
			Summary string `json:"summary"`
		}
		if err := json.Unmarshal(b, &out); err != nil || !out.Success {
			t.Errorf("%s: run_task: %s (%v)", channel, b, err)
			continue
		}
		checkChannel(t, cs, channel, out.Summary)
	}
}
