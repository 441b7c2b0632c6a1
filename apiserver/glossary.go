package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
)

// glossaryURL is the path of the organization's glossary.
const glossaryURL = "/api/v1/glossary"

// glossaryEntryView is the API's glossary_entry object.
type glossaryEntryView struct {
	ID         string   `json:"id"`
	Object     string   `json:"object"`
	Term       string   `json:"term"`
	Forms      []string `json:"forms"`
	SoundsLike bool     `json:"sounds_like"`
	Auto       bool     `json:"auto"`
	Category   string   `json:"category"`
	UpdatedBy  string   `json:"updated_by"`
	UpdatedAt  *string  `json:"updated_at"`
}

// glossaryView is the API's glossary object: a page of its entries and its version.
type glossaryView struct {
	Object  string              `json:"object"`
	Version string              `json:"version"`
	Data    []glossaryEntryView `json:"data"`
	HasMore bool                `json:"has_more"`
	URL     string              `json:"url"`
}

// deletedGlossaryEntryView is the answer of a delete.
type deletedGlossaryEntryView struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

func newGlossaryEntryView(e *tcsv1.GlossaryEntry) glossaryEntryView {
	v := glossaryEntryView{ID: e.ID, Object: "glossary_entry", Term: e.Term, Forms: e.Forms, SoundsLike: e.SoundsLike,
		Auto: e.Auto, Category: e.Category, UpdatedBy: e.UpdatedBy}
	if v.Forms == nil {
		v.Forms = []string{}
	}
	if v.Category == "" {
		v.Category = correction.CategoryGlossary
	}
	if e.UpdatedAt != nil {
		at := e.UpdatedAt.UTC().Format(time.RFC3339)
		v.UpdatedAt = &at
	}
	return v
}

func newGlossaryView(entries []tcsv1.GlossaryEntry, version string, hasMore bool) glossaryView {
	v := glossaryView{Object: "glossary", Version: version, Data: make([]glossaryEntryView, len(entries)), HasMore: hasMore, URL: glossaryURL}
	for i := range entries {
		v.Data[i] = newGlossaryEntryView(&entries[i])
	}
	return v
}

// newGlossaryManager returns the glossary service of the API: writes through c, reads through
// reader when there is one.
func newGlossaryManager(namespace string, c client.Client, reader client.Reader) *glossary.Manager {
	return &glossary.Manager{Client: c, Reader: reader, Namespace: namespace}
}

// correctionOptions returns the options of the deterministic pass of a transcript of org with
// options o: pipeline.CorrectionOptions and the organization's compiled glossary.
func (s *Server) correctionOptions(ctx context.Context, org string, o tcsv1.TranscriptOptions) (correction.Options, error) {
	opts := pipeline.CorrectionOptions(o)
	if s.compiled == nil {
		return opts, nil
	}
	g, err := s.compiled.Compiled(ctx, org)
	var invalid *glossary.InvalidError
	switch {
	case errors.As(err, &invalid):
		return opts, &apiError{Status: http.StatusInternalServerError, Type: ErrServer,
			Message: "The organization's glossary is invalid; fix it (PUT /api/v1/glossary) and submit the transcript again: " + invalid.Err.Error()}
	case err != nil:
		return opts, fmt.Errorf("reading the glossary of %s: %w", org, err)
	}
	opts.Glossary = g
	return opts, nil
}

// glossaryError is the API's answer to an error of the glossary service; another error is
// returned as it is.
func glossaryError(err error) error {
	var (
		fe *glossary.FieldError
		ce *glossary.CSVError
		cf *glossary.ConflictError
	)
	switch {
	case errors.As(err, &fe):
		return invalid(fe.Field, fe.Field+": "+fe.Message+".")
	case errors.As(err, &ce):
		return invalid("csv", ce.Error()+".")
	case errors.As(err, &cf):
		msg := "The glossary was changed by someone else at the same time; fetch the glossary again (GET /api/v1/glossary) and retry."
		if cf.Version != "" {
			msg = fmt.Sprintf("The glossary is at version %s, not the If-Match version %s: it changed since you read it. Fetch the glossary again (GET /api/v1/glossary) and reapply your change with its ETag.",
				quote(cf.Current), quote(cf.Version))
		}
		return &apiError{Status: http.StatusConflict, Type: ErrConflict, Param: "If-Match", Message: msg}
	}
	return err
}

// entryNotFound is the 404 of a glossary entry id.
func entryNotFound(id string, err error) error {
	if errors.Is(err, glossary.ErrNotFound) {
		return &apiError{Status: http.StatusNotFound, Type: ErrNotFound, Param: "id", Message: fmt.Sprintf("No such glossary entry: %s.", quote(id))}
	}
	return glossaryError(err)
}

// ifMatch reads the If-Match header: the glossary version a write is made at, "" for none
// (or "*").
func ifMatch(r *http.Request) (string, error) {
	tag, aerr := ifMatchTag(r, "the ETag of GET /api/v1/glossary")
	if aerr != nil {
		return "", aerr
	}
	return tag, nil
}

// setETag answers with the glossary's version, when it has one.
func setETag(w http.ResponseWriter, version string) {
	if version != "" {
		w.Header().Set("ETag", `"`+version+`"`)
	}
}

// getGlossary is GET /api/v1/glossary: a page of the organization's glossary, in its order.
func (s *Server) getGlossary(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	for k := range q {
		if k != "limit" && k != "starting_after" {
			return invalid(k, fmt.Sprintf("Unknown parameter %s.", quote(k)))
		}
	}
	opts := glossary.ListOptions{After: q.Get("starting_after")}
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < 1 || n > glossary.MaxPageSize {
			return invalid("limit", fmt.Sprintf("limit must be an integer from 1 to %d.", glossary.MaxPageSize))
		}
		opts.Limit = n
	}
	if q.Has("starting_after") && opts.After == "" {
		return invalid("starting_after", "starting_after must be the id of an entry.")
	}
	p, err := s.glossary.List(r.Context(), principalFrom(r.Context()).OrganizationID, opts)
	var fe *glossary.FieldError
	switch {
	case errors.As(err, &fe) && fe.Field == "after":
		return invalid("starting_after", fmt.Sprintf("No glossary entry %s to start after.", quote(opts.After)))
	case err != nil:
		return glossaryError(err)
	}
	setETag(w, p.Version)
	writeJSON(w, http.StatusOK, newGlossaryView(p.Entries, p.Version, p.HasMore))
	return nil
}

// getGlossaryEntry is GET /api/v1/glossary/entries/{id}.
func (s *Server) getGlossaryEntry(w http.ResponseWriter, r *http.Request) error {
	id := mux.Vars(r)["id"]
	e, version, err := s.glossary.Entry(r.Context(), principalFrom(r.Context()).OrganizationID, id)
	if err != nil {
		return entryNotFound(id, err)
	}
	setETag(w, version)
	writeJSON(w, http.StatusOK, newGlossaryEntryView(e))
	return nil
}

// entryMembers are the members of an entry a request gives; readOnly are those of the
// glossary_entry object a request may send back, which are ignored.
var (
	entryMembers  = []string{"term", "forms", "sounds_like", "auto", "category"}
	entryReadOnly = []string{"id", "object", "updated_by", "updated_at"}
)

// parseEntry reads the members of an entry into in (those given replace its fields); prefix
// names them in errors ("entries[3]."). With required, term must be given.
func parseEntry(obj map[string]json.RawMessage, prefix string, in *glossary.Input, required, readOnly bool) error {
	allowed := entryMembers
	if readOnly {
		allowed = append(append([]string{}, entryMembers...), entryReadOnly...)
	}
	if err := members(obj, prefix, allowed...); err != nil {
		return err
	}
	if raw, ok := obj["term"]; ok {
		term, err := stringParam(raw, prefix+"term")
		if err != nil {
			return err
		}
		in.Term = term
	} else if required {
		return invalid(prefix+"term", prefix+"term is required.")
	}
	if raw, ok := obj["forms"]; ok {
		var forms []json.RawMessage
		if err := json.Unmarshal(raw, &forms); err != nil || isNull(raw) {
			return invalid(prefix+"forms", prefix+"forms must be an array of strings.")
		}
		in.Forms = make([]string, len(forms))
		for i, f := range forms {
			s, err := stringParam(f, fmt.Sprintf("%sforms[%d]", prefix, i))
			if err != nil {
				return err
			}
			in.Forms[i] = s
		}
	}
	for name, dst := range map[string]*bool{"sounds_like": &in.SoundsLike, "auto": &in.Auto} {
		if raw, ok := obj[name]; ok {
			b, err := boolParam(raw, prefix+name)
			if err != nil {
				return err
			}
			*dst = b
		}
	}
	if raw, ok := obj["category"]; ok {
		c, err := stringParam(raw, prefix+"category")
		if err != nil {
			return err
		}
		if c == correction.CategoryGlossary {
			c = "" // the default, as the entry shows it
		}
		in.Category = c
	}
	return nil
}

// createGlossaryEntry is POST /api/v1/glossary/entries: an entry added to the glossary.
func (s *Server) createGlossaryEntry(w http.ResponseWriter, r *http.Request) error {
	version, err := ifMatch(r)
	if err != nil {
		return err
	}
	obj, aerr := readJSONObject(w, r)
	if aerr != nil {
		return aerr
	}
	var in glossary.Input
	if err := parseEntry(obj, "", &in, true, false); err != nil {
		return err
	}
	ctx := r.Context()
	p := principalFrom(ctx)
	e, newVersion, err := s.glossary.Add(ctx, p.OrganizationID, p.KeyID, in, version)
	if err != nil {
		return glossaryError(err)
	}
	s.glossaryWritten(ctx, p, newVersion, audit.GlossaryEntryAdded, e.ID, "API key %s added %q to the glossary", p.KeyID, e.Term)
	setETag(w, newVersion)
	writeJSON(w, http.StatusCreated, newGlossaryEntryView(e))
	return nil
}

// updateGlossaryEntry is POST /api/v1/glossary/entries/{id}: the members given replace those
// of the entry, the others are kept.
func (s *Server) updateGlossaryEntry(w http.ResponseWriter, r *http.Request) error {
	id := mux.Vars(r)["id"]
	version, err := ifMatch(r)
	if err != nil {
		return err
	}
	obj, aerr := readJSONObject(w, r)
	if aerr != nil {
		return aerr
	}
	if err := parseEntry(obj, "", &glossary.Input{}, false, false); err != nil {
		return err
	}
	ctx := r.Context()
	p := principalFrom(ctx)
	// The members not given are those of the entry as read: the write is made at the version
	// read, and read again when another write came between (unless the caller named one).
	for attempt := 0; ; attempt++ {
		cur, read, err := s.glossary.Entry(ctx, p.OrganizationID, id)
		if err != nil {
			return entryNotFound(id, err)
		}
		at := version
		if at == "" {
			at = read
		}
		in := glossary.InputOf(*cur)
		if err := parseEntry(obj, "", &in, false, false); err != nil {
			return err
		}
		e, newVersion, err := s.glossary.Update(ctx, p.OrganizationID, p.KeyID, id, in, at)
		var cf *glossary.ConflictError
		switch {
		case errors.As(err, &cf) && version == "" && attempt < 4:
			continue
		case errors.As(err, &cf) && version == "":
			return glossaryError(&glossary.ConflictError{Current: cf.Current}) // the caller named no version
		case err != nil:
			return entryNotFound(id, err)
		}
		s.glossaryWritten(ctx, p, newVersion, audit.GlossaryEntryUpdated, id, "API key %s changed %q of the glossary", p.KeyID, e.Term)
		setETag(w, newVersion)
		writeJSON(w, http.StatusOK, newGlossaryEntryView(e))
		return nil
	}
}

// deleteGlossaryEntry is DELETE /api/v1/glossary/entries/{id}.
func (s *Server) deleteGlossaryEntry(w http.ResponseWriter, r *http.Request) error {
	id := mux.Vars(r)["id"]
	version, err := ifMatch(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	p := principalFrom(ctx)
	newVersion, err := s.glossary.Delete(ctx, p.OrganizationID, id, version)
	if err != nil {
		return entryNotFound(id, err)
	}
	s.glossaryWritten(ctx, p, newVersion, audit.GlossaryEntryDeleted, id, "API key %s removed entry %s from the glossary", p.KeyID, id)
	setETag(w, newVersion)
	writeJSON(w, http.StatusOK, deletedGlossaryEntryView{ID: id, Object: "glossary_entry", Deleted: true})
	return nil
}

// replaceGlossary is PUT /api/v1/glossary: {"entries":[…]} become the whole glossary, in their
// order; an entry whose term the glossary has keeps its id.
func (s *Server) replaceGlossary(w http.ResponseWriter, r *http.Request) error {
	version, err := ifMatch(r)
	if err != nil {
		return err
	}
	obj, aerr := readJSONObject(w, r)
	if aerr != nil {
		return aerr
	}
	if err := members(obj, "", "entries"); err != nil {
		return err
	}
	raw, ok := obj["entries"]
	if !ok {
		return invalid("entries", "entries is required: the whole glossary, an array of entries ([] empties it).")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || isNull(raw) {
		return invalid("entries", "entries must be an array of entries.")
	}
	if len(items) > tcsv1.MaxGlossaryEntries {
		return invalid("entries", fmt.Sprintf("A glossary holds at most %d entries, got %d.", tcsv1.MaxGlossaryEntries, len(items)))
	}
	ins := make([]glossary.Input, len(items))
	for i, item := range items {
		prefix := fmt.Sprintf("entries[%d].", i)
		var eobj map[string]json.RawMessage
		if err := json.Unmarshal(item, &eobj); err != nil || eobj == nil {
			return invalid(strings.TrimSuffix(prefix, "."), fmt.Sprintf("%s must be an object.", strings.TrimSuffix(prefix, ".")))
		}
		if err := parseEntry(eobj, prefix, &ins[i], true, true); err != nil {
			return err
		}
	}
	ctx := r.Context()
	p := principalFrom(ctx)
	g, err := s.glossary.Replace(ctx, p.OrganizationID, p.KeyID, ins, version)
	if err != nil {
		return glossaryError(err)
	}
	s.glossaryWritten(ctx, p, g.Version, audit.GlossaryReplaced, "", "API key %s replaced the glossary with %d entries", p.KeyID, len(g.Entries))
	setETag(w, g.Version)
	writeJSON(w, http.StatusOK, newGlossaryView(g.Entries, g.Version, false))
	return nil
}

// exportGlossary is GET /api/v1/glossary/export: the glossary in the CSV format.
func (s *Server) exportGlossary(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	org := principalFrom(ctx).OrganizationID
	g, err := s.glossary.Get(ctx, org)
	if err != nil {
		return glossaryError(err)
	}
	var buf bytes.Buffer
	if err := glossary.WriteCSV(&buf, g.Entries); err != nil {
		return fmt.Errorf("exporting the glossary of %s: %w", org, err)
	}
	setETag(w, g.Version)
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "glossary-" + org + ".csv"}))
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// importGlossary is POST /api/v1/glossary/import: a CSV file (text/csv) replaces the whole
// glossary, all or nothing.
func (s *Server) importGlossary(w http.ResponseWriter, r *http.Request) error {
	version, err := ifMatch(r)
	if err != nil {
		return err
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "text/csv" {
		return &apiError{Status: http.StatusUnsupportedMediaType, Type: ErrInvalidRequest,
			Message: fmt.Sprintf("Content-Type %s is not supported; send the file as text/csv.", quote(r.Header.Get("Content-Type")))}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, glossary.MaxCSVBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &apiError{Status: http.StatusRequestEntityTooLarge, Type: ErrInvalidRequest, Param: "csv",
				Message: fmt.Sprintf("The file is larger than %d bytes (%d MiB).", glossary.MaxCSVBytes, glossary.MaxCSVBytes>>20)}
		}
		return invalid("csv", "The file could not be read.")
	}
	ctx := r.Context()
	p := principalFrom(ctx)
	g, err := s.glossary.Import(ctx, p.OrganizationID, p.KeyID, bytes.NewReader(body), version)
	if err != nil {
		return glossaryError(err)
	}
	s.glossaryWritten(ctx, p, g.Version, audit.GlossaryImported, "", "API key %s imported a glossary of %d entries", p.KeyID, len(g.Entries))
	setETag(w, g.Version)
	writeJSON(w, http.StatusOK, newGlossaryView(g.Entries, g.Version, false))
	return nil
}

// glossaryWritten follows a write of p's organization's glossary, now at version: it records
// it in the audit trail and waits, at most cacheWait, until this replica's cache holds the
// version, so that the next pass here (an inline paste) applies it.
func (s *Server) glossaryWritten(ctx context.Context, p Principal, version string, action audit.Action, target, format string, args ...any) {
	s.auditGlossary(ctx, p.OrganizationID, p.KeyID, action, target, fmt.Sprintf(format, args...))
	if s.cache == nil || version == "" {
		return
	}
	deadline := time.Now().Add(cacheWait)
	key := types.NamespacedName{Namespace: s.namespace, Name: glossary.ObjectName(p.OrganizationID)}
	for {
		cached := &tcsv1.Glossary{}
		if err := s.cache.Get(ctx, key, cached); err == nil {
			if cmp, err := resourceversion.CompareResourceVersion(cached.ResourceVersion, version); err != nil || cmp >= 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// auditRetryFor bounds how long recording an audit entry is retried while the results store
// is unavailable.
const auditRetryFor = 15 * time.Second

// auditGlossary records a write of org's glossary by API key keyID in the organization's
// audit trail (the results store), retrying for up to auditRetryFor as the dashboard does;
// an entry that could not be recorded is logged.
func (s *Server) auditGlossary(ctx context.Context, org, keyID string, action audit.Action, target, message string) {
	if s.results == nil {
		return
	}
	now := s.clock.Now()
	e := &results.AuditEntry{ID: ids.NewSortable("aud", now), Organization: org, Time: now,
		Actor: keyID, Action: string(action), Target: target, Message: message}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditRetryFor)
	defer cancel()
	wait := 50 * time.Millisecond
	for {
		err := s.results.PutAudit(ctx, e)
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			s.log.Error(err, "the audit entry could not be recorded in the results store", "id", e.ID, "action", e.Action, "organization", org)
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}
