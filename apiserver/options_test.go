package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// optionsGiven are options of every kind the spec names, as a client sends them; optionsShown
// is how every response shows them (categories sorted without duplicates).
const optionsGiven = `{"categories":["place","bible","place"],"thresholds":{"auto_apply":0.95,"suggest":0.5},"metadata":{"campus":"north","series.id":"hope-2024"}}`

var optionsShown = map[string]any{
	"ai_pass": map[string]any{"enabled": false, "apply": false}, "normalize_references": false,
	"categories": []any{"bible", "place"},
	"thresholds": map[string]any{"auto_apply": 0.95, "suggest": 0.5},
	"metadata":   map[string]any{"campus": "north", "series.id": "hope-2024"},
}

// wantOptions fails the test unless r's transcript shows want as its options.
func wantOptions(t *testing.T, what string, r response, want map[string]any) {
	t.Helper()
	if got := r.body["options"]; !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s: options %s; want %s", what, g, w)
	}
}

// TestOptionsAreShownOnEveryCreatePath shows that the options the spec names are accepted on
// every create path (paste, url, youtube, an upload's grant and its confirmation) and shown,
// normalized, in the answer, in GET and in the list.
func TestOptionsAreShownOnEveryCreatePath(t *testing.T) {
	h := newHarness(t)
	create := func(body string) response {
		t.Helper()
		return h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "application/json", []byte(body))
	}
	var made []string
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"paste", `{"source_type":"paste","content":"read revelations 21:4","options":` + optionsGiven + `}`, 201},
		{"url", `{"source_type":"url","url":"http://127.0.0.1:9/sermon.txt","source_format":"txt","options":` + optionsGiven + `}`, 202},
		{"youtube", `{"source_type":"youtube","url":"https://youtu.be/dQw4w9WgXcQ","options":` + optionsGiven + `}`, 202},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := create(tc.body)
			if r.status != tc.status {
				t.Fatalf("create: %d %s", r.status, r.raw)
			}
			wantOptions(t, "the answer", r, optionsShown)
			id := r.body["id"].(string)
			wantOptions(t, "GET", h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil), optionsShown)
			made = append(made, id)
		})
	}
	t.Run("upload", func(t *testing.T) {
		// The grant's options and the confirmation's join.
		g := h.grant(t, h.keyA.Value, `{"filename":"a.txt","options":{"categories":["bible","place"],"metadata":{"campus":"north"}}}`)
		if code := put(t, g, []byte("read revelations 3:20\n"), nil); code != http.StatusOK && code != http.StatusCreated {
			t.Fatalf("PUT: %d", code)
		}
		id := g["transcript_id"].(string)
		r := create(`{"source_type":"upload","transcript_id":"` + id + `","options":{"thresholds":{"auto_apply":0.95,"suggest":0.5},"metadata":{"series.id":"hope-2024","campus":"north"}}}`)
		if r.status != 202 {
			t.Fatalf("confirm: %d %s", r.status, r.raw)
		}
		wantOptions(t, "the confirmation", r, optionsShown)
		wantOptions(t, "GET", h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil), optionsShown)
		made = append(made, id)
	})
	t.Run("an upload's confirmation contradicting its grant", func(t *testing.T) {
		g := h.grant(t, h.keyA.Value, `{"filename":"a.txt","options":{"categories":["bible"],"thresholds":{"auto_apply":0.6},"metadata":{"campus":"north"}}}`)
		if code := put(t, g, []byte("read revelations 3:20\n"), nil); code != http.StatusOK && code != http.StatusCreated {
			t.Fatalf("PUT: %d", code)
		}
		id := g["transcript_id"].(string)
		confirm := func(options string) response {
			return create(`{"source_type":"upload","transcript_id":"` + id + `","options":` + options + `}`)
		}
		wantError(t, confirm(`{"categories":["place"]}`), 400, ErrInvalidRequest, "options.categories")
		wantError(t, confirm(`{"thresholds":{"auto_apply":0.7}}`), 400, ErrInvalidRequest, "options.thresholds.auto_apply")
		wantError(t, confirm(`{"thresholds":{"suggest":0.7}}`), 400, ErrInvalidRequest, "options.thresholds.suggest")
		wantError(t, confirm(`{"metadata":{"campus":"south"}}`), 400, ErrInvalidRequest, "options.metadata.campus")
		// 20 keys of its own and the grant's campus are more than a transcript may have.
		wantError(t, confirm(`{"metadata":{`+manyPairs(20)+`}}`), 400, ErrInvalidRequest, "options.metadata")
		// Nothing was confirmed: agreeing options confirm it.
		r := confirm(`{"categories":["bible"],"metadata":{"series.id":"x"}}`)
		if r.status != 202 {
			t.Fatalf("confirm: %d %s", r.status, r.raw)
		}
		wantOptions(t, "the confirmation", r, map[string]any{
			"ai_pass": map[string]any{"enabled": false, "apply": false}, "normalize_references": false,
			"categories": []any{"bible"}, "thresholds": map[string]any{"auto_apply": 0.6},
			"metadata": map[string]any{"campus": "north", "series.id": "x"},
		})
	})
	t.Run("without options", func(t *testing.T) {
		r := create(`{"source_type":"paste","content":"read revelations 21:4"}`)
		wantOptions(t, "the answer", r, map[string]any{"ai_pass": map[string]any{"enabled": false, "apply": false}, "normalize_references": false, "metadata": map[string]any{}})
	})
	t.Run("list", func(t *testing.T) {
		r := h.do(t, http.MethodGet, "/api/v1/transcripts?limit=100&metadata[series.id]=hope-2024", h.keyA.Value, "", nil)
		if got := dataIDs(t, r); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(made))) || len(made) != 4 {
			t.Fatalf("listed %v; want %v", got, made)
		}
		for _, d := range r.body["data"].([]any) {
			if got := d.(map[string]any)["options"]; !reflect.DeepEqual(got, optionsShown) {
				t.Errorf("listed options %v; want %v", got, optionsShown)
			}
		}
	})
	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct{ body, param string }{
			{`{"source_type":"paste","content":"x","options":{"categories":[]}}`, "options.categories"},
			{`{"source_type":"url","url":"http://127.0.0.1:9/a.txt","source_format":"txt","options":{"categories":["Bible"]}}`, "options.categories[0]"},
			{`{"source_type":"youtube","url":"https://youtu.be/dQw4w9WgXcQ","options":{"thresholds":{"auto_apply":0.5,"suggest":0.6}}}`, "options.thresholds.suggest"},
			{`{"source_type":"paste","content":"x","options":{"thresholds":{"auto_apply":2}}}`, "options.thresholds.auto_apply"},
			{`{"source_type":"paste","content":"x","options":{"thresholds":{"drop":0.1}}}`, "options.thresholds.drop"},
			{`{"source_type":"paste","content":"x","options":{"metadata":{"campus":5}}}`, "options.metadata.campus"},
			{`{"source_type":"paste","content":"x","options":{"metadata":{` + manyPairs(21) + `}}}`, "options.metadata"},
		} {
			wantError(t, create(tc.body), 400, ErrInvalidRequest, tc.param)
		}
		g := h.do(t, http.MethodPost, "/api/v1/transcripts/uploads", h.keyA.Value, "application/json", []byte(`{"filename":"a.txt","options":{"metadata":{"a b":"c"}}}`))
		wantError(t, g, 400, ErrInvalidRequest, "options.metadata.a b")
	})
}

// manyPairs returns n metadata pairs k0…, as JSON members.
func manyPairs(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"k%d":"v"`, i)
	}
	return strings.Join(parts, ",")
}

// TestPasteHonoursCategoriesAndThresholds shows that the API's inline pass of a paste corrects
// only the categories asked for, demotes the changes below auto_apply to suggestions and drops
// those below suggest, in the content, the summary and the change list.
func TestPasteHonoursCategoriesAndThresholds(t *testing.T) {
	h := newHarness(t)
	const input = "read Revelations 21:4 and first corinthians 13 4 near capernum"
	for _, tc := range []struct {
		name, options, content string
		summary                map[string]any
		statusOf               map[string]string
	}{
		{"no options", `{}`, "read Revelation 21:4 and 1 Corinthians 13 4 near Capernaum",
			map[string]any{"total": 3.0, "auto_applied": 3.0, "needs_review": 0.0, "ai_flagged": 0.0, "by_category": map[string]any{"bible": 2.0, "place": 1.0}},
			map[string]string{"Revelations": "auto_applied", "first corinthians": "auto_applied", "capernum": "auto_applied"}},
		{"a category filter leaves place out", `{"categories":["bible"]}`, "read Revelation 21:4 and 1 Corinthians 13 4 near capernum",
			map[string]any{"total": 2.0, "auto_applied": 2.0, "needs_review": 0.0, "ai_flagged": 0.0, "by_category": map[string]any{"bible": 2.0}},
			map[string]string{"Revelations": "auto_applied", "first corinthians": "auto_applied"}},
		{"auto_apply demotes a change to a suggestion", `{"thresholds":{"auto_apply":0.95}}`, "read Revelations 21:4 and 1 Corinthians 13 4 near capernum",
			map[string]any{"total": 3.0, "auto_applied": 1.0, "needs_review": 2.0, "ai_flagged": 0.0, "by_category": map[string]any{"bible": 2.0, "place": 1.0}},
			map[string]string{"Revelations": "needs_review", "first corinthians": "auto_applied", "capernum": "needs_review"}},
		{"suggest drops the weaker changes", `{"categories":["bible","place"],"thresholds":{"suggest":0.95}}`, "read Revelations 21:4 and 1 Corinthians 13 4 near capernum",
			map[string]any{"total": 1.0, "auto_applied": 1.0, "needs_review": 0.0, "ai_flagged": 0.0, "by_category": map[string]any{"bible": 1.0}},
			map[string]string{"first corinthians": "auto_applied"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "application/json",
				[]byte(`{"source_type":"paste","content":"`+input+`","options":`+tc.options+`}`))
			if r.status != 201 {
				t.Fatalf("paste: %d %s", r.status, r.raw)
			}
			if r.body["content"] != tc.content {
				t.Errorf("content %q; want %q", r.body["content"], tc.content)
			}
			if got := r.body["changes_summary"]; !reflect.DeepEqual(got, tc.summary) {
				t.Errorf("changes_summary %v; want %v", got, tc.summary)
			}
			changes := h.do(t, http.MethodGet, "/api/v1/transcripts/"+r.body["id"].(string)+"/changes?limit=100", h.keyA.Value, "", nil)
			statusOf := map[string]string{}
			for _, c := range changes.body["data"].([]any) {
				c := c.(map[string]any)
				statusOf[c["original"].(string)] = c["status"].(string)
			}
			if !reflect.DeepEqual(statusOf, tc.statusOf) {
				t.Errorf("changes %v; want %v", statusOf, tc.statusOf)
			}
		})
	}
}

// TestOptionsSurviveArchiving shows that an archived transcript shows the options it was
// made with, in GET, in the list and after an AI pass brings it back, and that the metadata
// filter selects live and archived transcripts alike.
func TestOptionsSurviveArchiving(t *testing.T) {
	testOptionsSurviveArchiving(t, "")
}

// TestOptionsSurviveArchivingPostgres is TestOptionsSurviveArchiving with the results store
// on a real PostgreSQL server.
func TestOptionsSurviveArchivingPostgres(t *testing.T) {
	testOptionsSurviveArchiving(t, newPostgresDatabase(t))
}

func testOptionsSurviveArchiving(t *testing.T, dsn string) {
	rs := openResults(t, dsn)
	h := newHarnessWith(t, harnessOptions{results: rs})
	paste := func(key, campus, series string) string {
		t.Helper()
		r := h.paste(t, key, map[string]any{"source_type": "paste", "content": "read revelations 21:4",
			"options": map[string]any{"categories": []string{"bible"}, "thresholds": map[string]any{"auto_apply": 0.9},
				"metadata": map[string]string{"campus": campus, "series": series}}})
		if r.status != 201 {
			t.Fatalf("paste: %d %s", r.status, r.raw)
		}
		return r.body["id"].(string)
	}
	northHope := paste(h.keyA.Value, "north", "hope")
	southHope := paste(h.keyA.Value, "south", "hope")
	northFaith := paste(h.keyA.Value, "north", "faith")
	otherOrg := paste(h.keyB.Value, "north", "hope")
	before := string(h.do(t, http.MethodGet, "/api/v1/transcripts/"+northHope, h.keyA.Value, "", nil).raw)
	h.runArchiver(t, rs, northHope, southHope, northFaith, otherOrg)
	liveNorthHope := paste(h.keyA.Value, "north", "hope")
	liveSouthFaith := paste(h.keyA.Value, "south", "faith")
	waitList(t, h, 5)

	if got := string(h.do(t, http.MethodGet, "/api/v1/transcripts/"+northHope, h.keyA.Value, "", nil).raw); got != before {
		t.Errorf("GET of the archived transcript:\n%s\nwant\n%s", got, before)
	}
	for _, tc := range []struct {
		filter url.Values
		want   []string
	}{
		{url.Values{"metadata[campus]": {"north"}}, []string{liveNorthHope, northFaith, northHope}},
		{url.Values{"metadata[campus]": {"north"}, "metadata[series]": {"hope"}}, []string{liveNorthHope, northHope}},
		{url.Values{"metadata[series]": {"faith"}}, []string{liveSouthFaith, northFaith}},
		{url.Values{"metadata[campus]": {"west"}}, nil},
		{url.Values{"metadata[room]": {"north"}}, nil},
		{url.Values{"metadata[campus]": {"north"}, "limit": {"1"}, "starting_after": {liveNorthHope}}, []string{northFaith}},
	} {
		r := h.do(t, http.MethodGet, "/api/v1/transcripts?"+tc.filter.Encode(), h.keyA.Value, "", nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", tc.filter.Encode(), r.status, r.raw)
		}
		if got := dataIDs(t, r); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v; want %v", tc.filter.Encode(), got, tc.want)
		}
		for _, d := range r.body["data"].([]any) {
			if m := d.(map[string]any)["options"].(map[string]any)["metadata"].(map[string]any); tc.filter.Get("metadata[campus]") != "" && m["campus"] != tc.filter.Get("metadata[campus]") {
				t.Errorf("%s listed metadata %v", tc.filter.Encode(), m)
			}
		}
	}
	for _, q := range []string{"metadata%5Ba+b%5D=c", "metadata=north", "metadata[campus]=a&metadata[campus]=b"} {
		r := h.do(t, http.MethodGet, "/api/v1/transcripts?"+q, h.keyA.Value, "", nil)
		if r.status != 400 {
			t.Errorf("%s: %d %s; want a 400", q, r.status, r.raw)
		}
	}
	// An AI pass brings the archived transcript back into the cluster with its options.
	r := h.do(t, http.MethodPost, "/api/v1/transcripts/"+southHope+"/ai_pass", h.keyA.Value, "application/json", []byte(`{}`))
	if r.status != 202 {
		t.Fatalf("AI pass: %d %s", r.status, r.raw)
	}
	want := map[string]any{"ai_pass": map[string]any{"enabled": false, "apply": false}, "normalize_references": false,
		"categories": []any{"bible"}, "thresholds": map[string]any{"auto_apply": 0.9},
		"metadata": map[string]any{"campus": "south", "series": "hope"}}
	wantOptions(t, "the AI pass's answer", r, want)
	wantOptions(t, "GET after the AI pass", h.do(t, http.MethodGet, "/api/v1/transcripts/"+southHope, h.keyA.Value, "", nil), want)
	r = h.do(t, http.MethodGet, "/api/v1/transcripts?metadata[campus]=south&metadata[series]=hope", h.keyA.Value, "", nil)
	if got := dataIDs(t, r); !slices.Equal(got, []string{southHope}) {
		t.Errorf("the transcript the AI pass brought back is listed as %v; want once", got)
	}
}

// Every option beyond its bounds, however far, is refused with a 400 naming it and an answer
// that does not repeat the input, and nothing is created.
func TestOptionsBeyondTheirBoundsAreRefused(t *testing.T) {
	h := newHarness(t)
	long := func(n int) string { return strings.Repeat("a", n) }
	manyItems := `["` + strings.Repeat(`bible","`, 100_000) + `place"]`
	before := h.transcriptCount(t)
	for _, tc := range []struct {
		name, path, options, param string
	}{
		{"100,001 categories", "/api/v1/transcripts", `{"categories":` + manyItems + `}`, "options.categories"},
		{"a category of 1 MB", "/api/v1/transcripts", `{"categories":["` + long(1<<20) + `"]}`, "options.categories[0]"},
		{"100,000 metadata keys", "/api/v1/transcripts", `{"metadata":{` + manyPairs(100_000) + `}}`, "options.metadata"},
		{"a metadata key of 1 MB", "/api/v1/transcripts", `{"metadata":{"` + long(1<<20) + `":"v"}}`, "options.metadata." + long(64-len("options.metadata.")) + "…"},
		{"a metadata value of 1 MB", "/api/v1/transcripts", `{"metadata":{"k":"` + long(1<<20) + `"}}`, "options.metadata.k"},
		{"an upload grant's 100,000 metadata keys", "/api/v1/transcripts/uploads", `{"metadata":{` + manyPairs(100_000) + `}}`, "options.metadata"},
		{"a threshold of a thousand digits", "/api/v1/transcripts", `{"thresholds":{"suggest":0.` + strings.Repeat("1", 1000) + `}}`, "options.thresholds.suggest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"source_type":"paste","content":"hi","options":` + tc.options + `}`
			if strings.HasSuffix(tc.path, "/uploads") {
				body = `{"filename":"a.txt","options":` + tc.options + `}`
			}
			r := h.do(t, http.MethodPost, tc.path, h.keyA.Value, "application/json", []byte(body))
			wantError(t, r, http.StatusBadRequest, ErrInvalidRequest, tc.param)
			if len(r.raw) > 1024 {
				t.Errorf("the answer is %d bytes: it repeats the input", len(r.raw))
			}
		})
	}
	if after := h.transcriptCount(t); after != before {
		t.Fatalf("%d transcripts made by refused requests", after-before)
	}
}
