package sources

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func FuzzParseYouTubeURL(f *testing.F) {
	for _, s := range []string{
		"https://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://youtu.be/dQw4w9WgXcQ?t=42",
		"https://m.youtube.com/watch?feature=share&v=dQw4w9WgXcQ", "https://www.youtube.com/shorts/dQw4w9WgXcQ",
		"https://www.youtube.com/playlist?list=PL123", "https://www.youtube.com/@channel", "youtube.com/watch?v=x",
		"https://www.youtube.com/embed/dQw4w9WgXcQ", "http://[::1]/watch?v=dQw4w9WgXcQ", "%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		id, err := ParseYouTubeURL(raw)
		if err != nil {
			if len(err.Error()) > 1000 {
				t.Fatalf("the error repeats the input: %d bytes", len(err.Error()))
			}
			return
		}
		if !validVideoID(id) {
			t.Fatalf("ParseYouTubeURL(%q) = %q, not a video id", raw, id)
		}
	})
}

func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com/a.txt", "http://127.0.0.1/a", "https://[::1]:8443/x", "ftp://example.com/",
		"https://user:pass@example.com/", "https://10.0.0.1/", "https://0x7f000001/", "//example.com", "https://exa mple.com",
	} {
		f.Add(s)
	}
	allow := []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	f.Fuzz(func(t *testing.T, raw string) {
		if err := CheckURL(raw, allow); err == nil {
			u, perr := url.Parse(raw)
			if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
				t.Fatalf("CheckURL accepted %q", raw)
			}
		}
	})
}

func FuzzExtractPlayerResponse(f *testing.F) {
	f.Add([]byte(`<script>var ytInitialPlayerResponse = {"videoDetails":{"title":"Sermon"},"playabilityStatus":{"status":"OK"}};</script>`))
	f.Add([]byte(`window["ytInitialPlayerResponse"] = null; ytInitialPlayerResponse = {"captions":{}}`))
	f.Add([]byte(strings.Repeat(`ytInitialPlayerResponse = {"a":`, 20)))
	f.Fuzz(func(t *testing.T, page []byte) {
		pr, ok := extractPlayerResponse(page)
		if ok != (pr != nil) {
			t.Fatalf("extractPlayerResponse = %v, %t", pr, ok)
		}
		if ok {
			_ = pr.playable()
			_ = chooseTrack(pr.Captions.PlayerCaptionsTracklistRenderer.CaptionTracks, "en")
		}
	})
}

func FuzzTrackURL(f *testing.F) {
	f.Add("/api/timedtext?v=dQw4w9WgXcQ&lang=en")
	f.Add("https://www.youtube.com/api/timedtext?v=x&fmt=srv3")
	f.Add("https://evil.example/api/timedtext")
	f.Add("javascript:alert(1)")
	base, _ := url.Parse("https://www.youtube.com/watch?v=dQw4w9WgXcQ")
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := trackURL(base, raw)
		if err != nil {
			return
		}
		host := strings.ToLower(u.Hostname())
		if host != "www.youtube.com" && host != "youtube.com" && !strings.HasSuffix(host, ".youtube.com") {
			t.Fatalf("trackURL(%q) = %s, off YouTube", raw, u)
		}
		if u.Query().Get("fmt") != "vtt" {
			t.Fatalf("trackURL(%q) = %s, not asking for vtt", raw, u)
		}
	})
}
