package sources

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

const fiveMB = 5_000_000

func TestFetch(t *testing.T) {
	text := "WEBVTT\n\n00:00:00.000 --> 00:00:04.000\nTurn with me to Luke 24.\n"
	big := func(n int) []byte { return bytes.Repeat([]byte("a"), n) }
	// Heads of audio and video files, each behind a harmless Content-Type.
	pad := func(b string) []byte { return append([]byte(b), bytes.Repeat([]byte{0}, 600)...) }
	mp4 := pad("\x00\x00\x00\x20ftypisom\x00\x00\x02\x00isomiso2avc1mp41")
	m4a := pad("\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00M4A mp42isom")
	tsHead := make([]byte, 600)
	tsHead[0], tsHead[188], tsHead[376] = 0x47, 0x47, 0x47

	type response struct {
		status      int
		contentType string
		body        []byte
		chunked     bool // no Content-Length: stream the body in chunks
		lie         int  // a Content-Length to declare instead of the body's
	}
	tests := []struct {
		name          string
		resp          response
		wantErr       bool // a UserError unprocessable
		wantTransient bool // an error to retry
		wantType      string
	}{
		{name: "text", resp: response{contentType: "text/vtt; charset=utf-8", body: []byte(text)}, wantType: "text/vtt; charset=utf-8"},
		{name: "no content type: sniffed", resp: response{body: []byte(text)}, wantType: "text/plain; charset=utf-8"},
		{name: "exactly the cap", resp: response{contentType: "text/plain", body: big(fiveMB)}, wantType: "text/plain"},
		{name: "exactly the cap, chunked", resp: response{contentType: "text/plain", body: big(fiveMB), chunked: true}, wantType: "text/plain"},
		{name: "empty", resp: response{contentType: "text/plain"}, wantType: "text/plain"},
		{name: "UTF-16 text with a BOM", resp: response{contentType: "text/plain", body: []byte("\xff\xfeL\x00u\x00k\x00e\x00")}, wantType: "text/plain"},
		{name: "201", resp: response{status: 201, contentType: "text/plain", body: []byte(text)}, wantType: "text/plain"},

		{name: "over the cap by Content-Length", resp: response{contentType: "text/plain", body: big(fiveMB + 1)}, wantErr: true},
		{name: "Content-Length far over the cap", resp: response{contentType: "text/plain", body: big(10), lie: 50_000_000}, wantErr: true},
		{name: "over the cap while streaming", resp: response{contentType: "text/plain", body: big(fiveMB + 1), chunked: true}, wantErr: true},
		{name: "far over the cap while streaming", resp: response{contentType: "text/plain", body: big(3 * fiveMB), chunked: true}, wantErr: true},

		{name: "404", resp: response{status: 404, contentType: "text/plain", body: []byte("not found")}, wantErr: true},
		{name: "403", resp: response{status: 403}, wantErr: true},
		{name: "500 is retried", resp: response{status: 500}, wantTransient: true},
		{name: "503 is retried", resp: response{status: 503}, wantTransient: true},
		{name: "429 is retried", resp: response{status: 429}, wantTransient: true},
		{name: "304", resp: response{status: 304}, wantErr: true},

		{name: "audio/mpeg", resp: response{contentType: "audio/mpeg", body: []byte(text)}, wantErr: true},
		{name: "video/mp4", resp: response{contentType: "video/mp4", body: []byte(text)}, wantErr: true},
		{name: "Audio/Ogg with parameters", resp: response{contentType: "Audio/Ogg; codecs=opus", body: []byte(text)}, wantErr: true},
		{name: "application/ogg", resp: response{contentType: "application/ogg", body: []byte(text)}, wantErr: true},
		{name: "HLS playlist type", resp: response{contentType: "application/vnd.apple.mpegurl", body: []byte(text)}, wantErr: true},

		{name: "sniffed mp3 (ID3)", resp: response{contentType: "text/plain", body: pad("ID3\x04\x00\x00\x00\x00\x00\x23TSSE")}, wantErr: true},
		{name: "sniffed mp3 (frame)", resp: response{contentType: "text/plain", body: pad("\xff\xfb\x90\x64\x00")}, wantErr: true},
		{name: "sniffed aac (ADTS)", resp: response{contentType: "text/plain", body: pad("\xff\xf1\x50\x80")}, wantErr: true},
		{name: "sniffed mp4", resp: response{contentType: "text/plain", body: mp4}, wantErr: true},
		{name: "sniffed m4a", resp: response{contentType: "application/octet-stream", body: m4a}, wantErr: true},
		{name: "sniffed ogg", resp: response{contentType: "text/plain", body: pad("OggS\x00\x02\x00\x00")}, wantErr: true},
		{name: "sniffed wav", resp: response{contentType: "text/plain", body: pad("RIFF\x24\x08\x00\x00WAVEfmt ")}, wantErr: true},
		{name: "sniffed avi", resp: response{contentType: "text/plain", body: pad("RIFF\x24\x08\x00\x00AVI LIST")}, wantErr: true},
		{name: "sniffed webm", resp: response{contentType: "text/plain", body: pad("\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01webm")}, wantErr: true},
		{name: "sniffed flac", resp: response{contentType: "text/plain", body: pad("fLaC\x00\x00\x00\x22")}, wantErr: true},
		{name: "sniffed aiff", resp: response{contentType: "text/plain", body: pad("FORM\x00\x00\x00\x00AIFFCOMM")}, wantErr: true},
		{name: "sniffed quicktime", resp: response{contentType: "text/plain", body: pad("\x00\x00\x00\x08moov")}, wantErr: true},
		{name: "sniffed mpeg-ts", resp: response{contentType: "text/plain", body: tsHead}, wantErr: true},
		{name: "sniffed, no content type", resp: response{body: pad("ID3\x03\x00")}, wantErr: true},
		{name: "sniffed, chunked", resp: response{contentType: "text/plain", body: append(pad("fLaC"), big(fiveMB)...), chunked: true}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h := w.Header()
				if tt.resp.contentType != "" {
					h.Set("Content-Type", tt.resp.contentType)
				} else {
					h["Content-Type"] = nil // no sniffing by the server
				}
				switch {
				case tt.resp.lie > 0:
					h.Set("Content-Length", strconv.Itoa(tt.resp.lie))
				case !tt.resp.chunked:
					h.Set("Content-Length", strconv.Itoa(len(tt.resp.body)))
				}
				status := tt.resp.status
				if status == 0 {
					status = http.StatusOK
				}
				w.WriteHeader(status)
				if !tt.resp.chunked {
					w.Write(tt.resp.body)
					return
				}
				for b := tt.resp.body; len(b) > 0; {
					n := min(len(b), 64<<10)
					if _, err := w.Write(b[:n]); err != nil {
						return
					}
					w.(http.Flusher).Flush()
					b = b[n:]
				}
			}))
			defer srv.Close()

			body, ct, err := Fetch(testContext(t), NewClient(testClientOptions()), srv.URL+"/sermon.vtt", fiveMB)
			if tt.wantTransient {
				var ue *UserError
				if err == nil || errors.As(err, &ue) {
					t.Fatalf("Fetch = %v; want a transient error (no UserError)", err)
				}
				return
			}
			if tt.wantErr {
				t.Logf("error: %v", err)
				var ue *UserError
				if !errors.As(err, &ue) || ue.Type != TypeUnprocessable {
					t.Fatalf("Fetch = %d bytes, %q, %v; want a UserError unprocessable", len(body), ct, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if !bytes.Equal(body, tt.resp.body) && !(len(body) == 0 && len(tt.resp.body) == 0) {
				t.Errorf("Fetch body = %d bytes, want %d", len(body), len(tt.resp.body))
			}
			if ct != tt.wantType {
				t.Errorf("Fetch content type = %q, want %q", ct, tt.wantType)
			}
		})
	}
}

func TestFetchCapMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5000001")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	_, _, err := Fetch(testContext(t), NewClient(testClientOptions()), srv.URL, fiveMB)
	if err == nil || err.Error() != "the file is larger than 5 MB" {
		t.Fatalf("Fetch error = %v, want %q", err, "the file is larger than 5 MB")
	}
}

func TestFetchStopsEarly(t *testing.T) {
	// A server streaming far more than the cap sees the client go away soon
	// after the cap.
	written := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		n := 0
		for n < 200_000_000 {
			if _, err := w.Write(chunk); err != nil {
				break
			}
			w.(http.Flusher).Flush()
			n += len(chunk)
		}
		written <- n
	}))
	defer srv.Close()
	_, _, err := Fetch(testContext(t), NewClient(testClientOptions()), srv.URL, fiveMB)
	var ue *UserError
	if !errors.As(err, &ue) {
		t.Fatalf("Fetch error = %v, want a UserError", err)
	}
	if n := <-written; n > 50_000_000 {
		t.Errorf("the server wrote %d bytes before the client went away", n)
	}
}

func TestFetchErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Promise more than is sent, then hang up: a network error.
		w.Header().Set("Content-Length", "1000")
		io.WriteString(w, "partial")
		panic(http.ErrAbortHandler)
	}))
	defer srv.Close()
	client := NewClient(testClientOptions())

	_, _, err := Fetch(testContext(t), client, srv.URL, fiveMB)
	var ue *UserError
	if err == nil || errors.As(err, &ue) {
		t.Errorf("Fetch of a cut-off body: error %v, want a transient error", err)
	}

	closed := httptest.NewServer(http.NotFoundHandler())
	url := closed.URL
	closed.Close()
	_, _, err = Fetch(testContext(t), client, url, fiveMB)
	if err == nil || errors.As(err, &ue) {
		t.Errorf("Fetch of a closed port: error %v, want a transient error", err)
	}

	_, _, err = Fetch(testContext(t), client, "http://127.0.0.2:1/", fiveMB)
	if !errors.As(err, &ue) || ue.Type != TypeUnprocessable || !strings.Contains(ue.Message, "private/reserved") {
		t.Errorf("Fetch of a refused address: error %v, want a UserError unprocessable", err)
	}

	_, _, err = Fetch(testContext(t), client, "http://%zz/", fiveMB)
	if !errors.As(err, &ue) || ue.Type != TypeInvalidRequest {
		t.Errorf("Fetch of a bad URL: error %v, want a UserError invalid_request", err)
	}
}

func TestSniffAVText(t *testing.T) {
	// Texts must not be taken for audio or video.
	for _, s := range []string{
		"WEBVTT\n", "1\n00:00:01,000 --> 00:00:02,000\nHi\n", "Ask free questions", "Good morning",
		"\ufeffText", "\xff\xfeU\x00T\x00F\x00", "\xfe\xff\x00U", "<html><body>Luke</body></html>",
		"{\"text\":\"Luke\"}", "GIF is not text but not audio",
		"%PDF-1.7", "", "RIFF\x00\x00\x00\x00WEBPVP8 ",
	} {
		if kind := sniffAV([]byte(s)); kind != "" {
			t.Errorf("sniffAV(%q) = %q, want none", s, kind)
		}
	}
}
