package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeYouTube serves watch pages and timed text shaped like YouTube's: video "Cn4sEntP1aY" has a
// manual English track and an automatic one, video "NoCaps00000" has none.
func fakeYouTube(t *testing.T) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/watch":
			id := r.URL.Query().Get("v")
			player := map[string]any{
				"playabilityStatus": map[string]any{"status": "OK"},
				"videoDetails":      map[string]any{"videoId": id, "title": "Love Never Fails | Sunday Service"},
			}
			if id == "Cn4sEntP1aY" {
				base := srv.URL + "/api/timedtext?v=" + id + "&caps=asr&xoaf=5&hl=en&ip=0.0.0.0&sparams=ip&signature=AB12&lang=en"
				player["captions"] = map[string]any{"playerCaptionsTracklistRenderer": map[string]any{"captionTracks": []any{
					map[string]any{"baseUrl": base + "&kind=asr", "name": map[string]any{"simpleText": "English (auto-generated)"}, "vssId": "a.en", "languageCode": "en", "kind": "asr", "isTranslatable": true},
					map[string]any{"baseUrl": base, "name": map[string]any{"simpleText": "English"}, "vssId": ".en", "languageCode": "en", "isTranslatable": true},
				}}}
			}
			data, _ := json.Marshal(player)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>%s - YouTube</title></head><body><script nonce="x">var ytInitialPlayerResponse = %s;var meta = document.createElement('meta');</script></body></html>`, id, data)
		case "/api/timedtext":
			w.Header().Set("Content-Type", "text/vtt; charset=utf-8")
			if r.URL.Query().Get("kind") == "asr" {
				fmt.Fprint(w, "WEBVTT\nKind: captions\nLanguage: en\n\n00:00:00.000 --> 00:00:02.000\nthe automatic track\n")
				return
			}
			fmt.Fprint(w, "WEBVTT\nKind: captions\nLanguage: en\n\n00:00:00.500 --> 00:00:03.000\nturn with me to first corinthians 13:4\n\n00:00:03.000 --> 00:00:05.000\nand then revelations 21:4\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// poll GETs url until its status (and a transcript's ai_pass_status) is terminal, backing off
// from 100 ms.
func poll(t *testing.T, url, key string) answer {
	t.Helper()
	delay := 100 * time.Millisecond
	deadline := time.Now().Add(60 * time.Second)
	for {
		a := call(t, http.MethodGet, url, key, "")
		busy := func(field string) bool {
			s := a.body[field]
			return s == "pending" || s == "queued" || s == "running"
		}
		// A transcript is done once its AI pass, if any, is done too.
		if a.status != 200 || !busy("status") && !busy("ai_pass_status") {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still %v after 60 s", url, a.body["status"])
		}
		time.Sleep(delay)
		delay = min(2*delay, 2*time.Second)
	}
}

func TestDevAsyncSources(t *testing.T) {
	yt := fakeYouTube(t)
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/notes.md" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Notes\n\nRead [Phillipians 4:13](https://example.org/phil) and `revelations` stays code.\n")
	}))
	t.Cleanup(files.Close)

	dev := startDev(t, filepath.Join(t.TempDir(), "state"), "--youtube-base-url", yt.URL)
	base, key := dev.env["TCS_URL"], dev.env["TCS_API_KEY"]

	t.Run("youtube", func(t *testing.T) {
		a := call(t, http.MethodPost, base+"/api/v1/transcripts", key, `{"source_type":"youtube","url":"https://youtu.be/Cn4sEntP1aY?si=share"}`)
		if a.status != 202 || a.body["status"] != "pending" {
			t.Fatalf("create: %d %s", a.status, a.raw)
		}
		jobs := a.body["jobs"].([]any)
		if jobs[0].(map[string]any)["type"] != "youtube_fetch" {
			t.Fatalf("jobs %v", jobs)
		}
		done := poll(t, base+"/api/v1/transcripts/"+a.body["id"].(string), key)
		content, _ := done.body["content"].(string)
		if done.body["status"] != "completed" || done.body["title"] != "Love Never Fails | Sunday Service" || done.body["source_format"] != "vtt" ||
			!strings.Contains(content, "1 Corinthians 13:4") || !strings.Contains(content, "Revelation 21:4") || strings.Contains(content, "automatic track") {
			t.Fatalf("completed youtube transcript: %s", done.raw)
		}
		job := call(t, http.MethodGet, base+"/api/v1/jobs/"+jobs[0].(map[string]any)["id"].(string), key, "")
		if job.body["status"] != "succeeded" || job.body["progress"] != 100.0 || job.body["finished_at"] == nil {
			t.Fatalf("job: %s", job.raw)
		}
	})

	t.Run("youtube without captions fails", func(t *testing.T) {
		a := call(t, http.MethodPost, base+"/api/v1/transcripts", key, `{"source_type":"youtube","url":"https://www.youtube.com/watch?v=NoCaps00000"}`)
		done := poll(t, base+"/api/v1/transcripts/"+a.body["id"].(string), key)
		e, _ := done.body["error"].(map[string]any)
		if done.body["status"] != "failed" || e["type"] != "unprocessable" || e["message"] == "" {
			t.Fatalf("failed transcript: %s", done.raw)
		}
	})

	t.Run("url with a synchronous wait", func(t *testing.T) {
		a := call(t, http.MethodPost, base+"/api/v1/transcripts?wait=true&timeout=30", key,
			`{"source_type":"url","url":"`+files.URL+`/notes.md","source_format":"markdown"}`)
		if a.status != 200 || a.body["status"] != "completed" ||
			a.body["content"] != "# Notes\n\nRead [Philippians 4:13](https://example.org/phil) and `revelations` stays code.\n" {
			t.Fatalf("wait: %d %s", a.status, a.raw)
		}
	})

	t.Run("upload", func(t *testing.T) {
		g := call(t, http.MethodPost, base+"/api/v1/transcripts/uploads", key, `{"filename":"sermon.txt"}`)
		if g.status != 201 {
			t.Fatalf("grant: %d %s", g.status, g.raw)
		}
		req, _ := http.NewRequest(http.MethodPut, g.body["upload_url"].(string), bytes.NewReader([]byte("read revelations 3:20 tonight")))
		for k, v := range g.body["upload_headers"].(map[string]any) {
			req.Header.Set(k, v.(string))
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode/100 != 2 {
			t.Fatalf("PUT: %d", res.StatusCode)
		}
		id := g.body["transcript_id"].(string)
		c := call(t, http.MethodPost, base+"/api/v1/transcripts", key, `{"source_type":"upload","transcript_id":"`+id+`"}`)
		if c.status != 202 {
			t.Fatalf("confirm: %d %s", c.status, c.raw)
		}
		done := poll(t, base+"/api/v1/transcripts/"+id, key)
		if done.body["status"] != "completed" || done.body["content"] != "read Revelation 3:20 tonight" {
			t.Fatalf("upload transcript: %s", done.raw)
		}
	})
}
