package apiserver

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
)

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
	return formats.ByFilename(name)
}

// createUpload is POST /api/v1/transcripts/uploads: the upload grant.
func (s *Server) createUpload(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	obj, aerr := readJSONObject(w, r)
	if aerr != nil {
		return aerr
	}
	if aerr := members(obj, "", "filename", "source_format", "title", "options"); aerr != nil {
		return aerr
	}
	filename, aerr := requiredString(obj, "filename", "")
	if aerr != nil {
		return aerr
	}
	if len(filename) > limits.MaxFilename || strings.ContainsAny(filename, "/\\\x00") {
		return invalid("filename", fmt.Sprintf("filename must be a file name of at most %d bytes, without a path.", limits.MaxFilename))
	}
	format, aerr := formatParam(obj, remoteFormats, false)
	if aerr != nil {
		return aerr
	}
	if format == "" {
		format = formatOfFilename(filename)
	}
	title, aerr := titleParam(obj)
	if aerr != nil {
		return aerr
	}
	var opts tcsv1.TranscriptOptions
	if raw, ok := obj["options"]; ok && !isNull(raw) {
		if opts, aerr = parseOptions(raw); aerr != nil {
			return aerr
		}
	}
	org := principalFrom(ctx).OrganizationID
	id, _ := s.newTranscriptID(ctx)
	expires := metav1.NewTime(s.clock.Now().Add(s.uploads.expiry).Truncate(time.Second))
	contentType := uploadContentTypes[format]
	url, headers, err := s.store.SignedPutURL(ctx, pipeline.KeysFor(org, id).Input, contentType, s.uploads.expiry)
	if err != nil {
		return fmt.Errorf("signing an upload URL: %w", err)
	}
	t, err := s.transcripts.Make(ctx, org, transcripts.Draft{ID: id, Resumed: resumedRun(ctx), Options: opts,
		Source: tcsv1.TranscriptSource{Type: tcsv1.SourceUpload, Format: string(format), Title: title, Filename: filename, UploadExpiresAt: &expires}})
	if err != nil {
		return fmt.Errorf("creating the upload grant %s: %w", id, err)
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
	return nil
}

// confirmUpload turns an upload grant whose file arrived into a pending transcript.
func (s *Server) confirmUpload(r *http.Request, req *createRequest) (*tcsv1.Transcript, error) {
	ctx := r.Context()
	id := req.TranscriptID
	t, err := s.transcripts.ConfirmUpload(ctx, principalFrom(ctx).OrganizationID, id, transcripts.Confirmation{
		Options: req.Options, Given: req.OptionsGiven, Record: requestRecord(ctx), Now: s.metaNow()})
	if err != nil {
		return nil, confirmError(id, err)
	}
	s.effected(ctx, id)
	return t, nil
}

// confirmError is the API's answer to a refused confirmation of upload id; an error that is
// none of the service's refusals is returned as it is (a server error).
func confirmError(id string, err error) error {
	var (
		pe *transcripts.ParamError
		ce *transcripts.ConflictError
		ue *transcripts.UnprocessableError
	)
	switch {
	case errors.As(err, &pe):
		return invalid(pe.Param, pe.Message)
	case errors.As(err, &ce):
		return &apiError{Status: http.StatusConflict, Type: ErrConflict, Param: ce.Param, Message: ce.Message}
	case errors.As(err, &ue):
		return &apiError{Status: http.StatusUnprocessableEntity, Type: ErrUnprocessable, Param: ue.Param, Message: ue.Message}
	}
	return scopedError(err, "transcript_id", fmt.Sprintf("No such upload: %s.", quote(id)),
		fmt.Sprintf("This API key does not have access to upload %s.", quote(id)))
}

// uploadError answers a refused upload with the API's error object.
func (s *Server) uploadError(w http.ResponseWriter, r *http.Request, status int, message string) {
	typ := ErrInvalidRequest
	switch {
	case status == http.StatusForbidden:
		typ = ErrForbidden
	case status >= 500:
		typ = ErrServer
	}
	s.answerError(w, r, &apiError{Status: status, Type: typ, Message: message})
}
