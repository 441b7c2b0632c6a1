package sources

import (
	"context"
	"net/http"

	"tcs.dev/tcs/internal/domain/limits"
)

// APIErrorType returns the API error type of e, so that callers that only know of an
// interface (the transcript reconciler) can show it.
func (e *UserError) APIErrorType() string { return e.Type }

// Fetcher gets the input of youtube and url transcripts through one outbound client.
type Fetcher struct {
	YouTube *YouTube
	Client  *http.Client
}

// YouTubeCaptions returns the captions (VTT) and the title of the video at url in language lang
// (empty means English).
func (f *Fetcher) YouTubeCaptions(ctx context.Context, url, lang string) ([]byte, string, error) {
	id, err := ParseYouTubeURL(url)
	if err != nil {
		return nil, "", err
	}
	if lang == "" {
		lang = "en"
	}
	return f.YouTube.Captions(ctx, id, lang)
}

// FetchURL returns the file at url, at most limits.MaxRemoteFile bytes.
func (f *Fetcher) FetchURL(ctx context.Context, url string) ([]byte, error) {
	body, _, err := Fetch(ctx, f.Client, url, limits.MaxRemoteFile)
	return body, err
}
