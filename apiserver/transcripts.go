package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/gorilla/mux"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
)

// pasteFormats are the source formats a paste may declare; files (url, upload) may also be docx.
var (
	pasteFormats  = transcripts.PasteFormats()
	remoteFormats = transcripts.FileFormats()
)

// createRequest is a validated POST /transcripts body.
type createRequest struct {
	SourceType   tcsv1.SourceType
	Content      string
	URL          string
	TranscriptID string
	Title        string
	Format       formats.Format
	Options      tcsv1.TranscriptOptions
	// OptionsGiven names the members of options the request sent (e.g. options.ai_pass.enabled).
	OptionsGiven []string
}

// createMembers are the body members each source type accepts.
var createMembers = map[tcsv1.SourceType][]string{
	tcsv1.SourcePaste:   {"source_type", "content", "title", "source_format", "options"},
	tcsv1.SourceYouTube: {"source_type", "url", "title", "options"},
	tcsv1.SourceURL:     {"source_type", "url", "source_format", "title", "options"},
	tcsv1.SourceUpload:  {"source_type", "transcript_id", "options"},
}

// parseCreate validates a POST /transcripts body; allow lists the outbound CIDRs open to url sources.
func parseCreate(obj map[string]json.RawMessage, allow []netip.Prefix) (*createRequest, *apiError) {
	req := &createRequest{}
	raw, ok := obj["source_type"]
	if !ok || isNull(raw) {
		return nil, invalid("source_type", "source_type is required: one of paste, youtube, url, upload.")
	}
	st, aerr := stringParam(raw, "source_type")
	if aerr != nil {
		return nil, aerr
	}
	req.SourceType = tcsv1.SourceType(st)
	allowed, ok := createMembers[req.SourceType]
	if !ok {
		return nil, invalid("source_type", fmt.Sprintf("source_type %s is not one of paste, youtube, url, upload.", quote(st)))
	}
	if aerr := members(obj, "", allowed...); aerr != nil {
		return nil, aerr
	}
	switch req.SourceType {
	case tcsv1.SourcePaste:
		if req.Content, aerr = requiredString(obj, "content", "for source_type paste"); aerr != nil {
			return nil, aerr
		}
		if len(req.Content) > limits.MaxPasteContent {
			return nil, invalid("content", fmt.Sprintf("content is %d bytes; the limit is %d bytes (2 MB).", len(req.Content), limits.MaxPasteContent))
		}
		if req.Format, aerr = formatParam(obj, pasteFormats, false); aerr != nil {
			return nil, aerr
		}
	case tcsv1.SourceYouTube:
		if req.URL, aerr = urlParam(obj, "for source_type youtube"); aerr != nil {
			return nil, aerr
		}
		if _, err := sources.ParseYouTubeURL(req.URL); err != nil {
			return nil, userError("url", err)
		}
		req.Format = formats.VTT
	case tcsv1.SourceURL:
		if req.URL, aerr = urlParam(obj, "for source_type url"); aerr != nil {
			return nil, aerr
		}
		if err := sources.CheckURL(req.URL, allow); err != nil {
			return nil, userError("url", err)
		}
		if req.Format, aerr = formatParam(obj, remoteFormats, true); aerr != nil {
			return nil, aerr
		}
	case tcsv1.SourceUpload:
		if req.TranscriptID, aerr = requiredString(obj, "transcript_id", "for source_type upload"); aerr != nil {
			return nil, aerr
		}
	}
	if req.Title, aerr = titleParam(obj); aerr != nil {
		return nil, aerr
	}
	if raw, ok := obj["options"]; ok && !isNull(raw) {
		if req.Options, aerr = parseOptions(raw); aerr != nil {
			return nil, aerr
		}
		req.OptionsGiven = givenOptions(raw)
	}
	return req, nil
}

// createTranscript is POST /api/v1/transcripts.
func (s *Server) createTranscript(w http.ResponseWriter, r *http.Request) error {
	wait, aerr := boolQuery(r, "wait")
	if aerr != nil {
		return aerr
	}
	timeout, aerr := intQuery(r, "timeout", limits.WaitTimeoutDefault, limits.WaitTimeoutMin, limits.WaitTimeoutMax)
	if aerr != nil {
		return aerr
	}
	obj, aerr := readJSONObject(w, r)
	if aerr != nil {
		return aerr
	}
	req, aerr := parseCreate(obj, s.sources.allow)
	if aerr != nil {
		return aerr
	}
	if req.SourceType == tcsv1.SourceURL && s.sources.resolver != nil {
		if err := sources.CheckHost(r.Context(), s.sources.resolver, req.URL); err != nil {
			return userError("url", err)
		}
	}
	// A paste is corrected inline: with wait=true it waits only for the AI pass it asks for.
	if req.SourceType == tcsv1.SourcePaste && !req.Options.AIPass.Enabled {
		wait = false
	}
	if wait {
		org := principalFrom(r.Context()).OrganizationID
		limit := s.limitsOf(r.Context(), org).sync
		release, ok := s.acquireSync(r.Context(), org, limit)
		if !ok {
			s.metrics.RateLimited("sync")
			w.Header().Set("Retry-After", "1")
			return &apiError{Status: http.StatusTooManyRequests, Type: ErrRateLimited,
				Message: fmt.Sprintf("More than %d synchronous requests of this organization are waiting; retry later or poll instead.", limit)}
		}
		defer release()
	}
	if req.SourceType == tcsv1.SourcePaste {
		var hold time.Duration
		if wait {
			hold = time.Duration(timeout) * time.Second
		}
		return s.createPaste(w, r, req, hold)
	}
	var (
		t   *tcsv1.Transcript
		err error
	)
	if req.SourceType == tcsv1.SourceUpload {
		t, err = s.confirmUpload(r, req)
	} else {
		t, err = s.createRemote(r, req)
	}
	if err != nil {
		return err
	}
	s.metrics.TranscriptCreated(string(req.SourceType))
	if wait {
		return s.waitAndRespond(w, r, t, time.Duration(timeout)*time.Second, http.StatusOK)
	}
	writeJSON(w, http.StatusAccepted, apiview.NewTranscript(t, nil))
	return nil
}

// createPaste corrects a pasted transcript inline and stores it already completed; with a
// wait, it answers once the AI pass it queued has ended too.
func (s *Server) createPaste(w http.ResponseWriter, r *http.Request, req *createRequest, wait time.Duration) error {
	ctx := r.Context()
	org := principalFrom(ctx).OrganizationID
	id, resumed := s.newTranscriptID(ctx)
	keys := pipeline.KeysFor(org, id)
	if resumed {
		// An earlier run of this request may have made the transcript: it is the answer, and
		// the body of this retry (which may differ) is not stored over its input.
		t, err := s.transcriptOf(ctx, id)
		switch {
		case err != nil:
			return err
		case t != nil:
			return s.resumePaste(w, r, t, keys, []byte(req.Content), wait)
		}
	}
	input := []byte(req.Content)
	copts, doc, err := s.readPaste(ctx, org, req, input)
	if err != nil {
		return err
	}
	t, res, err := s.storePaste(ctx, org, id, keys, req, input, func() (*pipeline.Result, error) {
		return s.processor.CorrectDocument(doc, copts)
	})
	if err != nil {
		return err
	}
	s.effected(ctx, id)
	s.metrics.TranscriptCreated(string(req.SourceType))
	completed, err := s.transcripts.Complete(ctx, org, t, res, s.metaNow())
	if errors.Is(err, transcripts.ErrGone) {
		// The reconciler, finding no input yet, took this request for dead and discarded the
		// paste: nothing is answered, and what this request stored after the discard removed
		// the paste's objects goes too. A retry makes the paste anew.
		s.discardPaste(context.WithoutCancel(ctx), org, t, keys)
	}
	if err != nil {
		// Else the resource exists and the reconciler completes it from the stored input.
		return fmt.Errorf("completing transcript %s: %w", id, err)
	}
	if completed {
		s.transcriptEnded(t)
	}
	if wait > 0 && t.AIPassBusy() {
		return s.waitAndRespond(w, r, t, wait, http.StatusCreated)
	}
	content := string(res.Content)
	writeJSON(w, http.StatusCreated, apiview.NewTranscript(t, &content))
	return nil
}

// readPaste reads input, the text of paste req of org, and returns the options it is corrected
// with: a paste the deterministic pass refuses is refused here, before anything is stored.
func (s *Server) readPaste(ctx context.Context, org string, req *createRequest, input []byte) (correction.Options, *pipeline.Document, error) {
	copts, err := s.correctionOptions(ctx, org, req.Options)
	if err != nil {
		return copts, nil, err
	}
	// The text of a paste may be no longer than a paste.
	doc, err := s.processor.Read(input, req.Format, formats.Limits{MaxText: limits.MaxPasteContent})
	if err != nil {
		var ce *pipeline.ContentError
		if errors.As(err, &ce) {
			return copts, nil, invalid("content", ce.Error()+".")
		}
		return copts, nil, err
	}
	return copts, doc, nil
}

// storePaste runs correct, the deterministic pass of paste id of org, stores its input and
// results and creates its transcript, without a status; it returns both. A first run stores
// the input, the content and the change list (which only the status names) while it creates
// the transcript. A transcript whose request died is corrected from its input by the
// reconciler, or deleted when its input was never stored (the request never answered), and a
// retried request resumes from it; a resumed run, which may find the transcript of an earlier
// run, stores everything before it creates, as it did.
func (s *Server) storePaste(ctx context.Context, org, id string, keys pipeline.Keys, req *createRequest, input []byte, correct func() (*pipeline.Result, error)) (*tcsv1.Transcript, *pipeline.Result, error) {
	draft := transcripts.Draft{ID: id, Resumed: resumedRun(ctx), Options: req.Options,
		Source: tcsv1.TranscriptSource{Type: req.SourceType, Format: string(req.Format), Title: req.Title}}
	if draft.Resumed {
		res, err := correct()
		if err != nil {
			return nil, nil, err
		}
		if err := s.processor.Save(ctx, keys, input, res); err != nil {
			return nil, nil, err
		}
		t, err := s.transcripts.Make(ctx, org, draft)
		if err != nil {
			return nil, nil, fmt.Errorf("creating transcript %s: %w", id, err)
		}
		return t, res, nil
	}
	type stored struct {
		res *pipeline.Result
		err error
	}
	// The pass, then the storing of its results, runs while the input is stored and the
	// transcript created; the request answers only once all are done, so a transcript whose
	// request died before its input was stored was never answered, and the reconciler
	// deletes it (discardUnstoredPaste). The channels are buffered, so that an early return
	// leaves nothing waiting.
	saved := make(chan stored, 1)
	go func() {
		res, err := correct()
		if err == nil {
			err = s.processor.SaveResults(ctx, keys, res)
		}
		saved <- stored{res, err}
	}()
	inputSaved := make(chan error, 1)
	go func() { inputSaved <- s.processor.SaveInput(ctx, keys, input) }()
	t, err := s.transcripts.Make(ctx, org, draft)
	ierr := <-inputSaved
	done := <-saved
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("creating transcript %s: %w", id, err)
	case ierr != nil:
		// Nothing is answered: the transcript goes again with what was stored for it (and,
		// should that fail, the reconciler deletes it, as it has no input).
		s.discardPaste(context.WithoutCancel(ctx), org, t, keys)
		return nil, nil, ierr
	case done.err != nil:
		// The transcript exists; the reconciler completes it from the stored input.
		return nil, nil, fmt.Errorf("correcting transcript %s: %w", id, done.err)
	}
	return t, done.res, nil
}

// discardPaste removes paste t of org, which its request will not answer, and the objects
// stored for it under keys. An object the store fails to remove (the store that failed the
// request) is logged and left: at most the paste's content and change list.
func (s *Server) discardPaste(ctx context.Context, org string, t *tcsv1.Transcript, keys pipeline.Keys) {
	for _, key := range keys.All() {
		if err := s.store.Delete(ctx, key); err != nil && !errors.Is(err, blob.ErrNotFound) {
			s.log.Error(err, "removing an object of a discarded paste", "transcript", t.Spec.ID, "key", key)
		}
	}
	if err := s.transcripts.Discard(ctx, org, t); err != nil {
		s.log.Error(err, "discarding a paste whose input was not stored", "transcript", t.Spec.ID)
	}
}

// resumePaste answers a retried paste whose transcript an earlier run created: it completes it
// from the stored input when that run died before (from input, the retry's text, when that run
// died before its input was stored too), and answers as the first run would have.
func (s *Server) resumePaste(w http.ResponseWriter, r *http.Request, t *tcsv1.Transcript, keys pipeline.Keys, input []byte, wait time.Duration) error {
	ctx := r.Context()
	if t.Status.Phase != tcsv1.PhaseCompleted {
		copts, err := s.correctionOptions(ctx, principalFrom(ctx).OrganizationID, t.Spec.Options)
		if err != nil {
			return err
		}
		res, err := s.processor.Reprocess(ctx, keys, formats.Format(t.Spec.Source.Format), copts)
		if errors.Is(err, blob.ErrNotFound) && t.Status.Phase == "" {
			if err := s.processor.SaveInput(ctx, keys, input); err != nil {
				return err
			}
			res, err = s.processor.Reprocess(ctx, keys, formats.Format(t.Spec.Source.Format), copts)
		}
		if err != nil {
			return fmt.Errorf("completing transcript %s: %w", t.Spec.ID, err)
		}
		if _, err := s.transcripts.Complete(ctx, principalFrom(ctx).OrganizationID, t, res, s.metaNow()); err != nil {
			return fmt.Errorf("completing transcript %s: %w", t.Spec.ID, err)
		}
	}
	if wait > 0 && t.AIPassBusy() {
		return s.waitAndRespond(w, r, t, wait, http.StatusCreated)
	}
	return s.respondTranscript(w, r, t, http.StatusCreated)
}

// createRemote creates a youtube or url transcript with its fetch job queued.
func (s *Server) createRemote(r *http.Request, req *createRequest) (*tcsv1.Transcript, error) {
	ctx := r.Context()
	org := principalFrom(ctx).OrganizationID
	id, resumed := s.newTranscriptID(ctx)
	if resumed {
		// An earlier run of this request made it, and it may be finished and archived since:
		// it is the answer, never made again.
		prior, err := s.transcriptOf(ctx, id)
		if err != nil {
			return nil, err
		}
		if prior != nil && prior.Status.Phase != "" {
			return prior, nil
		}
	}
	t, err := s.transcripts.Make(ctx, org, transcripts.Draft{ID: id, Resumed: resumedRun(ctx), Options: req.Options,
		Source: tcsv1.TranscriptSource{Type: req.SourceType, URL: req.URL, Format: string(req.Format), Title: req.Title}})
	if err != nil {
		return nil, fmt.Errorf("creating transcript %s: %w", id, err)
	}
	s.effected(ctx, id)
	if err := s.transcripts.Queue(ctx, org, t, requestRecord(ctx), s.metaNow()); err != nil {
		// The resource exists; the reconciler queues its job.
		return nil, fmt.Errorf("queueing transcript %s: %w", t.Spec.ID, err)
	}
	return t, nil
}

// transcriptOf reads transcript id of the caller's organization, made by an earlier run of
// the request, from the API server or its archived record; nil when it does not exist.
func (s *Server) transcriptOf(ctx context.Context, id string) (*tcsv1.Transcript, error) {
	t, err := s.transcripts.Find(ctx, principalFrom(ctx).OrganizationID, id)
	if err != nil {
		return nil, fmt.Errorf("transcript %s of an idempotent request: %w", id, err)
	}
	return t, nil
}

// effected is called once a request made its effect on transcript id, before it answers.
func (s *Server) effected(ctx context.Context, id string) {
	if s.hooks.afterEffect != nil {
		s.hooks.afterEffect(ctx, id)
	}
}

// getTranscript is GET /api/v1/transcripts/{id}.
func (s *Server) getTranscript(w http.ResponseWriter, r *http.Request) error {
	t, _, err := s.lookup(r.Context(), mux.Vars(r)["id"])
	if err != nil {
		return err
	}
	if !finished(t) {
		w.Header().Set("Retry-After", "1")
	}
	return s.respondTranscript(w, r, t, http.StatusOK)
}

// respondTranscript answers with t, its corrected content included once it is completed, and
// the entity tag of its review version.
func (s *Server) respondTranscript(w http.ResponseWriter, r *http.Request, t *tcsv1.Transcript, status int) error {
	content, err := s.transcripts.Content(r.Context(), principalFrom(r.Context()).OrganizationID, t)
	if err != nil {
		return err
	}
	setReviewETag(w, t)
	writeJSON(w, status, apiview.NewTranscript(t, content))
	return nil
}

// lookup reads transcript id for the caller's organization, and tells whether it was read from
// its archived record: the transcripts service's Get, with its errors as the API's answers
// (404 when it does not exist, or is deleted, or an unconfirmed upload; 403 when another
// organization owns it).
func (s *Server) lookup(ctx context.Context, id string) (*tcsv1.Transcript, bool, error) {
	t, archived, err := s.transcripts.Get(ctx, principalFrom(ctx).OrganizationID, id)
	if err != nil {
		return nil, false, lookupError(id, err)
	}
	return t, archived, nil
}

// lookupError is the API's answer to a failed read of transcript id by the transcripts
// service: 404 when it does not exist for the caller, 403 when another organization owns it.
func lookupError(id string, err error) error {
	return scopedError(err, "id", fmt.Sprintf("No such transcript: %s.", quote(id)),
		fmt.Sprintf("This API key does not have access to transcript %s.", quote(id)))
}

// scopedError maps an error of the transcripts service to the API's answer naming param:
// notFound for transcripts.ErrNotFound, forbidden for transcripts.ErrForeign; any other error
// is returned as it is (a server error).
func scopedError(err error, param, notFound, forbidden string) error {
	switch {
	case errors.Is(err, transcripts.ErrNotFound):
		return &apiError{Status: http.StatusNotFound, Type: ErrNotFound, Param: param, Message: notFound}
	case errors.Is(err, transcripts.ErrForeign):
		return &apiError{Status: http.StatusForbidden, Type: ErrForbidden, Param: param, Message: forbidden}
	}
	return err
}

// terminal reports whether a transcript in phase p is done with the deterministic pass.
func terminal(p tcsv1.Phase) bool {
	return p == tcsv1.PhaseCompleted || p == tcsv1.PhaseFailed
}

// finished reports whether t is done: the deterministic pass and any AI pass queued for it.
func finished(t *tcsv1.Transcript) bool {
	return terminal(t.Status.Phase) && !(t.Status.Phase == tcsv1.PhaseCompleted && t.AIPassBusy())
}
