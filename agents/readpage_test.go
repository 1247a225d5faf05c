package agents

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"vroom/internal/modeltest"
)

// article is a page of text of words words, in paragraphs of about 80.
func article(words int) string {
	var sb strings.Builder
	sb.WriteString("# A long read\n")
	for i := range words {
		fmt.Fprintf(&sb, "word%d", i)
		if i%80 == 79 || i == words-1 {
			sb.WriteString(".\n")
		} else {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

// TestReadPageArticleInOneCall: a 1,000-word article reaches the model
// whole in the one read_page after the first look, fenced as page data
// from the tab's URL, saying it is all of it.
func TestReadPageArticleInOneCall(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	text := article(1000)
	tr.tabs.page = func(ft *fakeTab) { ft.text = text }
	tr.srv.Then("planner", spawn("what does the article say", "url", "http://news.test/a"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("done", true))
	tr.srv.Then("executor", modeltest.Call("read_page", map[string]any{}), done("it says…", true))
	if res := tr.execute(t, "read it"); !res.Success {
		t.Fatalf("result %+v", res)
	}
	reqs := tr.srv.Requests("executor")
	if len(reqs) != 2 {
		t.Fatalf("%d executor calls, want 2 (read_page, done)", len(reqs))
	}
	got := reqs[1].LastText()
	want := fmt.Sprintf("the page's text: all of it, %d characters\n<page_data source=\"http://news.test/a\" trust=\"untrusted\">", utf8.RuneCountInString(text))
	if !strings.Contains(got, want) || !strings.Contains(got, "word999.\n") || !strings.Contains(got, "# A long read\nword0 ") {
		t.Fatalf("read_page's result:\n%.600s", got)
	}
}

// TestReadPageParts: a page longer than a part is read in parts that end
// at line ends; each says how to read on, the last that it is the end, and
// a cursor past the end is told how many parts there are.
func TestReadPageParts(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	text := article(5000) // about 34,000 characters: three parts
	tr.tabs.page = func(ft *fakeTab) { ft.text = text }
	tr.srv.Then("planner", spawn("read it all", "url", "http://news.test/long"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("done", true))
	tr.srv.Then("executor",
		modeltest.Call("read_page", map[string]any{}),
		modeltest.Call("read_page", map[string]any{"cursor": 2}),
		modeltest.Call("read_page", map[string]any{"cursor": 3}),
		modeltest.Call("read_page", map[string]any{"cursor": 4}),
		done("read", true))
	if res := tr.execute(t, "read"); !res.Success {
		t.Fatalf("result %+v", res)
	}
	reqs := tr.srv.Requests("executor")
	if len(reqs) != 5 {
		t.Fatalf("%d executor calls", len(reqs))
	}
	heads := []string{
		"the page's text: part 1 of 3; read_page with cursor 2 reads the next\n",
		"the page's text: part 2 of 3; read_page with cursor 3 reads the next\n",
		"the page's text: part 3 of 3, the end\n",
	}
	var whole []string
	for i, h := range heads {
		got := reqs[i+1].LastText()
		at := strings.Index(got, h)
		if at < 0 {
			t.Fatalf("result %d lacks %q:\n%.300s", i+1, h, got)
		}
		body := got[at+len(h):]
		body = strings.TrimSuffix(body[strings.Index(body, ")\n")+2:strings.LastIndex(body, "\n</page_data>")], "\n")
		if n := utf8.RuneCountInString(body); n > ReadPartSize || !strings.HasSuffix(body, ".") {
			t.Fatalf("part %d has %d characters and ends %q", i+1, n, body[max(0, len(body)-20):])
		}
		whole = append(whole, body)
	}
	if strings.Join(whole, "\n") != strings.TrimSuffix(text, "\n") {
		t.Fatalf("the parts do not make the page's text")
	}
	if got := reqs[4].LastText(); !strings.Contains(got, "error: read_page: cursor 4 is past the end: the page's text has 3 parts now") {
		t.Fatalf("a cursor past the end:\n%s", got)
	}
}

// TestSplitParts: parts never exceed the size, end at a line's end when
// one falls inside, cut a line longer than a part, and keep every
// character.
func TestSplitParts(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 25)
	for _, c := range []struct {
		text string
		want []string
	}{
		{"short", []string{"short"}},
		{"aaaa\nbbbb\ncccc", []string{"aaaa\nbbbb", "cccc"}},
		{long, []string{long[:20], long[20:40], long[40:]}},
	} {
		got := splitParts(c.text, 10)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("splitParts(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
