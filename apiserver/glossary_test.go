package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/platform/results"
)

// glossaryCall sends a request of the glossary's routes with API key key and extra headers
// given as name, value pairs.
func (h *harness) glossaryCall(t *testing.T, method, path, key, contentType, body string, extra ...string) response {
	t.Helper()
	return h.request(t, method, path, "Bearer "+key, contentType, []byte(body), extra...)
}

// addEntry adds an entry through the API and returns the answer's body.
func (h *harness) addEntry(t *testing.T, key, body string) map[string]any {
	t.Helper()
	r := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries", key, "application/json", body)
	if r.status != http.StatusCreated {
		t.Fatalf("adding %s: %d %s", body, r.status, r.raw)
	}
	return r.body
}

// entryTerms returns the terms of the entries of a glossary answer.
func entryTerms(t *testing.T, r response) []string {
	t.Helper()
	data, ok := r.body["data"].([]any)
	if !ok {
		t.Fatalf("no data in %s", r.raw)
	}
	var terms []string
	for _, e := range data {
		terms = append(terms, e.(map[string]any)["term"].(string))
	}
	return terms
}

// etagVersion returns the version an answer's ETag names.
func etagVersion(t *testing.T, r response) string {
	t.Helper()
	etag := r.header.Get("ETag")
	if len(etag) < 3 || etag[0] != '"' || etag[len(etag)-1] != '"' {
		t.Fatalf("ETag %q is not a quoted version", etag)
	}
	return etag[1 : len(etag)-1]
}

func TestGlossaryEntriesAreAddedReadUpdatedAndDeletedThroughTheAPI(t *testing.T) {
	h := newHarness(t)
	a := h.keyA.Value

	empty := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary", a, "", "")
	if empty.status != http.StatusOK || empty.body["object"] != "glossary" || empty.body["version"] != "" ||
		len(entryTerms(t, empty)) != 0 || empty.header.Get("ETag") != "" {
		t.Fatalf("the glossary of a new organization: %d %v, ETag %q", empty.status, empty.body, empty.header.Get("ETag"))
	}

	created := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries", a, "application/json",
		`{"term":" Pastor Okonkwo ","forms":["pastor okonquo","pastor oconquo"],"sounds_like":true,"auto":true,"category":"name"}`)
	if created.status != http.StatusCreated {
		t.Fatalf("create: %d %s", created.status, created.raw)
	}
	e := created.body
	id, _ := e["id"].(string)
	if !strings.HasPrefix(id, "gle_") || e["object"] != "glossary_entry" || e["term"] != "Pastor Okonkwo" ||
		fmt.Sprint(e["forms"]) != "[pastor okonquo pastor oconquo]" || e["sounds_like"] != true || e["auto"] != true ||
		e["category"] != "name" || e["updated_by"] != h.keyA.ID || e["updated_at"] == nil {
		t.Fatalf("created entry %s", created.raw)
	}
	v1 := etagVersion(t, created)

	got := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary/entries/"+id, a, "", "")
	if got.status != http.StatusOK || got.body["term"] != "Pastor Okonkwo" || etagVersion(t, got) != v1 {
		t.Fatalf("get: %d %s, ETag %q, want version %s", got.status, got.raw, got.header.Get("ETag"), v1)
	}
	whole := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary", a, "", "")
	if whole.body["version"] != v1 || etagVersion(t, whole) != v1 || !slices.Equal(entryTerms(t, whole), []string{"Pastor Okonkwo"}) {
		t.Fatalf("glossary: %s, ETag %q", whole.raw, whole.header.Get("ETag"))
	}

	// An update replaces the members it gives and keeps the others.
	updated := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries/"+id, a, "application/json", `{"auto":false,"category":"glossary"}`)
	if updated.status != http.StatusOK || updated.body["auto"] != false || updated.body["category"] != "glossary" ||
		updated.body["term"] != "Pastor Okonkwo" || fmt.Sprint(updated.body["forms"]) != "[pastor okonquo pastor oconquo]" ||
		updated.body["sounds_like"] != true || etagVersion(t, updated) == v1 {
		t.Fatalf("update: %d %s", updated.status, updated.raw)
	}

	deleted := h.glossaryCall(t, http.MethodDelete, "/api/v1/glossary/entries/"+id, a, "", "")
	if deleted.status != http.StatusOK || deleted.body["id"] != id || deleted.body["object"] != "glossary_entry" || deleted.body["deleted"] != true {
		t.Fatalf("delete: %d %s", deleted.status, deleted.raw)
	}
	wantError(t, h.glossaryCall(t, http.MethodGet, "/api/v1/glossary/entries/"+id, a, "", ""), http.StatusNotFound, ErrNotFound, "id")
	wantError(t, h.glossaryCall(t, http.MethodDelete, "/api/v1/glossary/entries/"+id, a, "", ""), http.StatusNotFound, ErrNotFound, "id")
	wantError(t, h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries/"+id, a, "application/json", `{"auto":true}`), http.StatusNotFound, ErrNotFound, "id")

	// Each write is in the organization's audit trail, by the key.
	page, err := h.results.ListAudit(t.Context(), results.AuditListOptions{Organization: h.keyA.OrganizationID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range page.Entries {
		if e.Actor != h.keyA.ID {
			t.Errorf("audit entry %s by %q, want the key %s", e.Action, e.Actor, h.keyA.ID)
		}
		actions = append(actions, e.Action)
	}
	if want := []string{"GlossaryEntryDeleted", "GlossaryEntryUpdated", "GlossaryEntryAdded"}; !slices.Equal(actions, want) {
		t.Errorf("audit trail %v, want %v", actions, want)
	}
}

func TestTheGlossaryIsPagedInItsOrder(t *testing.T) {
	h := newHarness(t)
	a := h.keyA.Value
	var ids []string
	for _, term := range []string{"Zorbanath", "Bethel Tabernacle", "Okonkwo"} {
		ids = append(ids, h.addEntry(t, a, `{"term":"`+term+`"}`)["id"].(string))
	}
	first := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary?limit=2", a, "", "")
	if !slices.Equal(entryTerms(t, first), []string{"Zorbanath", "Bethel Tabernacle"}) || first.body["has_more"] != true {
		t.Fatalf("first page %s", first.raw)
	}
	rest := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary?limit=2&starting_after="+ids[1], a, "", "")
	if !slices.Equal(entryTerms(t, rest), []string{"Okonkwo"}) || rest.body["has_more"] != false {
		t.Fatalf("second page %s", rest.raw)
	}
	for _, tc := range []struct{ query, param string }{
		{"limit=0", "limit"},
		{"limit=1001", "limit"},
		{"limit=ten", "limit"},
		{"starting_after=gle_missing", "starting_after"},
		{"starting_after=", "starting_after"},
		{"ending_before=" + ids[2], "ending_before"},
	} {
		wantError(t, h.glossaryCall(t, http.MethodGet, "/api/v1/glossary?"+tc.query, a, "", ""), http.StatusBadRequest, ErrInvalidRequest, tc.param)
	}
}

func TestAnotherOrganizationNeverSeesNorChangesTheGlossary(t *testing.T) {
	h := newHarness(t)
	a, b := h.keyA.Value, h.keyB.Value
	id := h.addEntry(t, a, `{"term":"Pastor Okonkwo","forms":["pastor okonquo"],"auto":true}`)["id"].(string)
	before := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary", a, "", "")

	if r := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary", b, "", ""); r.status != http.StatusOK || len(entryTerms(t, r)) != 0 {
		t.Errorf("B's glossary: %d %s", r.status, r.raw)
	}
	wantError(t, h.glossaryCall(t, http.MethodGet, "/api/v1/glossary/entries/"+id, b, "", ""), http.StatusNotFound, ErrNotFound, "id")
	wantError(t, h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries/"+id, b, "application/json", `{"term":"Okonkwo"}`), http.StatusNotFound, ErrNotFound, "id")
	wantError(t, h.glossaryCall(t, http.MethodDelete, "/api/v1/glossary/entries/"+id, b, "", ""), http.StatusNotFound, ErrNotFound, "id")
	if r := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary/export", b, "", ""); r.status != http.StatusOK || string(r.raw) != glossary.CSVHeader+"\n" {
		t.Errorf("B's export: %d %q", r.status, r.raw)
	}
	// B's writes of its whole glossary are its own, even at A's version.
	if r := h.glossaryCall(t, http.MethodPut, "/api/v1/glossary", b, "application/json", `{"entries":[{"term":"Zorbanath"}]}`); r.status != http.StatusOK {
		t.Errorf("B's replace: %d %s", r.status, r.raw)
	}
	if r := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/import", b, "text/csv", glossary.CSVHeader+"\nBethel,,,,\n"); r.status != http.StatusOK {
		t.Errorf("B's import: %d %s", r.status, r.raw)
	}
	wantError(t, h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries", b, "application/json", `{"term":"Okonkwo"}`, "If-Match", before.header.Get("ETag")),
		http.StatusConflict, ErrConflict, "If-Match")

	after := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary", a, "", "")
	if string(after.raw) != string(before.raw) || after.header.Get("ETag") != before.header.Get("ETag") {
		t.Errorf("A's glossary changed by B: %s, was %s", after.raw, before.raw)
	}
	if r := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary", b, "", ""); !slices.Equal(entryTerms(t, r), []string{"Bethel"}) {
		t.Errorf("B's glossary %s", r.raw)
	}
}

func TestGlossaryWritesAreRefusedWithTheFieldAtFault(t *testing.T) {
	h := newHarness(t)
	a := h.keyA.Value
	first := h.addEntry(t, a, `{"term":"Pastor Okonkwo","forms":["pastor okonquo"]}`)
	id := first["id"].(string)
	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprintf(`{"term":"Zorbanath%d"}`, i)
	}
	for _, tc := range []struct {
		name, method, path, body string
		param, msg               string
	}{
		{"no term", http.MethodPost, "/api/v1/glossary/entries", `{"forms":["x"]}`, "term", "required"},
		{"an empty term", http.MethodPost, "/api/v1/glossary/entries", `{"term":"  "}`, "term", "1 to 100 bytes"},
		{"a term too long", http.MethodPost, "/api/v1/glossary/entries", `{"term":"` + strings.Repeat("a", 101) + `"}`, "term", "1 to 100 bytes"},
		{"a term of another type", http.MethodPost, "/api/v1/glossary/entries", `{"term":7}`, "term", "must be a string"},
		{"an empty second form", http.MethodPost, "/api/v1/glossary/entries", `{"term":"Zorbanath","forms":["zorba",""]}`, "forms[1]", "1 to 100 bytes"},
		{"a form of another type", http.MethodPost, "/api/v1/glossary/entries", `{"term":"Zorbanath","forms":["zorba",3]}`, "forms[1]", "must be a string"},
		{"too many forms", http.MethodPost, "/api/v1/glossary/entries", `{"term":"Zorbanath","forms":[` + strings.Repeat(`"x",`, 20) + `"x"]}`, "forms", "at most 20 forms"},
		{"a category of the engine", http.MethodPost, "/api/v1/glossary/entries", `{"term":"Zorbanath","category":"bible"}`, "category", "category of the engine"},
		{"a form of another entry", http.MethodPost, "/api/v1/glossary/entries", `{"term":"Zorbanath","forms":["Pastor Okonquo"]}`, "forms[0]", id},
		{"an unknown member", http.MethodPost, "/api/v1/glossary/entries", `{"term":"Zorbanath","spelling":"x"}`, "spelling", "Unknown parameter"},
		{"an update of a boolean", http.MethodPost, "/api/v1/glossary/entries/" + id, `{"auto":"yes"}`, "auto", "must be a boolean"},
		{"an update to an engine category", http.MethodPost, "/api/v1/glossary/entries/" + id, `{"category":"place"}`, "category", "category of the engine"},
		{"a replace without entries", http.MethodPut, "/api/v1/glossary", `{}`, "entries", "required"},
		{"a replace of an entry that is no object", http.MethodPut, "/api/v1/glossary", `{"entries":[{"term":"A1"},"B"]}`, "entries[1]", "must be an object"},
		{"a replace of a bad term", http.MethodPut, "/api/v1/glossary", `{"entries":[{"term":"Zorbanath"},{"term":"Bethel"},{"term":"Okonkwo"},{"term":"..."}]}`, "entries[3].term", "letter or a digit"},
		{"a replace of a bad form", http.MethodPut, "/api/v1/glossary", `{"entries":[{"term":"Zorbanath","forms":["a","b|c"]}]}`, "entries[0].forms[1]", "must not hold |"},
		{"a replace of an unknown member", http.MethodPut, "/api/v1/glossary", `{"entries":[{"term":"Zorbanath","x":1}]}`, "entries[0].x", "Unknown parameter"},
		{"a replace of too many entries", http.MethodPut, "/api/v1/glossary", `{"entries":[` + strings.Join(many, ",") + `]}`, "entries", "at most 1000 entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.glossaryCall(t, tc.method, tc.path, a, "application/json", tc.body)
			wantError(t, r, http.StatusBadRequest, ErrInvalidRequest, tc.param)
			if msg, _ := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q does not mention %q", msg, tc.msg)
			}
		})
	}
	if r := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary", a, "", ""); !slices.Equal(entryTerms(t, r), []string{"Pastor Okonkwo"}) ||
		r.body["data"].([]any)[0].(map[string]any)["updated_at"] != first["updated_at"] {
		t.Fatalf("after refused writes the glossary is %s", r.raw)
	}
}

func TestAWriteAtAStaleIfMatchIsAConflict(t *testing.T) {
	h := newHarness(t)
	a := h.keyA.Value
	first := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries", a, "application/json", `{"term":"Zorbanath"}`)
	id := first.body["id"].(string)
	stale := first.header.Get("ETag")
	second := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries", a, "application/json", `{"term":"Bethel"}`, "If-Match", stale)
	if second.status != http.StatusCreated {
		t.Fatalf("a write at the current version: %d %s", second.status, second.raw)
	}
	current := second.header.Get("ETag")
	for _, tc := range []struct{ name, method, path, ctype, body string }{
		{"an add", http.MethodPost, "/api/v1/glossary/entries", "application/json", `{"term":"Okonkwo"}`},
		{"an update", http.MethodPost, "/api/v1/glossary/entries/" + id, "application/json", `{"auto":true}`},
		{"a delete", http.MethodDelete, "/api/v1/glossary/entries/" + id, "", ""},
		{"a replace", http.MethodPut, "/api/v1/glossary", "application/json", `{"entries":[]}`},
		{"an import", http.MethodPost, "/api/v1/glossary/import", "text/csv", glossary.CSVHeader + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.glossaryCall(t, tc.method, tc.path, a, tc.ctype, tc.body, "If-Match", stale)
			wantError(t, r, http.StatusConflict, ErrConflict, "If-Match")
			if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "Fetch the glossary again") {
				t.Errorf("message %q does not say to fetch the glossary again", msg)
			}
		})
	}
	for _, bad := range []string{`"1", "2"`, `"a b"`} {
		wantError(t, h.glossaryCall(t, http.MethodDelete, "/api/v1/glossary/entries/"+id, a, "", "", "If-Match", bad), http.StatusBadRequest, ErrInvalidRequest, "If-Match")
	}
	if r := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary", a, "", ""); r.header.Get("ETag") != current || len(entryTerms(t, r)) != 2 {
		t.Fatalf("after refused writes the glossary is %s at %s, want 2 entries at %s", r.raw, r.header.Get("ETag"), current)
	}
	// At the current version (weak or strong, or "*"), the write lands.
	for _, m := range []string{"W/" + current, "*"} {
		r := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries/"+id, a, "application/json", `{"auto":true}`, "If-Match", m)
		if r.status != http.StatusOK {
			t.Fatalf("If-Match %s: %d %s", m, r.status, r.raw)
		}
	}
}

func TestTheGlossaryRoundTripsThroughCSVOverHTTP(t *testing.T) {
	h := newHarness(t)
	a := h.keyA.Value
	file := "\ufeffTerm,Forms,Sounds_Like,Auto,Category\r\n" +
		"Pastor Okonkwo,pastor okonquo|pastor oconquo,true,yes,name\r\n" +
		"\"Bethel, the Tabernacle\",beth el tabernacle,,0,church\r\n" +
		"'=Zorbanath,,false,true,\r\n"
	imported := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/import", a, "text/csv; charset=utf-8", file)
	if imported.status != http.StatusOK || !slices.Equal(entryTerms(t, imported), []string{"Pastor Okonkwo", "Bethel, the Tabernacle", "=Zorbanath"}) {
		t.Fatalf("import: %d %s", imported.status, imported.raw)
	}
	exported := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary/export", a, "", "")
	want := glossary.CSVHeader + "\n" +
		"Pastor Okonkwo,pastor okonquo|pastor oconquo,true,true,name\n" +
		"\"Bethel, the Tabernacle\",beth el tabernacle,false,false,church\n" +
		"'=Zorbanath,,false,true,\n"
	if exported.status != http.StatusOK || string(exported.raw) != want {
		t.Fatalf("export: %d\n%s\nwant\n%s", exported.status, exported.raw, want)
	}
	if ct, cd := exported.header.Get("Content-Type"), exported.header.Get("Content-Disposition"); ct != "text/csv; charset=utf-8" ||
		cd != "attachment; filename=glossary-"+h.keyA.OrganizationID+".csv" {
		t.Errorf("export Content-Type %q, Content-Disposition %q", ct, cd)
	}
	if exported.header.Get("ETag") != imported.header.Get("ETag") {
		t.Errorf("export ETag %q, import's %q", exported.header.Get("ETag"), imported.header.Get("ETag"))
	}
	// The exported file imports back to the same glossary: the same ids, who and when.
	again := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/import", a, "text/csv", string(exported.raw))
	if again.status != http.StatusOK || !jsonEqual(t, again.body["data"], imported.body["data"]) {
		t.Fatalf("import of the export: %d %s\nwant the data of %s", again.status, again.raw, imported.raw)
	}

	for _, tc := range []struct{ name, ctype, body, msg string }{
		{"a bad form on line 3", "text/csv", glossary.CSVHeader + "\nBethel,,,,\nZorbanath,zorba|,,,\n", "line 3, column 2 (forms): form 2: must be 1 to 100 bytes long, got 0."},
		{"a term given twice", "text/csv", glossary.CSVHeader + "\nOkonkwo,,,,\nokonkwo,,,,\n", "line 3, column 1 (term)"},
		{"a bad header", "text/csv", "word,forms\nOkonkwo,x\n", "line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/import", a, tc.ctype, tc.body)
			wantError(t, r, http.StatusBadRequest, ErrInvalidRequest, "csv")
			if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q does not name %q", msg, tc.msg)
			}
		})
	}
	wantError(t, h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/import", a, "application/json", `{"entries":[]}`),
		http.StatusUnsupportedMediaType, ErrInvalidRequest, "")
	big := glossary.CSVHeader + "\n" + strings.Repeat("Zorbanath,,,,\n", glossary.MaxCSVBytes/14+1)
	wantError(t, h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/import", a, "text/csv", big), http.StatusRequestEntityTooLarge, ErrInvalidRequest, "csv")

	if r := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary/export", a, "", ""); string(r.raw) != want {
		t.Fatalf("after refused imports the export is\n%s", r.raw)
	}
}

// jsonEqual reports whether a and b encode to the same JSON.
func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

func TestGlossaryRoutesHaveTheirRateClasses(t *testing.T) {
	h := newHarness(t)
	a := h.keyA.Value
	id := h.addEntry(t, a, `{"term":"Zorbanath"}`)["id"].(string)
	// The spec's default limits: 600 reads and 60 creates a minute.
	for _, tc := range []struct {
		method, path, ctype, body, limit string
	}{
		{http.MethodGet, "/api/v1/glossary", "", "", "600"},
		{http.MethodGet, "/api/v1/glossary/entries/" + id, "", "", "600"},
		{http.MethodGet, "/api/v1/glossary/export", "", "", "600"},
		{http.MethodPost, "/api/v1/glossary/entries", "application/json", `{"term":"Bethel"}`, "60"},
		{http.MethodPost, "/api/v1/glossary/entries/" + id, "application/json", `{"auto":true}`, "60"},
		{http.MethodPut, "/api/v1/glossary", "application/json", `{"entries":[{"term":"Zorbanath"}]}`, "60"},
		{http.MethodPost, "/api/v1/glossary/import", "text/csv", glossary.CSVHeader + "\nZorbanath,,,,\n", "60"},
		{http.MethodDelete, "/api/v1/glossary/entries/" + id, "", "", "60"},
	} {
		r := h.glossaryCall(t, tc.method, tc.path, a, tc.ctype, tc.body)
		if r.status/100 != 2 || r.header.Get("X-RateLimit-Limit") != tc.limit {
			t.Errorf("%s %s: %d, X-RateLimit-Limit %q, want %s; %s", tc.method, tc.path, r.status, r.header.Get("X-RateLimit-Limit"), tc.limit, r.raw)
		}
	}
}

func TestAnAddWithAnIdempotencyKeyIsMadeOnce(t *testing.T) {
	h := newHarness(t)
	a := h.keyA.Value
	first := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries", a, "application/json", `{"term":"Zorbanath"}`, "Idempotency-Key", "gl-1")
	again := h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries", a, "application/json", `{"term":"Zorbanath"}`, "Idempotency-Key", "gl-1")
	if first.status != http.StatusCreated || again.status != http.StatusCreated || again.header.Get(HeaderIdempotentReplayed) != "true" ||
		again.body["id"] != first.body["id"] || again.header.Get("ETag") == "" || again.header.Get("ETag") != first.header.Get("ETag") {
		t.Fatalf("first %d %s (ETag %q), again %d %s (replayed %q, ETag %q)", first.status, first.raw, first.header.Get("ETag"),
			again.status, again.raw, again.header.Get(HeaderIdempotentReplayed), again.header.Get("ETag"))
	}
	if r := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary", a, "", ""); len(entryTerms(t, r)) != 1 {
		t.Fatalf("glossary %s", r.raw)
	}
}

func TestAPasteIsCorrectedAtOnceByAGlossaryEntryAddedThroughTheAPI(t *testing.T) {
	h := newHarness(t)
	a := h.keyA.Value
	text := "Today pastor okonquo preached on John 3:16."
	before := h.paste(t, a, map[string]any{"source_type": "paste", "content": text})
	if before.status != http.StatusCreated || before.body["content"] != text {
		t.Fatalf("paste before the entry: %d %s", before.status, before.raw)
	}
	h.addEntry(t, a, `{"term":"Pastor Okonkwo","forms":["pastor okonquo"],"auto":true,"category":"name"}`)

	after := h.paste(t, a, map[string]any{"source_type": "paste", "content": text})
	if after.status != http.StatusCreated || after.body["content"] != "Today Pastor Okonkwo preached on John 3:16." {
		t.Fatalf("paste after the entry: %d %s", after.status, after.raw)
	}
	changes := h.do(t, http.MethodGet, "/api/v1/transcripts/"+after.body["id"].(string)+"/changes?category=name", a, "", nil)
	if data, _ := changes.body["data"].([]any); len(data) != 1 || data[0].(map[string]any)["replacement"] != "Pastor Okonkwo" {
		t.Fatalf("changes of category name: %s", changes.raw)
	}
	// Another organization's paste is not.
	if b := h.paste(t, h.keyB.Value, map[string]any{"source_type": "paste", "content": text}); b.body["content"] != text {
		t.Fatalf("B's paste: %s", b.raw)
	}
}

func TestConcurrentUpdatesOfAnEntryWithoutIfMatchAllLand(t *testing.T) {
	h := newHarness(t)
	a := h.keyA.Value
	id := h.addEntry(t, a, `{"term":"Zorbanath"}`)["id"].(string)
	bodies := []string{`{"auto":true}`, `{"sounds_like":true}`, `{"category":"name"}`, `{"forms":["zorba nath"]}`}
	statuses := make([]int, len(bodies))
	var wg sync.WaitGroup
	for i, body := range bodies {
		wg.Go(func() {
			statuses[i] = h.glossaryCall(t, http.MethodPost, "/api/v1/glossary/entries/"+id, a, "application/json", body).status
		})
	}
	wg.Wait()
	got := h.glossaryCall(t, http.MethodGet, "/api/v1/glossary/entries/"+id, a, "", "")
	if slices.ContainsFunc(statuses, func(s int) bool { return s != http.StatusOK }) || got.body["auto"] != true || got.body["sounds_like"] != true ||
		got.body["category"] != "name" || fmt.Sprint(got.body["forms"]) != "[zorba nath]" {
		t.Fatalf("statuses %v; the entry is %s", statuses, got.raw)
	}
}

func TestAPasteOfAnOrganizationWhoseStoredGlossaryIsInvalidIsAServerErrorNamingIt(t *testing.T) {
	h := newHarness(t)
	org := h.keyA.OrganizationID
	// Written around the service, as kubectl would: two entries of the same words.
	g := &tcsv1.Glossary{
		ObjectMeta: metav1.ObjectMeta{Name: glossary.ObjectName(org), Namespace: h.namespace},
		Spec: tcsv1.GlossarySpec{Organization: org, Entries: []tcsv1.GlossaryEntry{
			{ID: "gle_a1", Term: "Zorbanath"}, {ID: "gle_b2", Term: "zorbanath"},
		}},
	}
	if err := h.client.Create(t.Context(), g); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": "Zorbanath preached."})
		if r.status == http.StatusInternalServerError {
			wantError(t, r, http.StatusInternalServerError, ErrServer, "")
			if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "glossary is invalid") || !strings.Contains(msg, "entries[1]") {
				t.Fatalf("message %q does not name the glossary's fault", msg)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the paste is still %d %s", r.status, r.raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Another organization's pastes are not affected.
	if r := h.paste(t, h.keyB.Value, map[string]any{"source_type": "paste", "content": "Zorbanath preached."}); r.status != http.StatusCreated {
		t.Fatalf("B's paste: %d %s", r.status, r.raw)
	}
}
