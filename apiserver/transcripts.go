package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/mux"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/blob"
	"tcs.dev/tcs/internal/formats"
	"tcs.dev/tcs/internal/ids"
	"tcs.dev/tcs/internal/limits"
	"tcs.dev/tcs/internal/pipeline"
)

// pasteFormats are the source formats a paste may declare.
var pasteFormats = []formats.Format{formats.TXT, formats.SRT, formats.VTT, formats.Markdown, formats.HTML, formats.JSON}

// createRequest is a validated POST /transcripts body.
type createRequest struct {
	SourceType tcsv1.SourceType
	Content    string
	Title      string
	Format     formats.Format
	Options    tcsv1.TranscriptOptions
}

// parseCreate validates a POST /transcripts body.
func parseCreate(obj map[string]json.RawMessage) (*createRequest, *apiError) {
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
	switch req.SourceType {
	case tcsv1.SourcePaste:
		if aerr := members(obj, "", "source_type", "content", "title", "source_format", "options"); aerr != nil {
			return nil, aerr
		}
	case tcsv1.SourceYouTube, tcsv1.SourceURL, tcsv1.SourceUpload:
		return nil, &apiError{Status: http.StatusUnprocessableEntity, Type: ErrUnprocessable, Param: "source_type",
			Message: fmt.Sprintf("source_type %q is not available on this server yet; send the text with source_type paste.", st)}
	default:
		return nil, invalid("source_type", fmt.Sprintf("source_type %q is not one of paste, youtube, url, upload.", st))
	}

	raw, ok = obj["content"]
	if !ok || isNull(raw) {
		return nil, invalid("content", "content is required for source_type paste.")
	}
	if req.Content, aerr = stringParam(raw, "content"); aerr != nil {
		return nil, aerr
	}
	if strings.TrimSpace(req.Content) == "" {
		return nil, invalid("content", "content is empty.")
	}
	if len(req.Content) > limits.MaxPasteContent {
		return nil, invalid("content", fmt.Sprintf("content is %d bytes; the limit is %d bytes (2 MB).", len(req.Content), limits.MaxPasteContent))
	}
	if raw, ok := obj["title"]; ok && !isNull(raw) {
		if req.Title, aerr = stringParam(raw, "title"); aerr != nil {
			return nil, aerr
		}
		req.Title = strings.TrimSpace(req.Title)
		if len(req.Title) > limits.MaxTitle {
			return nil, invalid("title", fmt.Sprintf("title is longer than %d bytes.", limits.MaxTitle))
		}
	}
	if raw, ok := obj["source_format"]; ok && !isNull(raw) {
		f, aerr := stringParam(raw, "source_format")
		if aerr != nil {
			return nil, aerr
		}
		if req.Format, aerr = oneOfFormats(f, pasteFormats); aerr != nil {
			return nil, aerr
		}
	}
	if raw, ok := obj["options"]; ok && !isNull(raw) {
		if req.Options, aerr = parseOptions(raw); aerr != nil {
			return nil, aerr
		}
	}
	return req, nil
}

func oneOfFormats(f string, allowed []formats.Format) (formats.Format, *apiError) {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		if string(a) == f {
			return a, nil
		}
		names[i] = string(a)
	}
	return "", invalid("source_format", fmt.Sprintf("source_format %q is not one of %s.", f, strings.Join(names, ", ")))
}

func parseOptions(raw json.RawMessage) (tcsv1.TranscriptOptions, *apiError) {
	var o tcsv1.TranscriptOptions
	obj, aerr := objectParam(raw, "options")
	if aerr != nil {
		return o, aerr
	}
	if aerr := members(obj, "options.", "ai_pass", "normalize_references"); aerr != nil {
		return o, aerr
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
	if o.AIPass.Enabled {
		return o, &apiError{Status: http.StatusUnprocessableEntity, Type: ErrUnprocessable, Param: "options.ai_pass.enabled",
			Message: "The AI validation pass is not available on this server yet; send the request without options.ai_pass.enabled."}
	}
	return o, nil
}

// createTranscript is POST /api/v1/transcripts.
func (s *Server) createTranscript(w http.ResponseWriter, r *http.Request) {
	if _, aerr := boolQuery(r, "wait"); aerr != nil {
		writeError(w, r, aerr)
		return
	}
	if _, aerr := intQuery(r, "timeout", limits.WaitTimeoutDefault, limits.WaitTimeoutMin, limits.WaitTimeoutMax); aerr != nil {
		writeError(w, r, aerr)
		return
	}
	obj, aerr := readJSONObject(w, r)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	req, aerr := parseCreate(obj)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	s.createPaste(w, r, req)
}

// createPaste corrects a pasted transcript inline and stores it already completed.
func (s *Server) createPaste(w http.ResponseWriter, r *http.Request, req *createRequest) {
	ctx := r.Context()
	org := principalFrom(ctx).OrganizationID
	input := []byte(req.Content)
	res, err := s.processor.Correct(input, req.Format, pipeline.CorrectionOptions(req.Options))
	if err != nil {
		var ce *pipeline.ContentError
		if errors.As(err, &ce) {
			writeError(w, r, invalid("content", ce.Error()+"."))
			return
		}
		s.serverError(w, r, err)
		return
	}
	id := ids.New("tr")
	keys := pipeline.KeysFor(org, id)
	if err := s.processor.Save(ctx, keys, input, res); err != nil {
		s.serverError(w, r, err)
		return
	}
	t := &tcsv1.Transcript{
		ObjectMeta: metav1.ObjectMeta{
			Name:      tcsv1.TranscriptName(id),
			Namespace: s.namespace,
			Labels: map[string]string{
				tcsv1.LabelOrganization: org,
				tcsv1.LabelSourceType:   string(req.SourceType),
			},
		},
		Spec: tcsv1.TranscriptSpec{
			ID:           id,
			Organization: org,
			Source: tcsv1.TranscriptSource{
				Type:     req.SourceType,
				Format:   string(req.Format),
				Title:    req.Title,
				InputRef: keys.Input,
			},
			Options: req.Options,
		},
	}
	if err := s.client.Create(ctx, t); err != nil {
		s.serverError(w, r, fmt.Errorf("creating transcript %s: %w", id, err))
		return
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := s.apiReader.Get(ctx, types.NamespacedName{Namespace: t.Namespace, Name: t.Name}, t); err != nil {
			return err
		}
		if t.Status.Phase == tcsv1.PhaseCompleted {
			return nil // the reconciler finished it first, with the same result
		}
		res.Complete(t, keys, s.now())
		return s.client.Status().Update(ctx, t)
	})
	if err != nil {
		// The resource exists and the reconciler completes it from the stored input.
		s.serverError(w, r, fmt.Errorf("completing transcript %s: %w", id, err))
		return
	}
	content := string(res.Content)
	writeJSON(w, http.StatusCreated, viewTranscript(t, &content))
}

// getTranscript is GET /api/v1/transcripts/{id}.
func (s *Server) getTranscript(w http.ResponseWriter, r *http.Request) {
	t, ok := s.ownedTranscript(w, r)
	if !ok {
		return
	}
	var content *string
	if t.Status.Phase == tcsv1.PhaseCompleted && t.Status.ContentRef != "" {
		data, err := s.processor.Content(r.Context(), t.Status.ContentRef)
		if err != nil && !errors.Is(err, blob.ErrNotFound) {
			s.serverError(w, r, fmt.Errorf("reading the content of %s: %w", t.Spec.ID, err))
			return
		}
		if err == nil {
			c := string(data)
			content = &c
		}
	}
	if !terminal(t.Status.Phase) {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, http.StatusOK, viewTranscript(t, content))
}

// ownedTranscript reads the transcript of the {id} path variable for the caller's organization;
// it answers 404 or 403 itself and returns false when there is none to show.
func (s *Server) ownedTranscript(w http.ResponseWriter, r *http.Request) (*tcsv1.Transcript, bool) {
	ctx := r.Context()
	id := mux.Vars(r)["id"]
	notFound := &apiError{Status: http.StatusNotFound, Type: ErrNotFound, Param: "id", Message: fmt.Sprintf("No such transcript: %q.", id)}
	if !ids.Valid("tr", id) {
		writeError(w, r, notFound)
		return nil, false
	}
	key := types.NamespacedName{Namespace: s.namespace, Name: tcsv1.TranscriptName(id)}
	t := &tcsv1.Transcript{}
	err := s.cache.Get(ctx, key, t)
	if apierrors.IsNotFound(err) || (err == nil && !terminal(t.Status.Phase)) {
		// The cache may lag behind a write of a moment ago: a transcript just created, or a
		// status just completed. Only settled transcripts are served from the cache alone.
		err = s.apiReader.Get(ctx, key, t)
	}
	switch {
	case apierrors.IsNotFound(err):
		writeError(w, r, notFound)
		return nil, false
	case err != nil:
		s.serverError(w, r, fmt.Errorf("reading transcript %s: %w", id, err))
		return nil, false
	}
	if t.Spec.Organization != principalFrom(ctx).OrganizationID {
		writeError(w, r, &apiError{Status: http.StatusForbidden, Type: ErrForbidden, Param: "id",
			Message: fmt.Sprintf("This API key does not have access to transcript %q.", id)})
		return nil, false
	}
	if t.Status.DeletedAt != nil {
		writeError(w, r, notFound)
		return nil, false
	}
	return t, true
}

// terminal reports whether a transcript in phase p is done with the deterministic pass.
func terminal(p tcsv1.Phase) bool {
	return p == tcsv1.PhaseCompleted || p == tcsv1.PhaseFailed
}
