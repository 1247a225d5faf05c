//go:build !linux

package testenv

import "testing"

// SmallDisk is a tmpfs on Linux; elsewhere the test is skipped.
func SmallDisk(tb testing.TB, dir string, size, free int64) {
	tb.Helper()
	tb.Skip("a small disk is a Linux tmpfs")
}
