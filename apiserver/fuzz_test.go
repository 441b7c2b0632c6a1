package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/domain/transcripts"
)

// checkAPIError fails t unless aerr is a clear answer: a 4xx of the spec's types whose
// message is short whatever the input was.
func checkAPIError(t *testing.T, aerr *apiError) {
	t.Helper()
	if aerr.Status < 400 || aerr.Status >= 500 || aerr.Type == "" || aerr.Message == "" {
		t.Fatalf("error %+v", aerr)
	}
	if len(aerr.Message) > 600 || len(aerr.Param) > maxEcho+len("…")+len("options.") {
		t.Fatalf("error repeats its input: message of %d bytes, param of %d", len(aerr.Message), len(aerr.Param))
	}
}

// FuzzReadCreate decodes a POST /transcripts body as the API does and validates it.
func FuzzReadCreate(f *testing.F) {
	for _, s := range []string{
		`{"source_type":"paste","content":"open your bibles to revelations","title":"Sunday","source_format":"txt"}`,
		`{"source_type":"youtube","url":"https://youtu.be/dQw4w9WgXcQ","options":{"ai_pass":{"enabled":true},"language":"pt-BR"}}`,
		`{"source_type":"url","url":"https://example.com/a.docx","source_format":"docx"}`,
		`{"source_type":"upload","transcript_id":"tr_abc"}`,
		`{"source_type":"paste","content":"x","options":{"categories":["bible","place","bible"],"thresholds":{"auto_apply":0.9,"suggest":0.5},"metadata":{"campus":"north","a.b":""}}}`,
		`{"source_type":"upload","transcript_id":"tr_abc","options":{"categories":[],"thresholds":{"suggest":1e-3},"metadata":{"":"x"}}}`,
		`{"source_type":"paste","content":"\ud800"}`, `{"source_type":"x"}`, `[]`, `{"a":`, ``, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/transcripts", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		obj, aerr := readJSONObject(httptest.NewRecorder(), r)
		if aerr != nil {
			checkAPIError(t, aerr)
			return
		}
		req, aerr := parseCreate(obj, nil)
		if aerr != nil {
			checkAPIError(t, aerr)
			if aerr.Status == http.StatusBadRequest && aerr.Param == "" && !strings.Contains(aerr.Message, "empty name") {
				t.Fatalf("a 400 without param: %+v", aerr)
			}
			return
		}
		if len(req.Title) > limits.MaxTitle || len(req.URL) > limits.MaxURL || len(req.Content) > limits.MaxPasteContent {
			t.Fatalf("accepted a title of %d bytes, a url of %d, a content of %d", len(req.Title), len(req.URL), len(req.Content))
		}
		if _, ok := createMembers[req.SourceType]; !ok {
			t.Fatalf("accepted source_type %q", req.SourceType)
		}
		checkOptions(t, req.Options)
	})
}

// checkOptions fails t unless o is within the bounds of the CRD's options.
func checkOptions(t *testing.T, o tcsv1.TranscriptOptions) {
	t.Helper()
	if len(o.Categories) == 0 && o.Categories != nil || len(o.Categories) > tcsv1.MaxCategories || len(o.Metadata) > tcsv1.MaxMetadataKeys {
		t.Fatalf("accepted %d categories and %d metadata keys", len(o.Categories), len(o.Metadata))
	}
	for _, c := range o.Categories {
		if !tcsv1.ValidCategory(c) {
			t.Fatalf("accepted category %q", c)
		}
	}
	for k, v := range o.Metadata {
		if !tcsv1.ValidMetadataKey(k) || len(v) > tcsv1.MaxMetadataValueBytes || !utf8.ValidString(v) {
			t.Fatalf("accepted metadata %q: %q", k, v)
		}
	}
	if th := o.Thresholds; th != nil {
		if *th == (tcsv1.Thresholds{}) || transcripts.CheckThresholds(*th) != nil {
			t.Fatalf("accepted thresholds %+v", *th)
		}
	}
}

// FuzzListQuery reads the query of GET /transcripts as the API does.
func FuzzListQuery(f *testing.F) {
	for _, s := range []string{
		"limit=10&status=completed&source_type=paste", "created[gte]=1700000000&created[lte]=2026-01-02T03:04:05Z",
		"starting_after=tr_abc", "starting_after=tr_a&ending_before=tr_b", "limit=0", "limit=999999999999999999999",
		"status=" + strings.Repeat("x", 200), "created[gte]=%zz", "limit=1&limit=2",
		"metadata[campus]=north&metadata[series.id]=x", "metadata[a][b]=c", "metadata=x", "metadata[k]=a&metadata[k]=b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		r := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/api/v1/transcripts", RawQuery: query}, Header: http.Header{}}
		limit, _, after, before, err := parseListQuery(r)
		if err != nil {
			var aerr *apiError
			if !errors.As(err, &aerr) {
				t.Fatalf("a refusal that is not the API's error: %v", err)
			}
			checkAPIError(t, aerr)
			if aerr.Param == "" {
				t.Fatalf("a 400 without param: %+v", aerr)
			}
			return
		}
		if limit < 1 || limit > 100 || after != "" && before != "" {
			t.Fatalf("accepted limit %d, starting_after %q and ending_before %q", limit, after, before)
		}
	})
}

// FuzzStringParam decodes JSON string members, refusing invalid UTF-8 and lone surrogates.
func FuzzStringParam(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud83d\ude00"`, `"\ud800"`, `"\\ud800"`, `"\udc00\ud800"`, `1`, `null`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, aerr := stringParam(json.RawMessage(raw), "title")
		if aerr != nil {
			checkAPIError(t, aerr)
			return
		}
		// encoding/json would turn a lone surrogate into U+FFFD: such a string is refused.
		if hasLoneSurrogate(raw) || !utf8.ValidString(s) {
			t.Fatalf("stringParam(%q) = %q, accepted", raw, s)
		}
	})
}
