package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// SmallDisk mounts a tmpfs of size bytes (rounded up to pages) on dir,
// filled but for free bytes, and unmounts it when the test ends: a disk
// that fills up under what the test runs. Mounting needs root; without it
// the test is skipped, since the fault is also covered by an injected
// writer.
func SmallDisk(tb testing.TB, dir string, size, free int64) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.FormatInt(size, 10)+",mode=0700"); err != nil {
		tb.Skipf("cannot mount a small disk (root is needed): %v", err)
	}
	tb.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			tb.Errorf("unmount the small disk %s: %v", dir, err)
		}
	})
	filler := filepath.Join(dir, ".filler")
	f, err := os.Create(filler)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	var n int64
	for {
		w, err := f.Write(block)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := f.Truncate(max(0, n-free)); err != nil {
		tb.Fatal(err)
	}
}
