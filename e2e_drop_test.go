package main

import (
	"bufio"
	"fmt"
	"image"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// A file dragged from another application onto the omnibox, with the real
// mouse: the drag source is a small GTK program built here, offering the
// file as text/uri-list over XDND, as a file manager does.

// dragSourceC is that program: argv[1] the file's URI, argv[2] and argv[3]
// where its window goes. It says "ready" once shown and "given" when a
// drop target took the file.
const dragSourceC = `#include <gtk/gtk.h>
#include <stdlib.h>

static const char *uri;

static void on_get(GtkWidget *w, GdkDragContext *c, GtkSelectionData *d, guint info, guint t, gpointer p) {
  gchar *uris[] = {(gchar *)uri, NULL};
  gtk_selection_data_set_uris(d, uris);
  printf("given\n");
  fflush(stdout);
}

static gboolean on_map(GtkWidget *w, GdkEvent *e, gpointer p) {
  printf("ready\n");
  fflush(stdout);
  return FALSE;
}

int main(int argc, char **argv) {
  gtk_init(&argc, &argv);
  uri = argv[1];
  GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title(GTK_WINDOW(win), "drag source");
  gtk_window_set_default_size(GTK_WINDOW(win), 120, 80);
  gtk_window_move(GTK_WINDOW(win), atoi(argv[2]), atoi(argv[3]));
  GtkWidget *box = gtk_event_box_new();
  gtk_container_add(GTK_CONTAINER(box), gtk_label_new("file"));
  gtk_container_add(GTK_CONTAINER(win), box);
  GtkTargetEntry targets[] = {{"text/uri-list", 0, 0}};
  gtk_drag_source_set(box, GDK_BUTTON1_MASK, targets, 1, GDK_ACTION_COPY);
  g_signal_connect(box, "drag-data-get", G_CALLBACK(on_get), NULL);
  g_signal_connect(win, "map-event", G_CALLBACK(on_map), NULL);
  g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
  gtk_widget_show_all(win);
  gtk_main();
  return 0;
}
`

// dragSource is the running drag source program and what it has said.
type dragSource struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	said []string
}

// startDragSource builds the drag source and shows it at x, y offering
// file.
func startDragSource(t *testing.T, file string, x, y int) *dragSource {
	t.Helper()
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "dragsource.c"), filepath.Join(dir, "dragsource")
	if err := os.WriteFile(src, []byte(dragSourceC), 0o600); err != nil {
		t.Fatal(err)
	}
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "gtk+-3.0").Output()
	if err != nil {
		testenv.Missing(t, fmt.Sprintf("GTK 3's headers (apt-get install libgtk-3-dev): %v", err))
	}
	if out, err := exec.Command("gcc", append([]string{"-o", bin, src}, strings.Fields(string(flags))...)...).CombinedOutput(); err != nil {
		t.Fatalf("build the drag source: %v\n%s", err, out)
	}
	s := &dragSource{cmd: exec.Command(bin, (&url.URL{Scheme: "file", Path: file}).String(), strconv.Itoa(x), strconv.Itoa(y))}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = os.Stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Killed by its own PID; it has nothing to save.
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.mu.Lock()
			s.said = append(s.said, sc.Text())
			s.mu.Unlock()
		}
	}()
	testkit.WaitFor(t, 20*time.Second, "the drag source shown", func() bool { return s.hasSaid("ready") })
	return s
}

func (s *dragSource) hasSaid(word string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.said {
		if w == word {
			return true
		}
	}
	return false
}

// uploadPage is a form whose file input sends the chosen file's bytes to
// the site.
const uploadPage = `<!doctype html><title>Send a file</title>
<label>Upload <input type=file id=f></label>
<script>f.onchange=async()=>{await fetch('/got?name='+encodeURIComponent(f.files[0].name),{method:'POST',body:await f.files[0].arrayBuffer()})}</script>`

// windowPosition is the app window's top-left corner on the screen.
func (d *desktopApp) windowPosition(t *testing.T) image.Point {
	t.Helper()
	out, err := exec.Command("xdotool", "getwindowgeometry", "--shell", d.window).Output()
	if err != nil {
		t.Fatalf("window geometry: %v", err)
	}
	var p image.Point
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "X="); ok {
			p.X, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(l, "Y="); ok {
			p.Y, _ = strconv.Atoi(v)
		}
	}
	return p
}

// accentIn counts the accent-blue pixels (a chip's border) in r of img.
func accentIn(img image.Image, r image.Rectangle) int {
	accent, n := colourNear(0x6a, 0xa6, 0xff), 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if accent(int(cr>>8), int(cg>>8), int(cb>>8)) {
				n++
			}
		}
	}
	return n
}

// A file dragged from another program and dropped on the omnibox becomes
// a chip; the task typed next runs with it as the run's file: the
// planner's request names it, and the agent's upload in the run's page
// sends its bytes to the site.
func TestWindowDropFileOnOmnibox(t *testing.T) {
	testenv.NeedDisplay(t)
	content := "dropped on the omnibox " + strconv.FormatInt(time.Now().UnixNano(), 36)
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /upload", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, uploadPage)
	})
	mux.HandleFunc("POST /got", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = r.URL.Query().Get("name") + ":" + string(b)
		mu.Unlock()
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	received := func() string { mu.Lock(); defer mu.Unlock(); return got }

	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "upload the file I gave with the form", "url": site.URL + "/upload"}))
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if received() != "" {
			return modeltest.Call("done", map[string]any{"summary": "uploaded", "success": true})
		}
		ref := modeltest.Ref(r.Text(), "file", "Upload")
		if ref == "" {
			return modeltest.Call("observe", map[string]any{})
		}
		return modeltest.Call("upload", map[string]any{"ref": ref, "files": []string{file}})
	}})
	d := startWindowApp(t, srv)
	testkit.WaitFor(t, 30*time.Second, "the browser ready", func() bool { return strings.Contains(d.logs.String(), "browser ready") })
	at := d.windowPosition(t)
	omnibox := at.Add(image.Pt(640, 22))
	band := image.Rect(120, 6, 1000, 38)
	before := accentIn(d.capture(), band)

	src := startDragSource(t, file, at.X+1000, at.Y+560)
	// Press on the source and move as a hand does: GTK starts the drag
	// past its threshold, and the target needs motion over it before the
	// drop. Absolute coordinates: the drag crosses two windows.
	x0, y0 := at.X+1060, at.Y+600
	args := []string{"mousemove", strconv.Itoa(x0), strconv.Itoa(y0), "mousedown", "1"}
	for i := 1; i <= 6; i++ {
		x, y := x0+(omnibox.X-x0)*i/6, y0+(omnibox.Y-y0)*i/6
		args = append(args, "mousemove", strconv.Itoa(x), strconv.Itoa(y), "sleep", "0.15")
	}
	args = append(args, "mousemove", strconv.Itoa(omnibox.X+4), strconv.Itoa(omnibox.Y), "sleep", "0.3", "mouseup", "1")
	d.xdo(t, args...)
	// GTK ends its drag on the motion after the release.
	d.xdo(t, "mousemove", strconv.Itoa(omnibox.X+60), strconv.Itoa(omnibox.Y+8), "sleep", "0.2", "mousemove", strconv.Itoa(omnibox.X+70), strconv.Itoa(omnibox.Y), "sleep", "0.3")
	testkit.WaitFor(t, 20*time.Second, "the app taking the dragged file", func() bool { return src.hasSaid("given") })
	img := d.await(t, "the file's chip in the omnibox", func(img image.Image) bool { return accentIn(img, band) > before+60 })
	save(t, screenshotDir(t), "desktop-dropped-file", img)

	// The drop put nothing in the box: what is typed after its end is the
	// whole task.
	d.clickAt(t, image.Pt(700, 22))
	d.xdo(t, "key", "End")
	d.xdo(t, "type", "--delay", "10", "upload the file I gave with the form")
	d.xdo(t, "key", "Return")
	testkit.WaitFor(t, 30*time.Second, "the planner's first request", func() bool { return len(srv.Requests("planner")) > 0 })
	text := srv.Requests("planner")[0].Text()
	if !strings.Contains(text, file) {
		t.Fatalf("the planner's first request does not name the dropped file %s:\n%s", file, tailOf(text, 1500))
	}
	if strings.Contains(text, "file://") {
		t.Errorf("the drop typed the file's URI into the omnibox:\n%s", tailOf(text, 1500))
	}
	testkit.WaitFor(t, 60*time.Second, "the dropped file's bytes at the site", func() bool { return received() != "" })
	if want := "notes.txt:" + content; received() != want {
		t.Errorf("the site received %q, want %q", received(), want)
	}
}
