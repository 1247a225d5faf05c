// Package xcursor reads the X server's current cursor image (XFixes), so
// a test driving the real window can judge the cursor a person sees. It is
// for tests only and imports nothing of Vroom's; it needs cgo with libX11
// and libXfixes, which GTK brings.
package xcursor
