package modeltest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// listModels answers GET /v1/models.
func (s *Server) listModels(w http.ResponseWriter) {
	s.mu.Lock()
	ids := append([]string(nil), s.models...)
	if len(ids) == 0 {
		for role := range s.steps {
			ids = append(ids, role)
		}
	}
	s.mu.Unlock()
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, id := range ids {
		list.Data = append(list.Data, model{ID: id, Object: "model", OwnedBy: "modeltest"})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(list)
}

func (s *Server) speak(w http.ResponseWriter, r *http.Request) {
	var req SpeechRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "modeltest: decode speech request: "+err.Error(), 0)
		return
	}
	s.mu.Lock()
	s.speeches = append(s.speeches, req)
	gen, def, hold := s.speech, s.speechFmt, s.hold
	s.changed()
	s.mu.Unlock()

	pcm := gen(req)
	format := def
	switch req.ResponseFormat {
	case "pcm":
		format = PCM
	case "wav":
		format = WAV
	}
	var audio []byte
	held := -1 // the byte offset where the reply is held back, if it is
	if hold.release != nil {
		held = int(hold.after*SpeechRate/time.Second) * 2
	}
	if format == WAV {
		w.Header().Set("Content-Type", "audio/wav")
		audio = WAVBytes(pcm, SpeechRate)
		if held >= 0 {
			held += len(audio) - len(pcm)
		}
	} else {
		w.Header().Set("Content-Type", "audio/pcm")
		audio = pcm
	}
	if held < 0 || held > len(audio) {
		streamAudio(w, r, audio)
		return
	}
	if !streamAudio(w, r, audio[:held]) {
		return
	}
	select {
	case <-hold.release:
		streamAudio(w, r, audio[held:])
	case <-r.Context().Done():
	}
}

// streamAudio writes audio in 20 ms pieces, flushing each, so a client can
// start playing on the first; it reports whether all of it went out.
func streamAudio(w http.ResponseWriter, r *http.Request, audio []byte) bool {
	flusher, _ := w.(http.Flusher)
	const piece = SpeechRate / 50 * 2
	for len(audio) > 0 {
		if r.Context().Err() != nil {
			return false
		}
		n := min(piece, len(audio))
		if _, err := w.Write(audio[:n]); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		audio = audio[n:]
	}
	return true
}

func (s *Server) transcribe(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		writeError(w, http.StatusBadRequest, "modeltest: parse multipart: "+err.Error(), 0)
		return
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		writeError(w, http.StatusBadRequest, "modeltest: no file part: "+err.Error(), 0)
		return
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, f); err != nil {
		writeError(w, http.StatusBadRequest, "modeltest: read file: "+err.Error(), 0)
		return
	}
	up := Upload{
		Filename:    hdr.Filename,
		ContentType: hdr.Header.Get("Content-Type"),
		Data:        buf.Bytes(),
		Fields:      map[string]string{},
	}
	for k, v := range r.MultipartForm.Value {
		if len(v) > 0 {
			up.Fields[k] = v[0]
		}
	}
	s.mu.Lock()
	s.uploads = append(s.uploads, up)
	text := ""
	if len(s.texts) > 0 {
		text, s.texts = s.texts[0], s.texts[1:]
	}
	s.changed()
	s.mu.Unlock()

	switch up.Fields["response_format"] {
	case "text", "srt", "vtt":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, text)
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"text": text})
	}
}
