package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
)

// newTranscript returns the resource of a new transcript of org, made by the transcripts
// service.
func (s *Server) newTranscript(org, id string, src tcsv1.TranscriptSource, opts tcsv1.TranscriptOptions) (*tcsv1.Transcript, *apiError) {
	t, err := s.transcripts.New(org, id, src, opts)
	if err != nil {
		return nil, serverError(err)
	}
	return t, nil
}

// updateStatus applies mutate to the latest t, a transcript of the caller's organization, and
// patches its status with the change: the transcripts service's UpdateStatus.
func (s *Server) updateStatus(ctx context.Context, t *tcsv1.Transcript, mutate func(*tcsv1.Transcript) bool) error {
	return s.transcripts.UpdateStatus(ctx, principalFrom(ctx).OrganizationID, t, mutate)
}

// cacheWait bounds how long awaitCached holds an answer for the informer cache.
const cacheWait = 2 * time.Second

// awaitCached waits, at most cacheWait, until the informer cache holds t as written or newer,
// so that a list right after the answer (lists are served from the cache) shows the write.
func (s *Server) awaitCached(ctx context.Context, t *tcsv1.Transcript) {
	if s.cache == nil || t.ResourceVersion == "" {
		return
	}
	changed, stop := s.waiters.watch(t.Name)
	defer stop()
	timer := time.NewTimer(cacheWait)
	defer timer.Stop()
	// The informer's events wake the wait; the ticker only covers a server whose events are
	// not wired (Serve registers them).
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		// Read after registering, so that no change between the two is missed.
		cached := &tcsv1.Transcript{}
		if err := s.cache.Get(ctx, client.ObjectKeyFromObject(t), cached); err == nil {
			if cmp, err := resourceversion.CompareResourceVersion(cached.ResourceVersion, t.ResourceVersion); err != nil || cmp >= 0 {
				return
			}
		}
		select {
		case <-changed:
		case <-tick.C:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// queue marks t pending with its first job queued, on behalf of the idempotency record
// record ("" for none).
func (s *Server) queue(t *tcsv1.Transcript, jobType, record string) {
	t.Status.Phase = tcsv1.PhasePending
	t.Status.AIPassStatus = tcsv1.AIPassIdle
	if job := t.AddJob(jobType, metav1.NewTime(s.clock.Now())); job.IdempotencyRecord == "" {
		job.IdempotencyRecord = record
	}
	t.QueueRequestedAIPass(metav1.NewTime(s.clock.Now()))
	t.Emit(tcsv1.EventTranscriptCreated, s.clock.Now())
}

// createRemote creates a youtube or url transcript with its fetch job queued.
func (s *Server) createRemote(r *http.Request, req *createRequest) (*tcsv1.Transcript, *apiError) {
	ctx := r.Context()
	org := principalFrom(ctx).OrganizationID
	id, resumed := s.newTranscriptID(ctx)
	if resumed {
		// An earlier run of this request made it, and it may be finished and archived since:
		// it is the answer, never made again.
		prior, aerr := s.transcriptOf(ctx, id)
		if aerr != nil {
			return nil, aerr
		}
		if prior != nil && prior.Status.Phase != "" {
			return prior, nil
		}
	}
	t, aerr := s.newTranscript(org, id, tcsv1.TranscriptSource{
		Type: req.SourceType, URL: req.URL, Format: string(req.Format), Title: req.Title,
	}, req.Options)
	if aerr != nil {
		return nil, aerr
	}
	if err := s.createOnce(ctx, t); err != nil {
		return nil, serverError(fmt.Errorf("creating transcript %s: %w", t.Spec.ID, err))
	}
	s.effected(ctx, id)
	jobType := tcsv1.JobURLFetch
	if req.SourceType == tcsv1.SourceYouTube {
		jobType = tcsv1.JobYouTubeFetch
	}
	err := s.updateStatus(ctx, t, func(t *tcsv1.Transcript) bool {
		if t.Status.Phase != "" {
			return false // the reconciler took it over, the API request having been too slow
		}
		s.queue(t, jobType, requestRecord(ctx))
		return true
	})
	if err != nil {
		// The resource exists; the reconciler queues its job.
		return nil, serverError(fmt.Errorf("queueing transcript %s: %w", t.Spec.ID, err))
	}
	return t, nil
}

// ownJob returns the job of t that the request of ctx queued in an earlier run, or nil.
func ownJob(ctx context.Context, t *tcsv1.Transcript) *tcsv1.Job {
	record := requestRecord(ctx)
	if record == "" {
		return nil
	}
	for i := range t.Status.Jobs {
		if t.Status.Jobs[i].IdempotencyRecord == record {
			return &t.Status.Jobs[i]
		}
	}
	return nil
}

func serverError(err error) *apiError {
	return &apiError{Status: http.StatusInternalServerError, Type: ErrServer, Message: "An unexpected error occurred. Retry later; quote the request id when you report it.", cause: err}
}

// uploadContentTypes are the Content-Types an upload of each format must be sent with.
var uploadContentTypes = map[formats.Format]string{
	"":               "application/octet-stream",
	formats.TXT:      "text/plain; charset=utf-8",
	formats.SRT:      "application/x-subrip",
	formats.VTT:      "text/vtt; charset=utf-8",
	formats.Markdown: "text/markdown; charset=utf-8",
	formats.HTML:     "text/html; charset=utf-8",
	formats.JSON:     "application/json",
	formats.DOCX:     "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}

// formatOfFilename guesses a format from a file name's extension, or "" to sniff.
func formatOfFilename(name string) formats.Format {
	switch strings.ToLower(path.Ext(name)) {
	case ".txt", ".text":
		return formats.TXT
	case ".srt":
		return formats.SRT
	case ".vtt":
		return formats.VTT
	case ".md", ".markdown":
		return formats.Markdown
	case ".html", ".htm":
		return formats.HTML
	case ".json", ".json3":
		return formats.JSON
	case ".docx":
		return formats.DOCX
	}
	return ""
}

// createUpload is POST /api/v1/transcripts/uploads: the upload grant.
func (s *Server) createUpload(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	obj, aerr := readJSONObject(w, r)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	if aerr := members(obj, "", "filename", "source_format", "title", "options"); aerr != nil {
		writeError(w, r, aerr)
		return
	}
	filename, aerr := requiredString(obj, "filename", "")
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	if len(filename) > limits.MaxFilename || strings.ContainsAny(filename, "/\\\x00") {
		writeError(w, r, invalid("filename", fmt.Sprintf("filename must be a file name of at most %d bytes, without a path.", limits.MaxFilename)))
		return
	}
	format, aerr := formatParam(obj, remoteFormats, false)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	if format == "" {
		format = formatOfFilename(filename)
	}
	title, aerr := titleParam(obj)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	var opts tcsv1.TranscriptOptions
	if raw, ok := obj["options"]; ok && !isNull(raw) {
		if opts, aerr = parseOptions(raw); aerr != nil {
			writeError(w, r, aerr)
			return
		}
	}
	org := principalFrom(ctx).OrganizationID
	id, _ := s.newTranscriptID(ctx)
	expires := metav1.NewTime(s.clock.Now().Add(s.uploadExpiry).Truncate(time.Second))
	contentType := uploadContentTypes[format]
	url, headers, err := s.store.SignedPutURL(ctx, pipeline.KeysFor(org, id).Input, contentType, s.uploadExpiry)
	if err != nil {
		s.serverError(w, r, fmt.Errorf("signing an upload URL: %w", err))
		return
	}
	t, aerr := s.newTranscript(org, id, tcsv1.TranscriptSource{
		Type: tcsv1.SourceUpload, Format: string(format), Title: title, Filename: filename, UploadExpiresAt: &expires,
	}, opts)
	if aerr != nil {
		s.writeAPIError(w, r, aerr)
		return
	}
	if err := s.createOnce(ctx, t); err != nil {
		s.serverError(w, r, fmt.Errorf("creating the upload grant %s: %w", id, err))
		return
	}
	s.effected(ctx, id)
	if t.Spec.Source.UploadExpiresAt != nil {
		expires = *t.Spec.Source.UploadExpiresAt // an earlier run made the grant
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"object":         "upload",
		"transcript_id":  id,
		"upload_url":     url,
		"upload_method":  http.MethodPut,
		"upload_headers": headers,
		"expires_at":     apiview.Timestamp(expires),
		"max_bytes":      limits.MaxRemoteFile,
	})
}

// confirmUpload turns an upload grant whose file arrived into a pending transcript.
func (s *Server) confirmUpload(r *http.Request, req *createRequest) (*tcsv1.Transcript, *apiError) {
	ctx := r.Context()
	id := req.TranscriptID
	t, err := s.transcripts.Upload(ctx, principalFrom(ctx).OrganizationID, id)
	if err != nil {
		return nil, scopedError(err, "transcript_id", fmt.Sprintf("No such upload: %s.", quote(id)),
			fmt.Sprintf("This API key does not have access to upload %s.", quote(id)))
	}
	switch {
	case t.Spec.Source.Type != tcsv1.SourceUpload:
		return nil, invalid("transcript_id", fmt.Sprintf("%s is not an upload; its source_type is %s.", quote(id), t.Spec.Source.Type))
	case t.Status.Phase != "" && ownJob(ctx, t) != nil:
		return t, nil // an earlier run of this request confirmed it
	case t.Status.Phase != "":
		return nil, &apiError{Status: http.StatusConflict, Type: ErrConflict, Param: "transcript_id", Message: fmt.Sprintf("Upload %s is already confirmed.", quote(id))}
	case t.Spec.Source.UploadExpiresAt != nil && !s.clock.Now().Before(t.Spec.Source.UploadExpiresAt.Time):
		return nil, invalid("transcript_id", fmt.Sprintf("The upload grant %s expired at %s; request a new one.", quote(id), apiview.Timestamp(*t.Spec.Source.UploadExpiresAt)))
	}
	size, _, err := s.store.Attributes(ctx, t.Spec.Source.InputRef)
	switch {
	case errors.Is(err, blob.ErrNotFound):
		return nil, &apiError{Status: http.StatusConflict, Type: ErrConflict, Param: "transcript_id",
			Message: fmt.Sprintf("The file of upload %s has not arrived; PUT it to the upload_url first.", quote(id))}
	case err != nil:
		return nil, serverError(err)
	case size > limits.MaxRemoteFile:
		return nil, &apiError{Status: http.StatusUnprocessableEntity, Type: ErrUnprocessable, Param: "transcript_id",
			Message: fmt.Sprintf("The uploaded file is %d bytes; the limit is %d bytes (5 MB).", size, limits.MaxRemoteFile)}
	}
	opts, aerr := mergeOptions(t.Spec.Options, req.Options, req.OptionsGiven)
	if aerr != nil {
		return nil, aerr
	}
	if opts != t.Spec.Options {
		// The options given at confirmation join the grant's before the job is queued, so that
		// every pass of the transcript runs with them.
		err := s.transcripts.SetOptions(ctx, principalFrom(ctx).OrganizationID, t, opts)
		if err != nil {
			return nil, serverError(fmt.Errorf("applying the options of upload %s: %w", id, err))
		}
	}
	var already bool
	err = s.updateStatus(ctx, t, func(t *tcsv1.Transcript) bool {
		if t.Status.Phase != "" {
			already = ownJob(ctx, t) == nil
			return false
		}
		s.queue(t, tcsv1.JobUploadIngest, requestRecord(ctx))
		return true
	})
	switch {
	case err != nil:
		return nil, serverError(err)
	case already:
		return nil, &apiError{Status: http.StatusConflict, Type: ErrConflict, Param: "transcript_id", Message: fmt.Sprintf("Upload %s is already confirmed.", quote(id))}
	}
	s.effected(ctx, id)
	return t, nil
}

// getJob is GET /api/v1/jobs/{id}.
func (s *Server) getJob(w http.ResponseWriter, r *http.Request) {
	jobID := mux.Vars(r)["id"]
	t, j, err := s.transcripts.Job(r.Context(), principalFrom(r.Context()).OrganizationID, jobID)
	if err != nil {
		s.writeAPIError(w, r, scopedError(err, "id", fmt.Sprintf("No such job: %s.", quote(jobID)),
			fmt.Sprintf("This API key does not have access to job %s.", quote(jobID))))
		return
	}
	if j.State == tcsv1.JobQueued || j.State == tcsv1.JobRunning {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, http.StatusOK, apiview.NewJob(t, j))
}

// acquireSync takes one of the limit slots of synchronous requests of org: from the shared
// semaphore when there is one, or from this replica's count when there is none or it fails.
func (s *Server) acquireSync(ctx context.Context, org string, limit int) (release func(), ok bool) {
	if s.syncSem != nil {
		// A Redis that does not answer must not hold the request for its client's retries.
		actx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		release, ok, err := s.syncSem.Acquire(actx, org+":sync", limit)
		if err == nil {
			return release, ok
		}
		s.log.Error(err, "the shared count of synchronous requests is unavailable; counting this replica's only", "organization", org)
	}
	return s.syncSlots.acquire(org, limit)
}

// syncSlots bounds the synchronous requests waiting at once, per organization.
type syncSlots struct {
	limit int
	mu    sync.Mutex
	used  map[string]int
}

func newSyncSlots(limit int) *syncSlots {
	return &syncSlots{limit: limit, used: map[string]int{}}
}

// acquire takes one of limit slots of org; release gives it back.
func (q *syncSlots) acquire(org string, limit int) (release func(), ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.used[org] >= limit {
		return nil, false
	}
	q.used[org]++
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			defer q.mu.Unlock()
			if q.used[org]--; q.used[org] <= 0 {
				delete(q.used, org)
			}
		})
	}, true
}

// waiters wakes synchronous requests when their transcript changes, from the informer's watch.
type waiters struct {
	mu sync.Mutex
	m  map[string]map[chan struct{}]struct{}
}

func newWaiters() *waiters {
	return &waiters{m: map[string]map[chan struct{}]struct{}{}}
}

// watch returns a channel that is signalled when transcript name changes, and a func to stop.
func (ws *waiters) watch(name string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	ws.mu.Lock()
	if ws.m[name] == nil {
		ws.m[name] = map[chan struct{}]struct{}{}
	}
	ws.m[name][ch] = struct{}{}
	ws.mu.Unlock()
	return ch, func() {
		ws.mu.Lock()
		delete(ws.m[name], ch)
		if len(ws.m[name]) == 0 {
			delete(ws.m, name)
		}
		ws.mu.Unlock()
	}
}

func (ws *waiters) notify(obj any) {
	t, ok := obj.(*tcsv1.Transcript)
	if !ok {
		return
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for ch := range ws.m[t.Name] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// handler is the informer event handler that feeds the waiters.
func (ws *waiters) handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { ws.notify(obj) },
		UpdateFunc: func(_, obj any) { ws.notify(obj) },
	}
}

// waitAndRespond holds the request until t is completed or failed, with the AI pass it asked
// for ended too, or timeout passes; it answers with status and the transcript.
func (s *Server) waitAndRespond(w http.ResponseWriter, r *http.Request, t *tcsv1.Transcript, timeout time.Duration, status int) {
	ctx := r.Context()
	changed, stop := s.waiters.watch(t.Name)
	defer stop()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		// Read after registering, so that no change between the two is missed.
		// Archived meanwhile (or long ago, for a resumed request), it is read from its record.
		found, err := s.transcripts.Find(ctx, principalFrom(ctx).OrganizationID, t.Spec.ID)
		if err == nil && found == nil {
			err = transcripts.ErrNotFound
		}
		if err != nil {
			s.serverError(w, r, fmt.Errorf("reading transcript %s: %w", t.Spec.ID, err))
			return
		}
		t = found
		if finished(t) {
			s.respondTranscript(w, r, t, status)
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			writeJSON(w, http.StatusGatewayTimeout, map[string]any{
				"id": t.Spec.ID,
				"error": errorObject{Type: ErrTimeout, RequestID: RequestID(ctx),
					Message: fmt.Sprintf("Transcript %s did not finish within %s; it goes on: poll GET /api/v1/transcripts/%s.", t.Spec.ID, timeout, t.Spec.ID)},
				"transcript": apiview.NewTranscript(t, nil),
			})
			return
		case <-ctx.Done():
			return
		}
	}
}
