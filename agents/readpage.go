package agents

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ReadPartSize is the most text one read_page result carries, in
// characters. The question it must answer in one call is "what does the
// article say about X", and X may be anywhere in it: so a part holds a
// long article whole — 2,000 words are about 12,000 characters, and a
// page's menus, links and footer add 1,000 to 3,000 more — at about
// 4,000 tokens, under the 20,000 characters a result was cut to before.
// A 1,000-word article (about 6,000 characters) reaches the model in the
// one read_page after the open; a longer page goes on in parts.
const ReadPartSize = 16000

// ReadPage is the read_page tool's result for tab t: part cursor (1, the
// first, when cursor is 0) of the page's whole text (Tab.ReadPage), fenced
// as untrusted page data, saying where the part lies in the whole and how
// to read on. The text is read afresh each call and cut into parts at
// line ends, so the same page gives the same parts. Executors call it,
// and so can an MCP server with the tab a client drives.
func ReadPage(ctx context.Context, t Tab, cursor int) (string, error) {
	if cursor < 0 {
		return "", fmt.Errorf("read_page: cursor %d: parts count from 1", cursor)
	}
	text, err := t.ReadPage(ctx)
	if err != nil {
		return "", fmt.Errorf("read_page: %w", err)
	}
	parts := splitParts(text, ReadPartSize)
	if cursor == 0 {
		cursor = 1
	}
	if cursor > len(parts) {
		return "", fmt.Errorf("read_page: cursor %d is past the end: the page's text has %d parts now", cursor, len(parts))
	}
	src := t.Info().URL
	if src == "" {
		src = "read_page"
	}
	var head string
	switch {
	case len(parts) == 1:
		head = fmt.Sprintf("the page's text: all of it, %d characters", utf8.RuneCountInString(text))
	case cursor < len(parts):
		head = fmt.Sprintf("the page's text: part %d of %d; read_page with cursor %d reads the next", cursor, len(parts), cursor+1)
	default:
		head = fmt.Sprintf("the page's text: part %d of %d, the end", cursor, len(parts))
	}
	return head + "\n" + fence(src, parts[cursor-1]), nil
}

// splitParts cuts text into parts of at most size characters, each
// ending at a line's end where one falls inside it.
func splitParts(text string, size int) []string {
	var parts []string
	for utf8.RuneCountInString(text) > size {
		cut := byteOfRune(text, size)
		if nl := strings.LastIndexByte(text[:cut], '\n'); nl > 0 {
			cut = nl + 1
		}
		parts = append(parts, strings.TrimSuffix(text[:cut], "\n"))
		text = text[cut:]
	}
	return append(parts, text)
}

// byteOfRune is the byte offset of s's n-th rune.
func byteOfRune(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
