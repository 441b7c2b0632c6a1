package sources

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseYouTubeURL(t *testing.T) {
	const id = "dQw4w9WgXcQ"
	tests := []struct {
		in       string
		want     string // the video id, if no error
		wantType string // the UserError type, if an error
	}{
		// Videos.
		{in: "https://www.youtube.com/watch?v=" + id, want: id},
		{in: "http://www.youtube.com/watch?v=" + id, want: id},
		{in: "https://youtube.com/watch?v=" + id, want: id},
		{in: "https://m.youtube.com/watch?v=" + id, want: id},
		{in: "https://music.youtube.com/watch?v=" + id + "&list=RDAMVM" + id, want: id},
		{in: "https://WWW.YouTube.com/watch?v=" + id, want: id},
		{in: "https://www.youtube.com./watch?v=" + id, want: id},
		{in: "https://www.youtube.com:443/watch?v=" + id, want: id},
		{in: "  https://www.youtube.com/watch?v=" + id + "\n", want: id},
		{in: "www.youtube.com/watch?v=" + id, want: id},
		{in: "youtube.com/watch?v=" + id, want: id},
		{in: "youtu.be/" + id, want: id},
		{in: "https://www.youtube.com/watch?v=" + id + "&t=42s", want: id},
		{in: "https://www.youtube.com/watch?feature=share&v=" + id, want: id},
		{in: "https://www.youtube.com/watch?v=" + id + "&list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG&index=3", want: id},
		{in: "https://www.youtube.com/watch?v=" + id + "#t=1m", want: id},
		{in: "https://youtu.be/" + id, want: id},
		{in: "https://youtu.be/" + id + "?si=Vy3Hq9kZ2xLmN0pQ", want: id},
		{in: "https://youtu.be/" + id + "?t=120&feature=shared", want: id},
		{in: "https://www.youtu.be/" + id, want: id},
		{in: "https://www.youtube.com/shorts/" + id, want: id},
		{in: "https://youtube.com/shorts/" + id + "?feature=share", want: id},
		{in: "https://www.youtube.com/live/" + id + "?si=abc", want: id},
		{in: "https://www.youtube.com/embed/" + id, want: id},
		{in: "https://www.youtube.com/embed/" + id + "?start=30&autoplay=1", want: id},
		{in: "https://www.youtube-nocookie.com/embed/" + id, want: id},
		{in: "https://youtube-nocookie.com/embed/" + id + "?rel=0", want: id},
		{in: "https://www.youtube.com/v/" + id + "?version=3", want: id},
		{in: "https://www.youtube.com/e/" + id, want: id},
		{in: "https://www.youtube.com/watch?v=a-b_c-d_e-f", want: "a-b_c-d_e-f"},

		// Channels and playlists.
		{in: "https://www.youtube.com/@GraceFellowship", wantType: TypeUnprocessable},
		{in: "https://www.youtube.com/@GraceFellowship/videos", wantType: TypeUnprocessable},
		{in: "https://www.youtube.com/@GraceFellowship/live", wantType: TypeUnprocessable},
		{in: "https://www.youtube.com/channel/UCq7fH2kQ3vX9mT1bN4cR8sA", wantType: TypeUnprocessable},
		{in: "https://www.youtube.com/c/GraceFellowship", wantType: TypeUnprocessable},
		{in: "https://www.youtube.com/user/gracefellowship", wantType: TypeUnprocessable},
		{in: "https://m.youtube.com/@GraceFellowship", wantType: TypeUnprocessable},
		{in: "https://www.youtube.com/playlist?list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG", wantType: TypeUnprocessable},
		{in: "https://music.youtube.com/playlist?list=OLAK5uy_kx", wantType: TypeUnprocessable},
		{in: "https://www.youtube.com/watch?list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG", wantType: TypeUnprocessable},
		{in: "https://www.youtube.com/embed/videoseries?list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG", wantType: TypeUnprocessable},

		// Not YouTube, or no video.
		{in: "", wantType: TypeInvalidRequest},
		{in: "   ", wantType: TypeInvalidRequest},
		{in: "javascript:alert(1)", wantType: TypeInvalidRequest},
		{in: "javascript://www.youtube.com/watch?v=" + id, wantType: TypeInvalidRequest},
		{in: "ftp://www.youtube.com/watch?v=" + id, wantType: TypeInvalidRequest},
		{in: "https://vimeo.com/76979871", wantType: TypeInvalidRequest},
		{in: "https://www.youtube.com.evil.example/watch?v=" + id, wantType: TypeInvalidRequest},
		{in: "https://evilyoutube.com/watch?v=" + id, wantType: TypeInvalidRequest},
		{in: "https://notyoutu.be/" + id, wantType: TypeInvalidRequest},
		{in: "https://user:pass@www.youtube.com/watch?v=" + id, wantType: TypeInvalidRequest},
		{in: "https://www.youtube.com:8443/watch?v=" + id, wantType: TypeInvalidRequest},
		{in: "https://www.youtube.com/", wantType: TypeInvalidRequest},
		{in: "https://www.youtube.com/results?search_query=luke+24", wantType: TypeInvalidRequest},
		{in: "https://www.youtube.com/watch", wantType: TypeInvalidRequest},
		{in: "https://youtu.be/", wantType: TypeInvalidRequest},
		{in: "https://www.youtube.com/shorts/", wantType: TypeInvalidRequest},
		{in: "/watch?v=" + id, wantType: TypeInvalidRequest},
		{in: "not a url at all", wantType: TypeInvalidRequest},
		{in: "https://www.youtube.com/watch?v=%zz", wantType: TypeInvalidRequest},

		// Malformed ids.
		{in: "https://www.youtube.com/watch?v=dQw4w9WgXc", wantType: TypeInvalidRequest},   // 10 characters
		{in: "https://www.youtube.com/watch?v=dQw4w9WgXcQQ", wantType: TypeInvalidRequest}, // 12 characters
		{in: "https://www.youtube.com/watch?v=dQw4w9WgX.Q", wantType: TypeInvalidRequest},
		{in: "https://www.youtube.com/watch?v=dQw4w9WgX%20Q", wantType: TypeInvalidRequest},
		{in: "https://youtu.be/dQw4w9WgX<Q", wantType: TypeInvalidRequest},
		{in: "https://www.youtube.com/shorts/abc", wantType: TypeInvalidRequest},
		{in: "https://www.youtube.com/embed/" + id + "x", wantType: TypeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseYouTubeURL(tt.in)
			if tt.wantType == "" {
				if err != nil || got != tt.want {
					t.Fatalf("ParseYouTubeURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
				}
				return
			}
			var ue *UserError
			if !errors.As(err, &ue) || ue.Type != tt.wantType {
				t.Fatalf("ParseYouTubeURL(%q) = %q, %v; want a UserError of type %q", tt.in, got, err, tt.wantType)
			}
			if got != "" {
				t.Errorf("ParseYouTubeURL(%q) returned id %q with an error", tt.in, got)
			}
		})
	}
}

// fakeYouTube serves the recorded-shape responses of testdata/youtube.
type fakeYouTube struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	files map[string]string // testdata watch pages by video id
	pages map[string]string // extra watch pages by video id
	got   []string          // the timedtext tracks fetched, as "lang" or "lang/asr"
	posts int               // requests to the player endpoint
}

func newFakeYouTube(t *testing.T) *fakeYouTube {
	f := &fakeYouTube{t: t, pages: map[string]string{}, files: map[string]string{
		"Xq3bS7nWk0A": "watch_captions.html",
		"Rt5mN2pQw8E": "watch_asr_only.html",
		"Nc9kLm2Vb4Q": "watch_no_captions.html",
		"Ux7hGf3Jd0M": "watch_unplayable.html",
		"Pv8sQw1Zt6I": "watch_private.html",
		"Cn4sEntP1aY": "watch_no_player_response.html",
	}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /watch", f.watch)
	mux.HandleFunc("POST /youtubei/v1/player", f.player)
	mux.HandleFunc("GET /api/timedtext", f.timedtext)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// serve writes a testdata file with YouTube's address replaced by the test
// server's.
func (f *fakeYouTube) serve(w http.ResponseWriter, name, contentType string) {
	b, err := os.ReadFile(filepath.Join("testdata", "youtube", name))
	if err != nil {
		http.NotFound(w, nil)
		return
	}
	b = bytes.ReplaceAll(b, []byte("https://www.youtube.com"), []byte(f.srv.URL))
	w.Header().Set("Content-Type", contentType)
	w.Write(b)
}

func (f *fakeYouTube) watch(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("v")
	f.mu.Lock()
	page, ok := f.pages[id]
	f.mu.Unlock()
	if ok {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(strings.ReplaceAll(page, "https://www.youtube.com", f.srv.URL)))
		return
	}
	name, ok := f.files[id]
	if !ok {
		http.NotFound(w, r)
		return
	}
	f.serve(w, name, "text/html; charset=utf-8")
}

func (f *fakeYouTube) player(w http.ResponseWriter, r *http.Request) {
	var req struct {
		VideoID string `json:"videoId"`
		Context struct {
			Client struct {
				ClientName string `json:"clientName"`
			} `json:"client"`
		} `json:"context"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Context.Client.ClientName == "" {
		http.Error(w, `{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.posts++
	f.mu.Unlock()
	f.serve(w, "player_"+req.VideoID+".json", "application/json; charset=UTF-8")
}

func (f *fakeYouTube) timedtext(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	track := q.Get("lang")
	if q.Get("kind") == "asr" {
		track += "/asr"
	}
	f.mu.Lock()
	f.got = append(f.got, track)
	f.mu.Unlock()
	if q.Get("fmt") != "vtt" {
		// YouTube's default format is its XML ("srv3").
		w.Header().Set("Content-Type", "text/xml; charset=UTF-8")
		w.Write([]byte(`<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body><p t="0" d="4200">Turn with me</p></body></timedtext>`))
		return
	}
	name := "timedtext_" + q.Get("v") + "_" + strings.ReplaceAll(track, "/", "_") + ".vtt"
	f.serve(w, name, "text/vtt; charset=UTF-8")
}

func (f *fakeYouTube) youTube() *YouTube {
	return &YouTube{BaseURL: f.srv.URL, Client: NewClient(testClientOptions())}
}

func testClientOptions() ClientOptions {
	return ClientOptions{
		AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Timeout:    5 * time.Second,
		Resolver:   noDNS(),
	}
}

// noDNS returns a resolver that sends no query anywhere, so that a test that
// names a host by mistake cannot reach the network. Names in /etc/hosts
// still resolve.
func noDNS() *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			return nil, errors.New("no DNS in tests")
		},
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestCaptions(t *testing.T) {
	f := newFakeYouTube(t)
	const emmaus = "The Road to Emmaus — Luke 24:13-35 | Pastor David Okafor"
	tests := []struct {
		name      string
		id, lang  string
		wantTrack string // the track fetched
		wantTitle string
		wantText  string // in the VTT
	}{
		{"manual en over asr en", "Xq3bS7nWk0A", "en", "en", emmaus, "Language: en\n"},
		{"default language is en", "Xq3bS7nWk0A", "", "en", emmaus, "Luke chapter 24"},
		{"exact variant", "Xq3bS7nWk0A", "en-GB", "en-GB", emmaus, "Language: en-GB"},
		{"variant falls back to base language", "Xq3bS7nWk0A", "en-US", "en", emmaus, "Language: en\n"},
		{"underscore and case", "Xq3bS7nWk0A", "EN_gb", "en-GB", emmaus, "Language: en-GB"},
		{"other manual language", "Xq3bS7nWk0A", "es", "es", emmaus, "Lucas capítulo 24"},
		{"no track in lang: manual in the spoken language", "Xq3bS7nWk0A", "fr", "en", emmaus, "Language: en\n"},
		{"asr only", "Rt5mN2pQw8E", "en", "en/asr", "Sermon: Paul in Thessalonica (Acts 17)", "test aloe nica"},
		{"asr only, variant", "Rt5mN2pQw8E", "en-US", "en/asr", "Sermon: Paul in Thessalonica (Acts 17)", "paul"},
		{"asr only, no track in lang", "Rt5mN2pQw8E", "de", "en/asr", "Sermon: Paul in Thessalonica (Acts 17)", "paul"},
		{"player endpoint when the page has no player response", "Cn4sEntP1aY", "en", "en", "Jonah and Nineveh — Jonah 3", "Nineveh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.mu.Lock()
			f.got = nil
			f.mu.Unlock()
			vtt, title, err := f.youTube().Captions(testContext(t), tt.id, tt.lang)
			if err != nil {
				t.Fatalf("Captions: %v", err)
			}
			f.mu.Lock()
			got := f.got
			f.mu.Unlock()
			if len(got) != 1 || got[0] != tt.wantTrack {
				t.Errorf("fetched tracks %q, want [%q]", got, tt.wantTrack)
			}
			if title != tt.wantTitle {
				t.Errorf("title = %q, want %q", title, tt.wantTitle)
			}
			if !bytes.HasPrefix(vtt, []byte("WEBVTT")) || !bytes.Contains(vtt, []byte(tt.wantText)) {
				t.Errorf("VTT = %q, want WEBVTT with %q", vtt, tt.wantText)
			}
		})
	}
	if f.posts != 1 {
		t.Errorf("player endpoint asked %d times, want 1 (only for the page without a player response)", f.posts)
	}
}

func TestCaptionsErrors(t *testing.T) {
	f := newFakeYouTube(t)
	f.pages["Bt0kChk3ckA"] = `<html><script>var ytInitialPlayerResponse = {"playabilityStatus":{"status":"LOGIN_REQUIRED","reason":"Sign in to confirm you’re not a bot","messages":["This helps protect our community. Learn more"]}};</script></html>`
	f.pages["NoJs0nAtA11"] = `<html><body>Before you continue to YouTube</body></html>`
	f.pages["Xml0nlyTr4k"] = strings.ReplaceAll(mustRead(t, "watch_asr_only.html"), "Rt5mN2pQw8E\\u0026", "Xml0nlyTr4k\\u0026")
	tests := []struct {
		name     string
		id       string
		wantType string // "" for a transient error
	}{
		{"no captions", "Nc9kLm2Vb4Q", TypeUnprocessable},
		{"unplayable", "Ux7hGf3Jd0M", TypeUnprocessable},
		{"private", "Pv8sQw1Zt6I", TypeUnprocessable},
		{"does not exist", "Nf0und00000", TypeUnprocessable},
		{"malformed id", "short", TypeInvalidRequest},
		{"malformed id characters", "dQw4w9WgX.Q", TypeInvalidRequest},
		{"bot check is transient", "Bt0kChk3ckA", ""},
		{"no player response anywhere is transient", "NoJs0nAtA11", ""},
		{"caption track missing is transient", "Xml0nlyTr4k", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vtt, _, err := f.youTube().Captions(testContext(t), tt.id, "en")
			if err == nil {
				t.Fatalf("Captions = %q, nil; want an error", vtt)
			}
			t.Logf("error: %v", err)
			var ue *UserError
			isUser := errors.As(err, &ue)
			switch {
			case tt.wantType == "" && isUser:
				t.Fatalf("Captions error = %v (UserError %q); want a transient error", err, ue.Type)
			case tt.wantType != "" && (!isUser || ue.Type != tt.wantType):
				t.Fatalf("Captions error = %v; want a UserError of type %q", err, tt.wantType)
			}
		})
	}
}

func TestCaptionsRefusesTrackOffYouTube(t *testing.T) {
	f := newFakeYouTube(t)
	page := mustRead(t, "watch_asr_only.html")
	f.pages["Off51teTrak"] = strings.ReplaceAll(page, `"baseUrl":"https://www.youtube.com/api/timedtext`, `"baseUrl":"https://attacker.example/api/timedtext`)
	_, _, err := f.youTube().Captions(testContext(t), "Off51teTrak", "en")
	if err == nil || !strings.Contains(err.Error(), "not on YouTube") {
		t.Fatalf("Captions error = %v, want the track refused as not on YouTube", err)
	}
}

func TestCaptionsRefusedAddress(t *testing.T) {
	f := newFakeYouTube(t)
	y := &YouTube{BaseURL: f.srv.URL, Client: NewClient(ClientOptions{Timeout: 5 * time.Second, Resolver: noDNS()})} // no loopback allowed
	_, _, err := y.Captions(testContext(t), "Xq3bS7nWk0A", "en")
	var ue *UserError
	if !errors.As(err, &ue) || ue.Type != TypeUnprocessable {
		t.Fatalf("Captions error = %v, want a refused address", err)
	}
}

func TestChooseTrack(t *testing.T) {
	tr := func(lang string, asr bool) captionTrack {
		c := captionTrack{LanguageCode: lang, BaseURL: "/api/timedtext"}
		if asr {
			c.Kind = "asr"
		}
		return c
	}
	tests := []struct {
		name   string
		tracks []captionTrack
		lang   string
		want   int
	}{
		{"manual over asr", []captionTrack{tr("en", true), tr("en", false)}, "en", 1},
		{"manual variant over asr exact", []captionTrack{tr("en", true), tr("en-GB", false)}, "en", 1},
		{"exact over base", []captionTrack{tr("en", false), tr("en-US", false)}, "en-US", 1},
		{"base over sibling", []captionTrack{tr("en-GB", false), tr("en", false)}, "en-US", 1},
		{"asr in lang over manual elsewhere", []captionTrack{tr("de", false), tr("en", true)}, "en", 1},
		{"manual in spoken language", []captionTrack{tr("fr", false), tr("de", true), tr("de-DE", false)}, "en", 2},
		{"asr over other manual languages", []captionTrack{tr("fr", false), tr("de", true)}, "en", 1},
		{"first manual when nothing matches", []captionTrack{tr("fr", false), tr("es", false)}, "en", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chooseTrack(tt.tracks, tt.lang); got != tt.want {
				t.Errorf("chooseTrack = %d, want %d", got, tt.want)
			}
		})
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "youtube", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
