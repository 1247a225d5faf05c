package browser

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// maxNameBytes bounds a downloaded file's name, extension kept: most file
// systems take 255 bytes, and " (12)" may be added.
const maxNameBytes = 200

// SanitizeFileName makes a page's suggested file name safe to save under:
// no folders (only the last element of a path is kept), no control
// characters or characters a file system reserves, no leading dots (a
// hidden file) or trailing dots and spaces, not a reserved device name,
// at most 200 bytes with its extension kept; "download" when nothing is
// left.
func SanitizeFileName(name string) string {
	name = strings.ReplaceAll(name, `\`, "/")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	var sb strings.Builder
	for _, r := range name {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r):
		case strings.ContainsRune(`<>:"|?*`, r):
			sb.WriteByte('_')
		default:
			sb.WriteRune(r)
		}
	}
	name = strings.Trim(strings.TrimLeft(sb.String(), ". "), ". ")
	base, ext := splitExt(name)
	if reservedName(base) {
		base = "_" + base
	}
	if len(ext) > 20 {
		base, ext = base+ext, ""
	}
	for len(base)+len(ext) > maxNameBytes {
		_, size := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-size]
	}
	if base == "" {
		base = "download"
	}
	return base + ext
}

// splitExt splits name at its extension's dot.
func splitExt(name string) (string, string) {
	ext := filepath.Ext(name)
	if ext == name {
		return name, ""
	}
	return strings.TrimSuffix(name, ext), ext
}

// reservedName reports a Windows device name, which no file may be called
// whatever its extension.
func reservedName(base string) bool {
	switch strings.ToUpper(base) {
	case "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9":
		return true
	}
	return false
}

// finishDownload moves a completed download from staging into its folder
// under a name unique there, and ends it done (or failed, if the move
// failed).
func (b *Browser) finishDownload(e *dlEntry, reported string) {
	b.dl.mu.Lock()
	d, staging, dir := e.d, b.dl.staging, e.opts.Dir
	b.dl.mu.Unlock()
	if staging == "" {
		b.failDownload(e, "the browser closed")
		return
	}
	src := filepath.Join(staging, d.ID)
	if _, err := os.Stat(src); err != nil && reported != "" {
		src = reported
	}
	b.dl.moving.Lock()
	dst, err := placeFile(src, dir, d.Name)
	b.dl.moving.Unlock()
	if err != nil {
		b.failDownload(e, "could not be saved: "+err.Error())
		return
	}
	st, err := os.Stat(dst)
	if err != nil {
		b.failDownload(e, "could not be saved: "+err.Error())
		return
	}
	b.dl.mu.Lock()
	e.d.State, e.d.Path, e.d.Name, e.d.Size, e.d.MIME = DownloadStateDone, dst, filepath.Base(dst), st.Size(), fileType(dst)
	d = e.d
	b.dl.mu.Unlock()
	close(e.done)
	b.emit(Event{Kind: DownloadDone, Tab: b.tabInfo(d.Tab), Download: &d})
}

// placeFile moves src into dir as name, or "name (n).ext" when that is
// taken, and returns where it went.
func placeFile(src, dir, name string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	base, ext := splitExt(name)
	for n := 0; n < 1000; n++ {
		cand := name
		if n > 0 {
			cand = fmt.Sprintf("%s (%d)%s", base, n, ext)
		}
		dst := filepath.Join(dir, cand)
		if _, err := os.Lstat(dst); err == nil {
			continue
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		return dst, moveFile(src, dst)
	}
	return "", fmt.Errorf("%s: too many files of that name", name)
}

// moveFile renames src to dst, copying when they are on different file
// systems.
func moveFile(src, dst string) error {
	err := os.Rename(src, dst)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return errors.Join(err, os.Remove(dst))
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Remove(src)
}

// fileType is a file's MIME type: by its extension, else by its first
// bytes.
func fileType(path string) string {
	if t := mime.TypeByExtension(filepath.Ext(path)); t != "" {
		return t
	}
	f, err := os.Open(path)
	if err != nil {
		return "application/octet-stream"
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := io.ReadFull(f, buf) // a short file is sniffed by what it has
	return http.DetectContentType(buf[:n])
}
