package voice

import (
	"sync/atomic"
	"unsafe"
)

// ring is a single-producer, single-consumer ring of 16-bit samples. The
// audio callback is always one end of it, so neither end locks or
// allocates: each side owns one cursor and only reads the other's.
type ring struct {
	buf  []int16
	mask uint64
	r    atomic.Uint64 // samples consumed since creation
	_    [56]byte      // keep the cursors on separate cache lines
	w    atomic.Uint64 // samples written since creation
}

// newRing returns a ring holding at least size samples (rounded up to a
// power of two so positions wrap with a mask).
func newRing(size int) *ring {
	n := 1
	for n < size {
		n <<= 1
	}
	return &ring{buf: make([]int16, n), mask: uint64(n - 1)}
}

// Write copies as much of p as fits and returns how many samples it took.
// Only the producer calls it.
func (q *ring) Write(p []int16) int {
	w, r := q.w.Load(), q.r.Load()
	n := min(uint64(len(p)), uint64(len(q.buf))-(w-r))
	if n == 0 {
		return 0
	}
	c := copy(q.buf[w&q.mask:], p[:n])
	copy(q.buf, p[c:n])
	q.w.Store(w + n)
	return int(n)
}

// Read fills p with as many buffered samples as there are and returns the
// count. Only the consumer calls it.
func (q *ring) Read(p []int16) int {
	r, w := q.r.Load(), q.w.Load()
	n := min(uint64(len(p)), w-r)
	if n == 0 {
		return 0
	}
	c := copy(p[:n], q.buf[r&q.mask:])
	copy(p[c:n], q.buf)
	q.r.Store(r + n)
	return int(n)
}

// Discard drops every buffered sample. Only the consumer calls it (or the
// producer while no consumer is running).
func (q *ring) Discard() { q.r.Store(q.w.Load()) }

// Len is the number of buffered samples.
func (q *ring) Len() int { return int(q.w.Load() - q.r.Load()) }

// Consumed is the number of samples read (or discarded) since creation.
func (q *ring) Consumed() uint64 { return q.r.Load() }

// Written is the number of samples written since creation.
func (q *ring) Written() uint64 { return q.w.Load() }

// int16s views a device buffer of native-endian 16-bit samples as samples,
// without copying: miniaudio's s16 format is the machine's own byte order.
func int16s(b []byte) []int16 {
	if len(b) < 2 {
		return nil
	}
	return unsafe.Slice((*int16)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/2)
}
