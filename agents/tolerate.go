package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// decodeArgs decodes a tool call's arguments into v. Its error is written
// for the model: it says exactly what was wrong so one repair attempt can
// succeed.
func decodeArgs(name, raw string, v any) error {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = "{}"
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return fmt.Errorf("the arguments of %s are not valid JSON: %v at byte %d of %q", name, syn, syn.Offset, raw)
		case errors.As(err, &typ):
			return fmt.Errorf("in the arguments of %s, field %q must be a %s, not a JSON %s", name, typ.Field, typ.Type, typ.Value)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("the arguments of %s are cut off (unexpected end of JSON): %q", name, raw)
		default:
			return fmt.Errorf("the arguments of %s are not valid: %v; got %q", name, err, raw)
		}
	}
	if dec.More() {
		return fmt.Errorf("the arguments of %s hold more than one JSON value: %q", name, raw)
	}
	return nil
}

var successRE = regexp.MustCompile(`"success"\s*:\s*(true|false)`)

// salvageDone recovers the summary of a done call whose arguments were cut
// off by the token limit: the draft is kept even when the JSON never
// closed.
func salvageDone(raw string) (summary string, success, ok bool) {
	i := strings.Index(raw, `"summary"`)
	if i < 0 {
		return "", false, false
	}
	rest := strings.TrimLeft(raw[i+len(`"summary"`):], " \t\r\n")
	if !strings.HasPrefix(rest, ":") {
		return "", false, false
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n")
	if !strings.HasPrefix(rest, `"`) {
		return "", false, false
	}
	rest = rest[1:]
	// Read up to the closing quote, or the end of what arrived.
	var b bytes.Buffer
	b.WriteByte('"')
	for j := 0; j < len(rest); j++ {
		c := rest[j]
		if c == '\\' {
			if j+1 >= len(rest) {
				break // a dangling escape: drop it
			}
			if rest[j+1] == 'u' && j+6 > len(rest) {
				break // a cut \u escape
			}
			b.WriteByte(c)
			b.WriteByte(rest[j+1])
			j++
			continue
		}
		if c == '"' {
			break
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	if err := json.Unmarshal(b.Bytes(), &summary); err != nil {
		return "", false, false
	}
	if m := successRE.FindStringSubmatch(raw); m != nil {
		success = m[1] == "true"
	}
	return summary, success, true
}
