package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// withSourceType encodes req, a request of one source type, as the body of
// POST /api/v1/transcripts: its members and source_type.
func withSourceType(st SourceType, req any) (json.RawMessage, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("tcs: encoding the %s request: %w", st, err)
	}
	if len(b) < 2 || b[0] != '{' {
		return nil, fmt.Errorf("tcs: the %s request %T is not a JSON object", st, req)
	}
	head, _ := json.Marshal(st)
	out := append([]byte(`{"source_type":`), head...)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// create posts req as a transcript of source type st.
func (c *Client) create(ctx context.Context, st SourceType, req any, opts []CallOption) (*Transcript, error) {
	body, err := withSourceType(st, req)
	if err != nil {
		return nil, err
	}
	var t Transcript
	if _, err := c.call(ctx, http.MethodPost, "/api/v1/transcripts", nil, body, &t, opts); err != nil {
		return nil, err
	}
	return &t, nil
}

// CreatePaste creates a transcript from text. The answer is the corrected transcript (or, with
// the AI pass enabled and [Wait], the transcript once that pass ended).
func (c *Client) CreatePaste(ctx context.Context, req PasteRequest, opts ...CallOption) (*Transcript, error) {
	return c.create(ctx, SourcePaste, req, opts)
}

// CreateYouTube creates a transcript from a YouTube video's captions, fetched in the
// background: the answer is pending unless [Wait] is given.
func (c *Client) CreateYouTube(ctx context.Context, req YouTubeRequest, opts ...CallOption) (*Transcript, error) {
	return c.create(ctx, SourceYouTube, req, opts)
}

// CreateURL creates a transcript from a file at a public URL, fetched in the background: the
// answer is pending unless [Wait] is given.
func (c *Client) CreateURL(ctx context.Context, req URLRequest, opts ...CallOption) (*Transcript, error) {
	return c.create(ctx, SourceURL, req, opts)
}

// CreateUploadGrant asks where to upload a file (step 1 of the upload flow).
func (c *Client) CreateUploadGrant(ctx context.Context, req UploadRequest, opts ...CallOption) (*UploadGrant, error) {
	var g UploadGrant
	if _, err := c.call(ctx, http.MethodPost, "/api/v1/transcripts/uploads", nil, req, &g, opts); err != nil {
		return nil, err
	}
	return &g, nil
}

// PutUpload sends a file's bytes to a grant's upload URL (step 2), with the grant's method
// and headers and without the API key. A failed connection, 500 or 504 is retried.
func (c *Client) PutUpload(ctx context.Context, g *UploadGrant, data []byte) error {
	if g == nil || g.UploadURL == "" {
		return fmt.Errorf("tcs: the upload grant has no upload_url")
	}
	if int64(len(data)) > g.MaxBytes && g.MaxBytes > 0 {
		return fmt.Errorf("tcs: the file has %d bytes, the grant accepts %d at most", len(data), g.MaxBytes)
	}
	method := g.UploadMethod
	if method == "" {
		method = http.MethodPut
	}
	h := http.Header{}
	for k, v := range g.UploadHeaders {
		h.Set(k, v)
	}
	_, _, _, err := c.send(ctx, request{method: method, url: g.UploadURL, body: data, header: h})
	return err
}

// ConfirmUpload confirms an uploaded file (step 3): the transcript is created pending, unless
// [Wait] is given.
func (c *Client) ConfirmUpload(ctx context.Context, req ConfirmUploadRequest, opts ...CallOption) (*Transcript, error) {
	return c.create(ctx, SourceUpload, req, opts)
}

// Upload runs the whole upload flow for data: grant, upload, confirm. opts apply to the
// confirmation ([Wait] makes it synchronous); each step has its own idempotency key.
func (c *Client) Upload(ctx context.Context, req UploadRequest, data []byte, opts ...CallOption) (*Transcript, error) {
	g, err := c.CreateUploadGrant(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := c.PutUpload(ctx, g, data); err != nil {
		return nil, err
	}
	return c.ConfirmUpload(ctx, ConfirmUploadRequest{TranscriptID: g.TranscriptID, Options: req.Options}, opts...)
}

// GetTranscript returns a transcript with its content.
func (c *Client) GetTranscript(ctx context.Context, id string) (*Transcript, error) {
	t, _, err := c.getTranscript(ctx, id)
	return t, err
}

func (c *Client) getTranscript(ctx context.Context, id string) (*Transcript, http.Header, error) {
	var t Transcript
	h, err := c.call(ctx, http.MethodGet, "/api/v1/transcripts/"+url.PathEscape(id), nil, nil, &t, nil)
	if err != nil {
		return nil, h, err
	}
	return &t, h, nil
}

// DeleteTranscript soft-deletes a transcript: it reads as not found from then on.
func (c *Client) DeleteTranscript(ctx context.Context, id string) (*DeletedTranscript, error) {
	var d DeletedTranscript
	if _, err := c.call(ctx, http.MethodDelete, "/api/v1/transcripts/"+url.PathEscape(id), nil, nil, &d, nil); err != nil {
		return nil, err
	}
	return &d, nil
}

// TriggerAIPass queues an AI validation pass of a transcript. The answer is the transcript
// with the pass queued; [Client.WaitForTranscript] waits for its end.
func (c *Client) TriggerAIPass(ctx context.Context, id string, req AIPassRequest, opts ...CallOption) (*Transcript, error) {
	var t Transcript
	if _, err := c.call(ctx, http.MethodPost, "/api/v1/transcripts/"+url.PathEscape(id)+"/ai_pass", nil, req, &t, opts); err != nil {
		return nil, err
	}
	return &t, nil
}

// Decide records a batch of review decisions on a completed transcript and returns it with its
// reviewed content. With req.ReviewVersion, a review that moved since fails with an *Error of
// type conflict: fetch the transcript and its changes, and decide again.
func (c *Client) Decide(ctx context.Context, id string, req DecideRequest, opts ...CallOption) (*Transcript, error) {
	var t Transcript
	if _, err := c.call(ctx, http.MethodPost, "/api/v1/transcripts/"+url.PathEscape(id)+"/decisions", nil, req, &t, opts); err != nil {
		return nil, err
	}
	return &t, nil
}

// GetJob returns a job's status and progress.
func (c *Client) GetJob(ctx context.Context, id string) (*Job, error) {
	var j Job
	if _, err := c.call(ctx, http.MethodGet, "/api/v1/jobs/"+url.PathEscape(id), nil, nil, &j, nil); err != nil {
		return nil, err
	}
	return &j, nil
}

// Me describes the client's API key and its organization.
func (c *Client) Me(ctx context.Context) (*KeyMetadata, error) {
	var m KeyMetadata
	if _, err := c.call(ctx, http.MethodGet, "/api/v1/me", nil, nil, &m, nil); err != nil {
		return nil, err
	}
	return &m, nil
}

// Health calls the liveness check, which needs no API key.
func (c *Client) Health(ctx context.Context) (*Health, error) {
	var h Health
	if _, err := c.call(ctx, http.MethodGet, "/healthz", nil, nil, &h, nil); err != nil {
		return nil, err
	}
	return &h, nil
}

// Page selects one page of a list: at most Limit items (1 to 100; zero means the API's 10)
// after the item StartingAfter or before the item EndingBefore (not both).
type Page struct {
	Limit         int
	StartingAfter string
	EndingBefore  string
}

func (p Page) query() url.Values {
	q := url.Values{}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.StartingAfter != "" {
		q.Set("starting_after", p.StartingAfter)
	}
	if p.EndingBefore != "" {
		q.Set("ending_before", p.EndingBefore)
	}
	return q
}

// TranscriptFilter selects transcripts of a list; zero members select all.
type TranscriptFilter struct {
	Status     Status
	SourceType SourceType
	// CreatedFrom and CreatedTo bound the creation time, both inclusive (to the second).
	CreatedFrom, CreatedTo time.Time
	// Metadata selects the transcripts whose metadata have each of its pairs (at most 20).
	Metadata map[string]string
	// NeedsReview selects the completed transcripts with (true) or without (false) suggestions
	// no one decided on.
	NeedsReview *bool
}

func (f TranscriptFilter) apply(q url.Values) {
	if f.Status != "" {
		q.Set("status", string(f.Status))
	}
	if f.SourceType != "" {
		q.Set("source_type", string(f.SourceType))
	}
	if !f.CreatedFrom.IsZero() {
		q.Set("created[gte]", strconv.FormatInt(f.CreatedFrom.Unix(), 10))
	}
	if !f.CreatedTo.IsZero() {
		q.Set("created[lte]", strconv.FormatInt(f.CreatedTo.Unix(), 10))
	}
	for k, v := range f.Metadata {
		q.Set("metadata["+k+"]", v)
	}
	if f.NeedsReview != nil {
		q.Set("needs_review", strconv.FormatBool(*f.NeedsReview))
	}
}

// ListTranscripts returns one page of the organization's transcripts, newest first, without
// their content.
func (c *Client) ListTranscripts(ctx context.Context, f TranscriptFilter, p Page) (*List[Transcript], error) {
	q := p.query()
	f.apply(q)
	var l List[Transcript]
	if _, err := c.call(ctx, http.MethodGet, "/api/v1/transcripts", q, nil, &l, nil); err != nil {
		return nil, err
	}
	return &l, nil
}

// Transcripts iterates over the organization's transcripts, newest first, fetching pages of
// pageSize (zero means the API's 10) as it goes. An error ends the iteration with (nil, err).
func (c *Client) Transcripts(ctx context.Context, f TranscriptFilter, pageSize int) iter.Seq2[*Transcript, error] {
	return pages(func(after string) (*List[Transcript], error) {
		return c.ListTranscripts(ctx, f, Page{Limit: pageSize, StartingAfter: after})
	}, func(t *Transcript) string { return t.ID })
}

// ChangeFilter selects changes of a list; zero members select all.
type ChangeFilter struct {
	Category string
	// Status is auto_applied or needs_review.
	Status string
	// AIVerdict is confirmed, rejected, uncertain, or flagged (those ai_flagged counts).
	AIVerdict string
	// Applied selects the changes written into the content (true) or left out (false).
	Applied *bool
	// Decided selects the changes with (true) or without (false) a review decision.
	Decided *bool
}

func (f ChangeFilter) apply(q url.Values) {
	if f.Category != "" {
		q.Set("category", f.Category)
	}
	if f.Status != "" {
		q.Set("status", f.Status)
	}
	if f.AIVerdict != "" {
		q.Set("ai_verdict", f.AIVerdict)
	}
	if f.Applied != nil {
		q.Set("applied", strconv.FormatBool(*f.Applied))
	}
	if f.Decided != nil {
		q.Set("decided", strconv.FormatBool(*f.Decided))
	}
}

// ListChanges returns one page of a transcript's changes, in text order.
func (c *Client) ListChanges(ctx context.Context, transcriptID string, f ChangeFilter, p Page) (*List[Change], error) {
	q := p.query()
	f.apply(q)
	var l List[Change]
	if _, err := c.call(ctx, http.MethodGet, "/api/v1/transcripts/"+url.PathEscape(transcriptID)+"/changes", q, nil, &l, nil); err != nil {
		return nil, err
	}
	return &l, nil
}

// Changes iterates over a transcript's changes in text order, fetching pages of pageSize (zero
// means the API's 10) as it goes. An error ends the iteration with (nil, err).
func (c *Client) Changes(ctx context.Context, transcriptID string, f ChangeFilter, pageSize int) iter.Seq2[*Change, error] {
	return pages(func(after string) (*List[Change], error) {
		return c.ListChanges(ctx, transcriptID, f, Page{Limit: pageSize, StartingAfter: after})
	}, func(ch *Change) string { return ch.ID })
}

// pages iterates over the items of the pages fetch returns, each page after the last item of
// the one before.
func pages[T any](fetch func(after string) (*List[T], error), id func(*T) string) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		after := ""
		for {
			l, err := fetch(after)
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range l.Data {
				if !yield(&l.Data[i], nil) {
					return
				}
			}
			if !l.HasMore || len(l.Data) == 0 {
				return
			}
			after = id(&l.Data[len(l.Data)-1])
		}
	}
}

// WaitForTranscript polls a transcript until nothing more will happen to it (see
// [Transcript.Done]): completed or failed, and no AI pass queued or running. Polls start one
// second apart and double up to 30 seconds ([WithPollInterval] changes both); a Retry-After of
// the answer that asks for longer is honoured. A failed transcript is returned without an
// error: read its Error. ctx bounds the wait.
func (c *Client) WaitForTranscript(ctx context.Context, id string) (*Transcript, error) {
	for n := 0; ; n++ {
		t, h, err := c.getTranscript(ctx, id)
		if err != nil {
			return nil, err
		}
		if t.Done() {
			return t, nil
		}
		wait := c.poll.backoff(n)
		if ra := retryAfter(h); ra > wait {
			wait = ra
		}
		if err := c.sleep(ctx, wait); err != nil {
			return t, fmt.Errorf("tcs: waiting for transcript %s (status %s, ai_pass_status %s): %w", id, t.Status, t.AIPassStatus, err)
		}
	}
}
