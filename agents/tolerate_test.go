package agents

import (
	"slices"
	"strings"
	"testing"
)

// TestDecodeArgsTakesPlainMeaning: values other models send in another
// JSON type than the schema's, where the meaning is plain, are taken as
// meant instead of costing a model call; what is not plain still gets the
// explaining error.
func TestDecodeArgsTakesPlainMeaning(t *testing.T) {
	t.Parallel()
	var p pointArgs
	if err := decodeArgs("click_at", `{"x": "120", "y": " 80.5 "}`, &p); err != nil || p.X != 120 || p.Y != 80.5 {
		t.Errorf("click_at with string numbers: %+v, %v", p, err)
	}
	var ty typeArgs
	if err := decodeArgs("type", `{"ref": "e3", "text": "42", "submit": "true"}`, &ty); err != nil || !ty.Submit || ty.Text != "42" {
		t.Errorf("type with a string boolean: %+v, %v", ty, err)
	}
	var o observeArgs
	if err := decodeArgs("observe", `{"roles": ["button", "link"], "limit": "5"}`, &o); err != nil || !slices.Equal(o.Roles, []string{"button", "link"}) || o.Limit != 5 {
		t.Errorf("observe with a list of roles: %+v, %v", o, err)
	}
	if err := decodeArgs("observe", `{"roles": "button, link"}`, &o); err != nil || !slices.Equal(o.Roles, []string{"button", "link"}) {
		t.Errorf("observe with comma-separated roles: %+v, %v", o, err)
	}
	var w waitArgs
	if err := decodeArgs("wait", `{"pids": 3, "mode": "any"}`, &w); err != nil || !slices.Equal(w.PIDs, []int{3}) {
		t.Errorf("wait with one PID: %+v, %v", w, err)
	}
	if err := decodeArgs("wait", `{"pids": ["3", 4], "mode": "all", "timeout_s": "2.5"}`, &w); err != nil || !slices.Equal(w.PIDs, []int{3, 4}) || w.TimeoutS != 2.5 {
		t.Errorf("wait with string PIDs: %+v, %v", w, err)
	}
	var k killArgs
	if err := decodeArgs("kill", `{"pid": "7"}`, &k); err != nil || k.PID != 7 {
		t.Errorf("kill with a string PID: %+v, %v", k, err)
	}
	for _, c := range []struct {
		raw  string
		v    any
		want string
	}{
		{`{"x": "left", "y": 1}`, &pointArgs{}, `field "x" must be a float64, not a JSON string`},
		{`{"ref": 12}`, &refArgs{}, `field "ref" must be a string`},
		{`{"ref": "e1", "text": ["a", "b"]}`, &typeArgs{}, `field "text" must be a string`},
		{`{"pid": "7", "force": true}`, &killArgs{}, `unknown field "force"`},
	} {
		if err := decodeArgs("tool", c.raw, c.v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("decodeArgs(%s) = %v, want mention of %q", c.raw, err, c.want)
		}
	}
}
