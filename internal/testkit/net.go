package testkit

import (
	"net"
	"testing"
)

// FreePort returns a loopback TCP port nothing listens on now, for a child
// process that must be told its port before it starts (a dev server, a
// browser's debugging port). Another process may take it in between; a
// test that can listen itself should pass a listener instead.
func FreePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("free port: %v", err)
	}
	defer l.Close() // only the port was wanted; closing frees it for the child
	return l.Addr().(*net.TCPAddr).Port
}
