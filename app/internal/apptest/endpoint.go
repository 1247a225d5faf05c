package apptest

import (
	"net"
	"testing"
)

// DeadEndpoint is an http:// endpoint on a loopback port nothing listens
// on any more, with a token that must never be printed.
func DeadEndpoint(t *testing.T) (url, token string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	token = "doctor-secret-4711"
	return "http://" + addr + "?token=" + token, token
}
