package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// decodeArgs decodes a tool call's arguments into v. Values a model sent
// in another JSON type than the schema's, where the meaning is plain ("5"
// for 5, "true" for true, one PID for a list of them, ["button","link"]
// for a comma-separated list), are taken as meant rather than costing a
// model call (coerce). Its error is written for the model: it says exactly
// what was wrong so one repair attempt can succeed.
func decodeArgs(name, raw string, v any) error {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = "{}"
	}
	wrongType, err := decodeStrict(name, raw, v)
	if !wrongType {
		if err != nil {
			return err
		}
		return missing(name, raw, v)
	}
	fixed, ok := coerce(raw, v)
	if !ok {
		return err
	}
	fresh := reflect.New(reflect.TypeOf(v).Elem())
	if stillWrong, err2 := decodeStrict(name, fixed, fresh.Interface()); err2 != nil {
		if stillWrong {
			return err // what could not be read as meant, in the model's own terms
		}
		return err2 // the next thing wrong, once the types were taken as meant
	}
	reflect.ValueOf(v).Elem().Set(fresh.Elem())
	return missing(name, fixed, v)
}

// MissingArgError is a tool call without an argument the tool requires.
type MissingArgError struct {
	Tool string // the tool called
	Arg  string // the argument it lacks
}

// Error says what is missing, for the model.
func (e *MissingArgError) Error() string {
	return fmt.Sprintf("the arguments of %s lack %q, which it needs", e.Tool, e.Arg)
}

// Unwrap makes a missing argument an ErrMalformed.
func (e *MissingArgError) Unwrap() error { return ErrMalformed }

// missing reports the first argument v's type requires (a field without
// omitempty, as its schema says) that raw does not hold: decoding alone
// would leave it zero, and a done without its summary would end a run
// with nothing to show.
func missing(name, raw string, v any) error {
	rt := reflect.TypeOf(v)
	if rt.Kind() != reflect.Pointer || rt.Elem().Kind() != reflect.Struct {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &m) != nil {
		return nil // decodeStrict has read it as an object already
	}
	for _, f := range reflect.VisibleFields(rt.Elem()) {
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous || tag == "-" || !f.IsExported() || strings.Contains(opts, "omitempty") {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if val, ok := m[tag]; !ok || string(val) == "null" {
			return &MissingArgError{Tool: name, Arg: tag}
		}
	}
	return nil
}

// decodeStrict is decodeArgs without coercion; wrongType reports that a
// value had another JSON type than its field.
func decodeStrict(name, raw string, v any) (wrongType bool, err error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return false, fmt.Errorf("the arguments of %s are not valid JSON: %v at byte %d of %q", name, syn, syn.Offset, raw)
		case errors.As(err, &typ):
			return true, fmt.Errorf("in the arguments of %s, field %q must be a %s, not a JSON %s", name, typ.Field, typ.Type, typ.Value)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return false, fmt.Errorf("the arguments of %s are cut off (unexpected end of JSON): %q", name, raw)
		default:
			return false, fmt.Errorf("the arguments of %s are not valid: %v; got %q", name, err, raw)
		}
	}
	if dec.More() {
		return false, fmt.Errorf("the arguments of %s hold more than one JSON value: %q", name, raw)
	}
	return false, nil
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

// coerce rewrites raw's values whose JSON type differs from the field of
// v (a pointer to a struct) they fill, where the meaning is plain: a
// number or boolean sent as a string, a single value for a list, a
// comma-separated string for a list of strings tagged args:"list". It reports
// whether anything changed; what cannot be read so is left for the
// strict decoder to explain.
func coerce(raw string, v any) (string, bool) {
	rt := reflect.TypeOf(v)
	if rt.Kind() != reflect.Pointer || rt.Elem().Kind() != reflect.Struct {
		return raw, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &m) != nil {
		return raw, false
	}
	changed := false
	for i := range rt.Elem().NumField() {
		f := rt.Elem().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		val, ok := m[name]
		if !ok {
			continue
		}
		if fixed, ok := coerceValue(val, f.Type, f.Tag.Get("args") == "list"); ok {
			m[name], changed = fixed, true
		}
	}
	if !changed {
		return raw, false
	}
	b, err := json.Marshal(m)
	if err != nil {
		return raw, false
	}
	return string(b), true
}

// coerceValue is coerce for one value of type t.
func coerceValue(val json.RawMessage, t reflect.Type, list bool) (json.RawMessage, bool) {
	var s string
	isString := json.Unmarshal(val, &s) == nil
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Float64:
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); isString && err == nil {
			return json.RawMessage(strings.TrimSpace(s)), true
		}
	case reflect.Bool:
		if b, err := strconv.ParseBool(strings.TrimSpace(s)); isString && err == nil {
			return json.RawMessage(strconv.FormatBool(b)), true
		}
	case reflect.Slice:
		if list && isString && t.Elem().Kind() == reflect.String {
			var items []string
			for _, it := range strings.Split(s, ",") {
				if it = strings.TrimSpace(it); it != "" {
					items = append(items, it)
				}
			}
			b, err := json.Marshal(items)
			return b, err == nil
		}
		var items []json.RawMessage
		if json.Unmarshal(val, &items) != nil {
			items = []json.RawMessage{val} // one value for a list of them
		}
		changed := len(items) == 1 && !bytes.HasPrefix(bytes.TrimSpace(val), []byte("["))
		for i, it := range items {
			if fixed, ok := coerceValue(it, t.Elem(), false); ok {
				items[i], changed = fixed, true
			}
		}
		if b, err := json.Marshal(items); changed && err == nil {
			return b, true
		}
	}
	return nil, false
}
