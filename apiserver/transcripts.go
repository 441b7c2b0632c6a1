package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/gorilla/mux"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
)

// pasteFormats are the source formats a paste may declare; files (url, upload) may also be docx.
var (
	pasteFormats  = []formats.Format{formats.TXT, formats.SRT, formats.VTT, formats.Markdown, formats.HTML, formats.JSON}
	remoteFormats = append(pasteFormats[:len(pasteFormats):len(pasteFormats)], formats.DOCX)
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

// titleParam reads the optional title, trimmed, of at most limits.MaxTitle bytes.
func titleParam(obj map[string]json.RawMessage) (string, *apiError) {
	raw, ok := obj["title"]
	if !ok || isNull(raw) {
		return "", nil
	}
	if len(raw) > 6*limits.MaxTitle+2 {
		// Longer than any title within the limit, however escaped: not decoded.
		return "", invalid("title", fmt.Sprintf("title is longer than %d bytes.", limits.MaxTitle))
	}
	title, aerr := stringParam(raw, "title")
	if aerr != nil {
		return "", aerr
	}
	title = strings.TrimSpace(title)
	if len(title) > limits.MaxTitle {
		return "", invalid("title", fmt.Sprintf("title is longer than %d bytes.", limits.MaxTitle))
	}
	return title, nil
}

// urlParam reads the required url of a youtube or url source, of at most limits.MaxURL bytes.
func urlParam(obj map[string]json.RawMessage, context string) (string, *apiError) {
	if raw, ok := obj["url"]; ok && len(raw) > 6*limits.MaxURL+2 {
		return "", invalid("url", fmt.Sprintf("url is longer than %d bytes.", limits.MaxURL))
	}
	u, aerr := requiredString(obj, "url", context)
	if aerr != nil {
		return "", aerr
	}
	if len(u) > limits.MaxURL {
		return "", invalid("url", fmt.Sprintf("url is longer than %d bytes.", limits.MaxURL))
	}
	return u, nil
}

// requiredString reads a member that must be a non-blank string.
func requiredString(obj map[string]json.RawMessage, name, context string) (string, *apiError) {
	raw, ok := obj[name]
	if !ok || isNull(raw) {
		return "", invalid(name, fmt.Sprintf("%s is required %s.", name, context))
	}
	v, aerr := stringParam(raw, name)
	if aerr != nil {
		return "", aerr
	}
	if strings.TrimSpace(v) == "" {
		return "", invalid(name, name+" is empty.")
	}
	return v, nil
}

// formatParam reads source_format from one of allowed; required says whether it may be absent.
func formatParam(obj map[string]json.RawMessage, allowed []formats.Format, required bool) (formats.Format, *apiError) {
	raw, ok := obj["source_format"]
	if !ok || isNull(raw) {
		if required {
			return "", invalid("source_format", "source_format is required for this source_type: one of "+formatNames(allowed)+".")
		}
		return "", nil
	}
	f, aerr := stringParam(raw, "source_format")
	if aerr != nil {
		return "", aerr
	}
	return oneOfFormats(f, allowed)
}

// userError turns an error of internal/platform/sources into the API's answer, naming param.
func userError(param string, err error) *apiError {
	var ue *sources.UserError
	if errors.As(err, &ue) && ue.Type == ErrUnprocessable {
		return &apiError{Status: http.StatusUnprocessableEntity, Type: ErrUnprocessable, Param: param, Message: ue.Message}
	}
	if errors.As(err, &ue) {
		return invalid(param, ue.Message)
	}
	return invalid(param, err.Error())
}

func oneOfFormats(f string, allowed []formats.Format) (formats.Format, *apiError) {
	for _, a := range allowed {
		if string(a) == f {
			return a, nil
		}
	}
	return "", invalid("source_format", fmt.Sprintf("source_format %s is not one of %s.", quote(f), formatNames(allowed)))
}

func formatNames(fs []formats.Format) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

func parseOptions(raw json.RawMessage) (tcsv1.TranscriptOptions, *apiError) {
	var o tcsv1.TranscriptOptions
	obj, aerr := objectParam(raw, "options")
	if aerr != nil {
		return o, aerr
	}
	if aerr := members(obj, "options.", "ai_pass", "normalize_references", "language"); aerr != nil {
		return o, aerr
	}
	if raw, ok := obj["language"]; ok && !isNull(raw) {
		lang, aerr := stringParam(raw, "options.language")
		if aerr != nil {
			return o, aerr
		}
		if !validLanguage(lang) {
			return o, invalid("options.language", fmt.Sprintf("options.language %s is not a language tag such as en or pt-BR.", quote(lang)))
		}
		o.Language = lang
	}
	if raw, ok := obj["normalize_references"]; ok {
		if o.NormalizeReferences, aerr = boolParam(raw, "options.normalize_references"); aerr != nil {
			return o, aerr
		}
	}
	if raw, ok := obj["ai_pass"]; ok && !isNull(raw) {
		ai, aerr := objectParam(raw, "options.ai_pass")
		if aerr != nil {
			return o, aerr
		}
		if aerr := members(ai, "options.ai_pass.", "enabled", "apply"); aerr != nil {
			return o, aerr
		}
		if raw, ok := ai["enabled"]; ok {
			if o.AIPass.Enabled, aerr = boolParam(raw, "options.ai_pass.enabled"); aerr != nil {
				return o, aerr
			}
		}
		if raw, ok := ai["apply"]; ok {
			if o.AIPass.Apply, aerr = boolParam(raw, "options.ai_pass.apply"); aerr != nil {
				return o, aerr
			}
		}
	}
	return o, nil
}

// givenOptions names the members of a valid options object that are present and not null.
func givenOptions(raw json.RawMessage) []string {
	var o struct {
		AIPass              map[string]json.RawMessage `json:"ai_pass"`
		Language            json.RawMessage            `json:"language"`
		NormalizeReferences json.RawMessage            `json:"normalize_references"`
	}
	if json.Unmarshal(raw, &o) != nil {
		return nil
	}
	var out []string
	for _, m := range []string{"enabled", "apply"} {
		if v, ok := o.AIPass[m]; ok && !isNull(v) {
			out = append(out, "options.ai_pass."+m)
		}
	}
	if len(o.Language) > 0 && !isNull(o.Language) {
		out = append(out, "options.language")
	}
	if len(o.NormalizeReferences) > 0 && !isNull(o.NormalizeReferences) {
		out = append(out, "options.normalize_references")
	}
	return out
}

// createTranscript is POST /api/v1/transcripts.
func (s *Server) createTranscript(w http.ResponseWriter, r *http.Request) {
	wait, aerr := boolQuery(r, "wait")
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	timeout, aerr := intQuery(r, "timeout", limits.WaitTimeoutDefault, limits.WaitTimeoutMin, limits.WaitTimeoutMax)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	obj, aerr := readJSONObject(w, r)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	req, aerr := parseCreate(obj, s.outboundAllow)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	if req.SourceType == tcsv1.SourceURL && s.resolver != nil {
		if err := sources.CheckHost(r.Context(), s.resolver, req.URL); err != nil {
			writeError(w, r, userError("url", err))
			return
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
			writeError(w, r, &apiError{Status: http.StatusTooManyRequests, Type: ErrRateLimited,
				Message: fmt.Sprintf("More than %d synchronous requests of this organization are waiting; retry later or poll instead.", limit)})
			return
		}
		defer release()
	}
	if req.SourceType == tcsv1.SourcePaste {
		var hold time.Duration
		if wait {
			hold = time.Duration(timeout) * time.Second
		}
		s.createPaste(w, r, req, hold)
		return
	}
	var t *tcsv1.Transcript
	if req.SourceType == tcsv1.SourceUpload {
		t, aerr = s.confirmUpload(r, req)
	} else {
		t, aerr = s.createRemote(r, req)
	}
	if aerr != nil {
		s.writeAPIError(w, r, aerr)
		return
	}
	s.metrics.TranscriptCreated(string(req.SourceType))
	if wait {
		s.waitAndRespond(w, r, t, time.Duration(timeout)*time.Second, http.StatusOK)
		return
	}
	writeJSON(w, http.StatusAccepted, apiview.NewTranscript(t, nil))
}

// createPaste corrects a pasted transcript inline and stores it already completed; with a
// wait, it answers once the AI pass it queued has ended too.
func (s *Server) createPaste(w http.ResponseWriter, r *http.Request, req *createRequest, wait time.Duration) {
	ctx := r.Context()
	org := principalFrom(ctx).OrganizationID
	id, resumed := s.newTranscriptID(ctx)
	keys := pipeline.KeysFor(org, id)
	if resumed {
		// An earlier run of this request may have made the transcript: it is the answer, and
		// the body of this retry (which may differ) is not stored over its input.
		t, aerr := s.transcriptOf(ctx, id)
		switch {
		case aerr != nil:
			s.writeAPIError(w, r, aerr)
			return
		case t != nil:
			s.resumePaste(w, r, t, keys, wait)
			return
		}
	}
	input := []byte(req.Content)
	// The text of a paste may be no longer than a paste.
	res, err := s.processor.CorrectWithin(input, req.Format, pipeline.CorrectionOptions(req.Options), formats.Limits{MaxText: limits.MaxPasteContent})
	if err != nil {
		var ce *pipeline.ContentError
		if errors.As(err, &ce) {
			writeError(w, r, invalid("content", ce.Error()+"."))
			return
		}
		s.serverError(w, r, err)
		return
	}
	if err := s.processor.Save(ctx, keys, input, res); err != nil {
		s.serverError(w, r, err)
		return
	}
	t, err := s.transcripts.Make(ctx, org, transcripts.Draft{ID: id, Resumed: resumedRun(ctx), Options: req.Options,
		Source: tcsv1.TranscriptSource{Type: req.SourceType, Format: string(req.Format), Title: req.Title}})
	if err != nil {
		s.serverError(w, r, fmt.Errorf("creating transcript %s: %w", id, err))
		return
	}
	s.effected(ctx, id)
	s.metrics.TranscriptCreated(string(req.SourceType))
	completed, err := s.transcripts.Complete(ctx, org, t, res, s.metaNow())
	if err != nil {
		// The resource exists and the reconciler completes it from the stored input.
		s.serverError(w, r, fmt.Errorf("completing transcript %s: %w", id, err))
		return
	}
	if completed {
		s.transcriptEnded(t)
	}
	if wait > 0 && t.AIPassBusy() {
		s.waitAndRespond(w, r, t, wait, http.StatusCreated)
		return
	}
	content := string(res.Content)
	writeJSON(w, http.StatusCreated, apiview.NewTranscript(t, &content))
}

// resumePaste answers a retried paste whose transcript an earlier run created: it completes it
// from the stored input when that run died before, and answers as the first run would have.
func (s *Server) resumePaste(w http.ResponseWriter, r *http.Request, t *tcsv1.Transcript, keys pipeline.Keys, wait time.Duration) {
	ctx := r.Context()
	if t.Status.Phase != tcsv1.PhaseCompleted {
		res, err := s.processor.Reprocess(ctx, keys, formats.Format(t.Spec.Source.Format), pipeline.CorrectionOptions(t.Spec.Options))
		if err != nil {
			s.serverError(w, r, fmt.Errorf("completing transcript %s: %w", t.Spec.ID, err))
			return
		}
		if _, err := s.transcripts.Complete(ctx, principalFrom(ctx).OrganizationID, t, res, s.metaNow()); err != nil {
			s.serverError(w, r, fmt.Errorf("completing transcript %s: %w", t.Spec.ID, err))
			return
		}
	}
	if wait > 0 && t.AIPassBusy() {
		s.waitAndRespond(w, r, t, wait, http.StatusCreated)
		return
	}
	s.respondTranscript(w, r, t, http.StatusCreated)
}

// transcriptOf reads transcript id of the caller's organization, made by an earlier run of
// the request, from the API server or its archived record; nil when it does not exist.
func (s *Server) transcriptOf(ctx context.Context, id string) (*tcsv1.Transcript, *apiError) {
	t, err := s.transcripts.Find(ctx, principalFrom(ctx).OrganizationID, id)
	if err != nil {
		return nil, serverError(fmt.Errorf("transcript %s of an idempotent request: %w", id, err))
	}
	return t, nil
}

// effected is called once a request made its effect on transcript id, before it answers.
func (s *Server) effected(ctx context.Context, id string) {
	if s.afterEffect != nil {
		s.afterEffect(ctx, id)
	}
}

// getTranscript is GET /api/v1/transcripts/{id}.
func (s *Server) getTranscript(w http.ResponseWriter, r *http.Request) {
	t, ok := s.ownedTranscript(w, r)
	if !ok {
		return
	}
	if !finished(t) {
		w.Header().Set("Retry-After", "1")
	}
	s.respondTranscript(w, r, t, http.StatusOK)
}

// respondTranscript answers with t, its corrected content included once it is completed.
func (s *Server) respondTranscript(w http.ResponseWriter, r *http.Request, t *tcsv1.Transcript, status int) {
	content, err := s.transcripts.Content(r.Context(), principalFrom(r.Context()).OrganizationID, t)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	writeJSON(w, status, apiview.NewTranscript(t, content))
}

// ownedTranscript reads the transcript of the {id} path variable for the caller's organization;
// it answers 404 or 403 itself and returns false when there is none to show.
func (s *Server) ownedTranscript(w http.ResponseWriter, r *http.Request) (*tcsv1.Transcript, bool) {
	t, _, ok := s.ownedTranscriptOrRecord(w, r)
	return t, ok
}

// ownedTranscriptOrRecord is ownedTranscript that also tells whether the transcript was read
// from its archived record rather than from its resource.
func (s *Server) ownedTranscriptOrRecord(w http.ResponseWriter, r *http.Request) (*tcsv1.Transcript, bool, bool) {
	t, archived, aerr := s.lookup(r.Context(), mux.Vars(r)["id"])
	if aerr != nil {
		s.writeAPIError(w, r, aerr)
		return nil, false, false
	}
	return t, archived, true
}

// lookup reads transcript id for the caller's organization, and tells whether it was read from
// its archived record: the transcripts service's Get, with its errors as the API's answers
// (404 when it does not exist, or is deleted, or an unconfirmed upload; 403 when another
// organization owns it).
func (s *Server) lookup(ctx context.Context, id string) (*tcsv1.Transcript, bool, *apiError) {
	t, archived, err := s.transcripts.Get(ctx, principalFrom(ctx).OrganizationID, id)
	if err != nil {
		return nil, false, lookupError(id, err)
	}
	return t, archived, nil
}

// lookupError is the API's answer to a failed read of transcript id by the transcripts
// service: 404 when it does not exist for the caller, 403 when another organization owns it.
func lookupError(id string, err error) *apiError {
	return scopedError(err, "id", fmt.Sprintf("No such transcript: %s.", quote(id)),
		fmt.Sprintf("This API key does not have access to transcript %s.", quote(id)))
}

// scopedError maps an error of the transcripts service to the API's answer naming param:
// notFound for transcripts.ErrNotFound, forbidden for transcripts.ErrForeign, a server error
// for anything else.
func scopedError(err error, param, notFound, forbidden string) *apiError {
	switch {
	case errors.Is(err, transcripts.ErrNotFound):
		return &apiError{Status: http.StatusNotFound, Type: ErrNotFound, Param: param, Message: notFound}
	case errors.Is(err, transcripts.ErrForeign):
		return &apiError{Status: http.StatusForbidden, Type: ErrForbidden, Param: param, Message: forbidden}
	}
	return serverError(err)
}

// terminal reports whether a transcript in phase p is done with the deterministic pass.
func terminal(p tcsv1.Phase) bool {
	return p == tcsv1.PhaseCompleted || p == tcsv1.PhaseFailed
}

// finished reports whether t is done: the deterministic pass and any AI pass queued for it.
func finished(t *tcsv1.Transcript) bool {
	return terminal(t.Status.Phase) && !(t.Status.Phase == tcsv1.PhaseCompleted && t.AIPassBusy())
}

// validLanguage accepts BCP 47-like tags: letters, digits and hyphens, 2 to 35 characters.
func validLanguage(s string) bool {
	if len(s) < 2 || len(s) > 35 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
