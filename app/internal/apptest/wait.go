package apptest

// Tail is the last n bytes of s, for a failure message.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
