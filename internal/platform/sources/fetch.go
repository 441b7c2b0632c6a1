package sources

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// userAgent is the User-Agent of url source requests.
const userAgent = "tcs/1 (Transcript Cleaning Service)"

// sniffLen is how many leading bytes of a body are sniffed.
const sniffLen = 512

// Fetch GETs url with client and returns the body and the response's
// Content-Type (or, if the response has none, the type http.DetectContentType
// sniffs).
//
// The body is capped at max bytes: a Content-Length above max is refused
// before the body is read, and a body that grows past max while streaming is
// refused as soon as it does. A body over the cap, a response status other
// than 2xx, and audio or video (by the Content-Type, or by sniffing the first
// bytes) fail with a *UserError of type "unprocessable"; so does a request
// the client refuses (see [NewClient]). A URL that cannot be parsed fails with
// a *UserError of type "invalid_request"; so does a host that does not exist (its
// name does not resolve), named alone. Other network errors are transient
// *FetchErrors, whose PublicMessage names no address of the service.
func Fetch(ctx context.Context, client *http.Client, url string, max int64) (body []byte, contentType string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", invalidRequest("the URL is not valid")
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/plain, text/vtt, application/x-subrip, text/html;q=0.8, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("sources: fetching the url source: %w", classify(url, err))
	}
	defer resp.Body.Close()

	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		// The server is busy or broken for now: a later attempt may succeed.
		msg := "the URL answered " + statusText(resp)
		return nil, "", &FetchError{Host: req.URL.Hostname(), Err: errors.New(msg), public: msg}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, "", unprocessable("the URL answered %s", statusText(resp))
	}
	if resp.ContentLength > max {
		return nil, "", tooLarge(max)
	}
	contentType = resp.Header.Get("Content-Type")
	if kind := avMediaType(contentType); kind != "" {
		return nil, "", unprocessable("the URL serves %s (%s), not a transcript; submit the video's YouTube link or a transcript file", kind, contentType)
	}

	r := io.LimitReader(resp.Body, max+1)
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength))
	}
	if _, err := io.CopyN(&buf, r, sniffLen); err != nil && !errors.Is(err, io.EOF) {
		return nil, "", fmt.Errorf("sources: reading the url source: %w", classify(url, err))
	}
	head := buf.Bytes()
	if kind := sniffAV(head); kind != "" {
		return nil, "", unprocessable("the URL serves %s, not a transcript; submit the video's YouTube link or a transcript file", kind)
	}
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, "", fmt.Errorf("sources: reading the url source: %w", classify(url, err))
	}
	if int64(buf.Len()) > max {
		return nil, "", tooLarge(max)
	}
	if contentType == "" {
		contentType = http.DetectContentType(buf.Bytes())
	}
	return buf.Bytes(), contentType, nil
}

func statusText(resp *http.Response) string {
	if t := http.StatusText(resp.StatusCode); t != "" {
		return fmt.Sprintf("%d %s", resp.StatusCode, t)
	}
	return fmt.Sprintf("status %d", resp.StatusCode)
}

func tooLarge(max int64) *UserError {
	return unprocessable("the file is larger than %s", formatBytes(max))
}

// formatBytes formats n in the units the API documents limits in (1 MB is
// 1,000,000 bytes).
func formatBytes(n int64) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%d MB", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%d kB", n/1000)
	}
	return fmt.Sprintf("%d bytes", n)
}

// avMediaType returns a description if the Content-Type contentType is audio
// or video, and "" otherwise.
func avMediaType(contentType string) string {
	if contentType == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	}
	switch {
	case strings.HasPrefix(mt, "audio/"):
		return "audio"
	case strings.HasPrefix(mt, "video/"):
		return "video"
	}
	switch mt {
	case "application/ogg", "application/mp4", "application/vnd.rn-realmedia",
		"application/x-mpegurl", "application/vnd.apple.mpegurl", "application/dash+xml":
		return "audio or video"
	}
	return ""
}

// sniffAV returns a description if head, the first bytes of a body, is
// audio or video, and "" otherwise. It uses http.DetectContentType and the
// magic numbers of common audio and video containers.
func sniffAV(head []byte) string {
	at := func(off int, magic string) bool {
		return len(head) >= off+len(magic) && string(head[off:off+len(magic)]) == magic
	}
	switch {
	case at(0, "ID3"):
		return "MP3 audio"
	case len(head) >= 2 && head[0] == 0xff && strings.IndexByte("\xfb\xfa\xf3\xf2\xe3\xe2", head[1]) >= 0:
		return "MP3 audio" // an MPEG audio layer III frame header
	case len(head) >= 2 && head[0] == 0xff && (head[1] == 0xf1 || head[1] == 0xf9):
		return "AAC audio" // an ADTS frame header
	case at(4, "ftyp"):
		if at(8, "M4A") || at(8, "M4B") || at(8, "M4P") {
			return "M4A audio"
		}
		return "MP4 video"
	case len(head) >= 8 && head[0] == 0 && (at(4, "moov") || at(4, "mdat")):
		return "QuickTime video"
	case at(0, "OggS"):
		return "Ogg audio or video"
	case at(0, "RIFF") && at(8, "WAVE"):
		return "WAV audio"
	case at(0, "RIFF") && at(8, "AVI "):
		return "AVI video"
	case at(0, "RIFF") && !at(8, "WEBP"):
		return "RIFF audio or video"
	case at(0, "FORM") && (at(8, "AIFF") || at(8, "AIFC")):
		return "AIFF audio"
	case at(0, "\x1a\x45\xdf\xa3"):
		return "WebM or Matroska video"
	case at(0, "fLaC"):
		return "FLAC audio"
	case at(0, "#!AMR"):
		return "AMR audio"
	case at(0, "FLV\x01"):
		return "Flash video"
	case at(0, "\x30\x26\xb2\x75\x8e\x66\xcf\x11"):
		return "Windows Media audio or video"
	case at(0, "\x00\x00\x01\xba"), at(0, "\x00\x00\x01\xb3"):
		return "MPEG video"
	case len(head) > 376 && head[0] == 0x47 && head[188] == 0x47 && head[376] == 0x47:
		return "MPEG transport stream video"
	case at(0, "#EXTM3U"):
		return "an HLS stream playlist"
	}
	return avMediaType(http.DetectContentType(head))
}
