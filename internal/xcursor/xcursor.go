package xcursor

/*
#cgo pkg-config: x11 xfixes
#include <X11/Xlib.h>
#include <X11/extensions/Xfixes.h>
#include <stdlib.h>
*/
import "C"

import (
	"errors"
	"hash/fnv"
	"unsafe"
)

// Image is the cursor on screen: its size, hot spot and a hash of its
// pixels, which tells one shape from another.
type Image struct {
	W, H, HotX, HotY int
	Sum              uint64
}

// ErrNoDisplay is returned when $DISPLAY cannot be opened.
var ErrNoDisplay = errors.New("xcursor: cannot open the display")

// Current is the cursor image the X server shows now.
func Current() (Image, error) {
	d := C.XOpenDisplay(nil)
	if d == nil {
		return Image{}, ErrNoDisplay
	}
	defer C.XCloseDisplay(d)
	img := C.XFixesGetCursorImage(d)
	if img == nil {
		return Image{}, errors.New("xcursor: the server gave no cursor image")
	}
	defer C.XFree(unsafe.Pointer(img))
	n := int(img.width) * int(img.height)
	px := unsafe.Slice((*C.ulong)(unsafe.Pointer(img.pixels)), n)
	h := fnv.New64a()
	var b [4]byte
	for _, p := range px {
		v := uint32(p)
		b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		h.Write(b[:])
	}
	return Image{W: int(img.width), H: int(img.height), HotX: int(img.xhot), HotY: int(img.yhot), Sum: h.Sum64()}, nil
}
