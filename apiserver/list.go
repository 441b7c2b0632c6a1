package apiserver

import (
	"errors"
	"net/http"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/transcripts"
)

// IndexTranscriptOrganization is the cache index of transcripts by their organization id.
const IndexTranscriptOrganization = transcripts.IndexOrganization

// TranscriptOrganizationIndex extracts the index value of IndexTranscriptOrganization.
func TranscriptOrganizationIndex(obj client.Object) []string {
	return transcripts.OrganizationIndex(obj)
}

// parseListQuery reads the query of GET /transcripts (the transcripts service's list query):
// the page size, the filters and the cursors (starting_after, ending_before).
func parseListQuery(r *http.Request) (limit int, o transcripts.ListOptions, after, before string, err error) {
	o, err = transcripts.ParseListQuery(r.URL.Query())
	if err != nil {
		return 0, o, "", "", paramError(err)
	}
	return o.Limit, o, o.StartingAfter, o.EndingBefore, nil
}

// paramError is the API's 400 of a *transcripts.ParamError; another error is returned as it is.
func paramError(err error) error {
	var pe *transcripts.ParamError
	if errors.As(err, &pe) {
		return invalid(pe.Param, pe.Message)
	}
	return err
}

// listTranscripts is GET /api/v1/transcripts: the organization's transcripts, newest first.
func (s *Server) listTranscripts(w http.ResponseWriter, r *http.Request) error {
	_, o, _, _, err := parseListQuery(r)
	if err != nil {
		return err
	}
	page, hasMore, err := s.transcripts.List(r.Context(), principalFrom(r.Context()).OrganizationID, o)
	if err != nil {
		return paramError(err)
	}
	out := listView[apiview.Transcript]{Object: "list", Data: make([]apiview.Transcript, 0, len(page)), HasMore: hasMore, URL: "/api/v1/transcripts"}
	for _, t := range page {
		// Lists carry no content: fetch a transcript for its text.
		out.Data = append(out.Data, apiview.NewTranscript(t, nil))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// listView is the API's list object.
type listView[T any] struct {
	Object  string `json:"object"`
	Data    []T    `json:"data"`
	HasMore bool   `json:"has_more"`
	URL     string `json:"url"`
}
