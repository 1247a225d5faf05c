package agents

import "testing"

func TestTabName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		info TabInfo
		want string
	}{
		{TabInfo{Title: "GitHub – octocat", URL: "https://github.com/octocat"}, "GitHub – octocat (github.com)"},
		{TabInfo{Title: "example.com/a", URL: "https://example.com/a"}, "example.com"},
		{TabInfo{URL: "http://shop.test:8080/cart"}, "shop.test"},
		{TabInfo{Title: "about:blank", URL: "about:blank"}, "a new tab"},
		{TabInfo{}, "a new tab"},
		{TabInfo{Title: "Notes"}, "Notes"},
	} {
		if got := tc.info.Name(); got != tc.want {
			t.Errorf("%+v: Name() = %q, want %q", tc.info, got, tc.want)
		}
	}
}
