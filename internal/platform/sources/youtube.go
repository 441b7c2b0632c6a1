package sources

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// DefaultYouTubeBaseURL is the YouTube.BaseURL used when it is empty.
const DefaultYouTubeBaseURL = "https://www.youtube.com"

// Caps on what is read from YouTube.
const (
	maxWatchPage   = 10 << 20 // a watch page is typically 1–2 MB
	maxCaptionBody = 20 << 20 // the captions of a long video
)

// browserUserAgent is sent to YouTube, which serves a reduced page to
// unknown agents.
const browserUserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"

// ParseYouTubeURL returns the id of the video a YouTube link points to.
//
// It accepts the forms people paste: youtube.com/watch?v=ID (also with
// &list=…, which names a video in a playlist), youtu.be/ID, /shorts/ID,
// /live/ID, /embed/ID, /v/ID and /e/ID; on the hosts youtube.com,
// www.youtube.com, m.youtube.com, music.youtube.com, youtube-nocookie.com and
// www.youtube-nocookie.com; with or without the scheme (http or https) and
// with extra parameters such as t=, si= and feature=.
//
// A link to a channel (/@handle, /channel/, /c/, /user/) or a playlist
// without a video fails with a *UserError of type "unprocessable"; anything
// that is not a YouTube link, or has a malformed video id, fails with a
// *UserError of type "invalid_request".
func ParseYouTubeURL(raw string) (videoID string, err error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", invalidRequest("the YouTube link is empty")
	}
	if len(s) > 4096 {
		return "", invalidRequest("the YouTube link is too long")
	}
	u, err := url.Parse(s)
	if err == nil && u.Scheme == "" && !strings.HasPrefix(s, "/") {
		u, err = url.Parse("https://" + s) // pasted without the scheme
	}
	if err != nil {
		return "", invalidRequest("the link is not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", invalidRequest("the link is not a YouTube link")
	}
	if u.User != nil {
		return "", invalidRequest("the link is not a YouTube link")
	}
	if p := u.Port(); p != "" && p != "80" && p != "443" {
		return "", invalidRequest("the link is not a YouTube link")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	q := u.Query()

	switch host {
	case "youtu.be", "www.youtu.be":
		if segs[0] == "" {
			return "", invalidRequest("the YouTube link has no video id")
		}
		return checkVideoID(segs[0])
	case "youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com",
		"youtube-nocookie.com", "www.youtube-nocookie.com":
	default:
		return "", invalidRequest("the link is not a YouTube link")
	}

	switch first := segs[0]; {
	case first == "watch":
		v := q.Get("v")
		if v == "" {
			if q.Get("list") != "" {
				return "", playlistError()
			}
			return "", invalidRequest("the YouTube link has no video id")
		}
		return checkVideoID(v)
	case first == "shorts" || first == "live" || first == "embed" || first == "v" || first == "e":
		if len(segs) < 2 || segs[1] == "" {
			return "", invalidRequest("the YouTube link has no video id")
		}
		if first == "embed" && segs[1] == "videoseries" {
			return "", playlistError()
		}
		return checkVideoID(segs[1])
	case first == "playlist":
		return "", playlistError()
	case first == "channel" || first == "c" || first == "user" || strings.HasPrefix(first, "@"):
		return "", unprocessable("the link is to a YouTube channel, not a video; submit the link of one video")
	}
	return "", invalidRequest("the link is not a link to a YouTube video")
}

func playlistError() *UserError {
	return unprocessable("the link is to a YouTube playlist, not a video; submit the link of one video")
}

func checkVideoID(id string) (string, error) {
	if !validVideoID(id) {
		return "", invalidRequest("the YouTube video id %q is malformed", truncate(id, 40))
	}
	return id, nil
}

// validVideoID reports whether id has the form of a YouTube video id: 11
// characters of the URL-safe base64 alphabet.
func validVideoID(id string) bool {
	if len(id) != 11 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// YouTube fetches the captions of YouTube videos.
type YouTube struct {
	// BaseURL is where YouTube is: DefaultYouTubeBaseURL in production
	// (used when empty), a loopback test server in tests.
	BaseURL string
	// Client is the SSRF-safe client of NewClient. Nil means a client of
	// NewClient(ClientOptions{}), made for each call.
	Client *http.Client
}

// playerResponse is the part of YouTube's player response
// (ytInitialPlayerResponse) Captions uses.
type playerResponse struct {
	PlayabilityStatus struct {
		Status   string   `json:"status"`
		Reason   string   `json:"reason"`
		Messages []string `json:"messages"`
	} `json:"playabilityStatus"`
	VideoDetails struct {
		VideoID string `json:"videoId"`
		Title   string `json:"title"`
	} `json:"videoDetails"`
	Captions struct {
		PlayerCaptionsTracklistRenderer struct {
			CaptionTracks []captionTrack `json:"captionTracks"`
		} `json:"playerCaptionsTracklistRenderer"`
	} `json:"captions"`
}

// captionTrack is one entry of captionTracks.
type captionTrack struct {
	BaseURL      string `json:"baseUrl"`
	LanguageCode string `json:"languageCode"`
	Kind         string `json:"kind"` // "asr" for auto-generated
	VssID        string `json:"vssId"`
	Name         struct {
		SimpleText string `json:"simpleText"`
		Runs       []struct {
			Text string `json:"text"`
		} `json:"runs"`
	} `json:"name"`
}

func (t captionTrack) auto() bool { return t.Kind == "asr" }

// Captions fetches the captions of the video videoID in WebVTT and the
// video's title.
//
// It reads the player response (ytInitialPlayerResponse) from the video's
// watch page, or, if the page has none (a consent page, say), asks the
// player endpoint (/youtubei/v1/player) for it; it takes the caption tracks
// from captions.playerCaptionsTracklistRenderer.captionTracks and fetches the
// chosen track's baseUrl with fmt=vtt.
//
// The track is chosen in this order, lang being "en" if empty:
//
//  1. a manual track in lang: the exact language ("en-US" for "en-US") first,
//     then the base language ("en" for "en-US"), then another variant of it
//     ("en-GB" for "en" or "en-US");
//  2. an auto-generated ("asr") track in lang, matched the same way;
//  3. a manual track in the spoken language of the video, which is the
//     language of its auto-generated track;
//  4. the auto-generated track;
//  5. the first manual track.
//
// Captions never asks YouTube to machine-translate a track: a translation
// would garble the names tcs corrects.
//
// A malformed video id fails with a *UserError of type "invalid_request"; a
// video that does not exist, is private, removed or otherwise unplayable, or
// has no captions, with a *UserError of type "unprocessable". Other errors,
// including YouTube asking to prove that the client is not a bot, are
// transient.
func (y *YouTube) Captions(ctx context.Context, videoID, lang string) (vtt []byte, title string, err error) {
	if !validVideoID(videoID) {
		return nil, "", invalidRequest("the YouTube video id %q is malformed", truncate(videoID, 40))
	}
	lang = strings.TrimSpace(lang)
	if lang == "" {
		lang = "en"
	}
	base, err := y.baseURL()
	if err != nil {
		return nil, "", err
	}
	client := y.Client
	if client == nil {
		client = NewClient(ClientOptions{})
	}

	pr, err := y.playerResponse(ctx, client, base, videoID)
	if err != nil {
		return nil, "", err
	}
	if err := pr.playable(); err != nil {
		return nil, "", err
	}
	var tracks []captionTrack
	for _, t := range pr.Captions.PlayerCaptionsTracklistRenderer.CaptionTracks {
		if t.BaseURL != "" {
			tracks = append(tracks, t)
		}
	}
	if len(tracks) == 0 {
		return nil, "", unprocessable("the YouTube video has no captions")
	}
	track := tracks[chooseTrack(tracks, lang)]

	u, err := trackURL(base, track.BaseURL)
	if err != nil {
		return nil, "", err
	}
	req, err := y.newRequest(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", "text/vtt, */*;q=0.5")
	body, err := doYouTube(client, req, maxCaptionBody)
	if err != nil {
		return nil, "", fmt.Errorf("sources: fetching the captions of %s: %w", videoID, err)
	}
	if !bytes.HasPrefix(bytes.TrimPrefix(body, []byte("\ufeff")), []byte("WEBVTT")) {
		return nil, "", fmt.Errorf("sources: the caption track of %s (%s) is not WebVTT (%d bytes)", videoID, track.LanguageCode, len(body))
	}
	return body, pr.VideoDetails.Title, nil
}

func (y *YouTube) baseURL() (*url.URL, error) {
	raw := y.BaseURL
	if raw == "" {
		raw = DefaultYouTubeBaseURL
	}
	u, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("sources: bad YouTube base URL %q", raw)
	}
	return u, nil
}

func (y *YouTube) newRequest(ctx context.Context, method, u string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, fmt.Errorf("sources: %w", err)
	}
	req.Header.Set("User-Agent", browserUserAgent)
	req.Header.Set("Accept-Language", "en-US,en;q=0.9")
	req.Header.Set("Cookie", "SOCS=CAI") // declines the EU consent interstitial
	return req, nil
}

// playerResponse reads the player response of videoID from its watch page,
// or from the player endpoint if the page holds none.
func (y *YouTube) playerResponse(ctx context.Context, client *http.Client, base *url.URL, videoID string) (*playerResponse, error) {
	watch := *base
	watch.Path += "/watch"
	watch.RawQuery = url.Values{"v": {videoID}, "hl": {"en"}, "bpctr": {"9999999999"}, "has_verified": {"1"}}.Encode()
	req, err := y.newRequest(ctx, http.MethodGet, watch.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	page, err := doYouTube(client, req, maxWatchPage)
	if err != nil {
		var se *statusError
		if errors.As(err, &se) && (se.code == http.StatusNotFound || se.code == http.StatusGone) {
			return nil, unprocessable("the YouTube video %s does not exist", videoID)
		}
		return nil, fmt.Errorf("sources: fetching the watch page of %s: %w", videoID, err)
	}
	if pr, ok := extractPlayerResponse(page); ok {
		return pr, nil
	}

	// No player response in the page: ask the player endpoint.
	player := *base
	player.Path += "/youtubei/v1/player"
	player.RawQuery = "prettyPrint=false"
	payload, err := json.Marshal(map[string]any{
		"videoId": videoID,
		"context": map[string]any{"client": map[string]any{
			"clientName": "WEB", "clientVersion": "2.20250101.00.00", "hl": "en",
		}},
	})
	if err != nil {
		return nil, fmt.Errorf("sources: %w", err)
	}
	req, err = y.newRequest(ctx, http.MethodPost, player.String(), bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	body, err := doYouTube(client, req, maxWatchPage)
	if err != nil {
		return nil, fmt.Errorf("sources: asking the YouTube player endpoint about %s: %w", videoID, err)
	}
	var pr playerResponse
	if err := json.Unmarshal(body, &pr); err != nil {
		return nil, fmt.Errorf("sources: the YouTube player response of %s is not JSON: %w", videoID, err)
	}
	return &pr, nil
}

// extractPlayerResponse finds `ytInitialPlayerResponse = {…}` in a watch page
// and decodes the object. Mentions not followed by an object (such as
// `window["ytInitialPlayerResponse"] = null`) are skipped.
func extractPlayerResponse(page []byte) (*playerResponse, bool) {
	marker := []byte("ytInitialPlayerResponse")
	// A page names the object once or twice; each try decodes up to the rest of the page, so
	// a page of many mentions would take time quadratic in its size.
	for tries := 0; tries < maxPlayerResponseTries; tries++ {
		i := bytes.Index(page, marker)
		if i < 0 {
			return nil, false
		}
		page = page[i+len(marker):]
		rest := bytes.TrimPrefix(page, []byte(`"]`))
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if len(rest) == 0 || rest[0] != '=' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], " \t\r\n")
		if len(rest) == 0 || rest[0] != '{' {
			continue
		}
		var pr playerResponse
		if err := json.NewDecoder(bytes.NewReader(rest)).Decode(&pr); err == nil {
			return &pr, true
		}
	}
	return nil, false
}

// maxPlayerResponseTries is the most mentions of ytInitialPlayerResponse a watch page is
// searched at.
const maxPlayerResponseTries = 16

// playable returns nil if the player response is of a playable video, and
// otherwise why not.
func (pr *playerResponse) playable() error {
	ps := pr.PlayabilityStatus
	reason := ps.Reason
	if reason == "" && len(ps.Messages) > 0 {
		reason = ps.Messages[0]
	}
	switch ps.Status {
	case "OK":
		return nil
	case "":
		if pr.VideoDetails.VideoID != "" {
			return nil
		}
		return errors.New("sources: the YouTube player response has neither a playability status nor video details")
	case "LOGIN_REQUIRED":
		if strings.Contains(strings.ToLower(reason), "bot") {
			return fmt.Errorf("sources: YouTube refused to serve the video: %s", reason)
		}
		return unprocessable("the YouTube video is private or needs signing in (YouTube says: %s)", reason)
	}
	if reason == "" {
		reason = ps.Status
	}
	return unprocessable("the YouTube video cannot be played (YouTube says: %s)", reason)
}

// chooseTrack returns the index in tracks of the track to fetch for lang; see
// YouTube.Captions for the order.
func chooseTrack(tracks []captionTrack, lang string) int {
	best := func(auto bool, want string) int {
		at, score := -1, 0
		for i, t := range tracks {
			if t.auto() != auto {
				continue
			}
			if s := langScore(t.LanguageCode, want); s > score {
				at, score = i, s
			}
		}
		return at
	}
	if i := best(false, lang); i >= 0 {
		return i
	}
	if i := best(true, lang); i >= 0 {
		return i
	}
	for i, t := range tracks {
		if t.auto() {
			if j := best(false, t.LanguageCode); j >= 0 {
				return j
			}
			return i
		}
	}
	return 0
}

// langScore rates how well the language tag have matches want: 3 for the
// same tag, 2 if have is want's base language, 1 for the same base language,
// 0 for none.
func langScore(have, want string) int {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-") }
	base := func(s string) string { b, _, _ := strings.Cut(s, "-"); return b }
	h, w := norm(have), norm(want)
	switch {
	case h == "" || w == "":
		return 0
	case h == w:
		return 3
	case h == base(w):
		return 2
	case base(h) == base(w):
		return 1
	}
	return 0
}

// trackURL resolves a track's baseUrl against base, checks that it points to
// YouTube, and asks for WebVTT.
func trackURL(base *url.URL, raw string) (*url.URL, error) {
	ref, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("sources: bad caption track URL: %w", err)
	}
	u := base.ResolveReference(ref)
	host := strings.ToLower(u.Hostname())
	if (u.Scheme != "https" && u.Scheme != "http") ||
		(u.Host != base.Host && host != "youtube.com" && !strings.HasSuffix(host, ".youtube.com")) {
		return nil, fmt.Errorf("sources: the caption track URL %q is not on YouTube", truncate(raw, 100))
	}
	q := u.Query()
	q.Set("fmt", "vtt")
	u.RawQuery = q.Encode()
	return u, nil
}

// statusError is a response status other than 2xx from YouTube.
type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("YouTube answered status %d", e.code) }

// PublicMessage says the same: it names no address.
func (e *statusError) PublicMessage() string { return e.Error() }

// doYouTube sends req and returns the body of a 2xx response, capped at max
// bytes. A status other than 2xx is a *statusError.
func doYouTube(client *http.Client, req *http.Request, max int64) ([]byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		// YouTube not answering is never the client's problem, whatever the cause.
		return nil, &FetchError{Host: req.URL.Hostname(), Err: err, public: "YouTube could not be reached"}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &statusError{resp.StatusCode}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, &FetchError{Host: req.URL.Hostname(), Err: err, public: "the answer of YouTube was cut short"}
	}
	if int64(len(body)) > max {
		return nil, fmt.Errorf("YouTube's response is larger than %d bytes", max)
	}
	return body, nil
}
