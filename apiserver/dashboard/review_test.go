package dashboard

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
)

// sermonText is a paste with an automatic change (revelations), two suggestions (capernum,
// effesus) and a word the engine leaves (Jarius) that a person corrects.
const sermonText = "This morning we read revelations 21 together.\nThey walked past capernum, and Jarius met them at the well.\nThen paul went to effesus by the sea.\n"

// review sends form to the decisions of transcript id as the member.
func (e *addEnv) review(t *testing.T, id string, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	form.Set("csrf", e.session.CSRF)
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/dashboard/o/"+e.org+"/transcripts/"+id+"/decisions", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(&http.Cookie{Name: e.cookie, Value: e.session.Token})
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

// page gets path below the organization's pages as the member.
func (e *addEnv) page(t *testing.T, path string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/dashboard/o/"+e.org+path, nil)
	req.AddCookie(&http.Cookie{Name: e.cookie, Value: e.session.Token})
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

// startReview adds sermonText as the member and returns the environment, ready to decide,
// and the new transcript's id.
func startReview(t *testing.T) (*addEnv, string) {
	t.Helper()
	e := startAddEnv(t)
	e.svc.Processor = e.svc.Store.(*pipeline.Processor)
	rec := e.post(t, map[string][]string{"source": {"paste"}, "content": {sermonText}, "title": {"Sunday"}, "category": {"bible", "place", "person"}}, "", nil)
	m := createdID.FindStringSubmatch(rec.Header().Get("Location"))
	if m == nil {
		t.Fatalf("adding the sermon: %d %s", rec.Code, rec.Body)
	}
	return e, m[1]
}

// changeOf returns the change of id whose original is original.
func changeOf(t *testing.T, e *addEnv, id, original string) pipeline.Change {
	t.Helper()
	_, changes, err := e.svc.Changes(t.Context(), e.org, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Original == original {
			return c
		}
	}
	t.Fatalf("no change of %q among %+v", original, changes)
	return pipeline.Change{}
}

func TestTheReviewShowsEachChangeInPlace(t *testing.T) {
	e, id := startReview(t)
	auto, suggestion := changeOf(t, e, id, "revelations"), changeOf(t, e, id, "capernum")
	if !auto.IsApplied() || suggestion.IsApplied() {
		t.Fatalf("the engine's changes: %+v, %+v; want the first applied, the second suggested", auto, suggestion)
	}
	rec := e.page(t, "/transcripts/"+id)
	body := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, body)
	}
	for _, want := range []string{
		`<details class="chg chg-applied" id="c-` + auto.ID + `"`,
		`<details class="chg chg-suggested" id="c-` + suggestion.ID + `"`,
		`Change made: “revelations” changed to “` + auto.Replacement + `”`,
		`Suggestion: change “capernum” to “` + suggestion.Replacement + `”`,
		`<span data-src="0">This morning we read </span>`,
		`name="version" value="0"`,
		`id="add-fix"`,
		`id="review-keys"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if words := internalWord(t).FindAllString(visibleOutsideDetails(body), -1); len(words) > 0 {
		t.Errorf("the review shows internal words %v outside its details", words)
	}
}

func TestReviewDecisionsThroughTheForms(t *testing.T) {
	e, id := startReview(t)
	auto, capernum, effesus := changeOf(t, e, id, "revelations"), changeOf(t, e, id, "capernum"), changeOf(t, e, id, "effesus")
	decide := func(version string, kv ...string) *httptest.ResponseRecorder {
		form := url.Values{"version": {version}}
		for i := 0; i+1 < len(kv); i += 2 {
			form.Set(kv[i], kv[i+1])
		}
		return e.review(t, id, form)
	}
	redirected := func(rec *httptest.ResponseRecorder, at string) {
		t.Helper()
		if want := "/dashboard/o/" + e.org + "/transcripts/" + id + at; rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
			t.Fatalf("%d to %q, want 303 to %s:\n%s", rec.Code, rec.Header().Get("Location"), want, rec.Body)
		}
	}

	// Accepting a suggestion applies it, recorded as the member's.
	redirected(decide("0", "action", "accept", "change", capernum.ID), "#c-"+capernum.ID)
	if c := changeOf(t, e, id, "capernum"); !c.IsApplied() || c.Decision == nil || c.Decision.By != "office@example.org" {
		t.Fatalf("after accepting: %+v", c)
	}
	// A page that still shows version 0 lost the race: nothing it sent is recorded, and it
	// is shown the current state.
	rec := decide("0", "action", "reject", "change", auto.ID)
	if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "Someone else decided on this transcript since you opened it") ||
		!strings.Contains(rec.Body.String(), `name="version" value="1"`) {
		t.Fatalf("a stale page's decision: %d, want 409 with the current state:\n%s", rec.Code, rec.Body)
	}
	if c := changeOf(t, e, id, "revelations"); !c.IsApplied() || c.Decision != nil {
		t.Fatalf("the stale decision was recorded: %+v", c)
	}
	// Undoing an automatic change and replacing a suggestion.
	redirected(decide("1", "action", "reject", "change", auto.ID), "#c-"+auto.ID)
	redirected(decide("2", "action", "replace", "change", effesus.ID, "replacement", "Ephesus (in Asia)"), "#c-"+effesus.ID)
	// Refused decisions are shown next to their form, in plain words.
	for _, tc := range []struct {
		name, field, message string
		form                 []string
	}{
		{"an empty replacement", `id="err-` + capernum.ID + `"`, "Type the words to write instead.", []string{"action", "replace", "change", capernum.ID, "replacement", " "}},
		{"a span over an applied change", `id="add-error"`, "Part of these words is already changed", []string{"action", "add", "words", "x", "start", "55", "end", "65", "replacement", "y"}},
		{"a span past the end", `id="add-error"`, "The selection is not in the text", []string{"action", "add", "words", "x", "start", "5", "end", "5000", "replacement", "y"}},
		{"words not in the text", `id="add-error"`, "is not in the text", []string{"action", "add", "words", "Nazareth", "replacement", "y"}},
		{"words there more than once, without saying which", `id="add-error"`, "is 2 times in the text", []string{"action", "add", "words", "the", "replacement", "y"}},
		{"no confirmed suggestion", `role="alert"`, "No suggestion the AI check agreed with", []string{"action", "accept-confirmed"}},
	} {
		rec := decide("3", tc.form...)
		body := rec.Body.String()
		if rec.Code != http.StatusBadRequest || !strings.Contains(body, tc.field) || !strings.Contains(body, tc.message) {
			t.Errorf("%s: %d, want 400 with %q next to %s:\n%s", tc.name, rec.Code, tc.message, tc.field, body)
		}
	}
	// A correction the engine missed, by the words' offsets (as a selection gives them) ...
	start := strings.Index(sermonText, "Jarius")
	redirected(decide("3", "action", "add", "words", "Jarius", "start", strconv.Itoa(start), "end", strconv.Itoa(start+len("Jarius")), "replacement", "Jairus"), "")
	// ... and by its words alone, with JavaScript off.
	redirected(decide("4", "action", "add", "words", "morning", "replacement", "evening"), "")

	want := strings.NewReplacer("capernum", "Capernaum", "effesus", "Ephesus (in Asia)", "Jarius", "Jairus", "morning", "evening").Replace(sermonText)
	tr, _, err := e.svc.Get(t.Context(), e.org, id)
	if err != nil {
		t.Fatal(err)
	}
	content, err := e.svc.Content(t.Context(), e.org, tr)
	if err != nil || content == nil || *content != want {
		t.Fatalf("the reviewed content is %v, %v; want %q", content, err, want)
	}
	// The download is the reviewed content.
	if rec := e.page(t, "/transcripts/"+id+"/download"); rec.Code != http.StatusOK || rec.Body.String() != want {
		t.Fatalf("the download: %d %q, want the reviewed content", rec.Code, rec.Body)
	}
	// The page says who decided, and shows no decision form once a form refers to no version.
	page := e.page(t, "/transcripts/"+id).Body.String()
	if !strings.Contains(page, "✓ Replaced with “Ephesus (in Asia)” by office@example.org,") || !strings.Contains(page, "✓ Undone by office@example.org") {
		t.Errorf("the page does not show the decisions and who made them:\n%s", page)
	}
	if rec := decide("x", "action", "accept", "change", auto.ID); rec.Code != http.StatusBadRequest {
		t.Errorf("a form without its version: %d, want 400", rec.Code)
	}
}

func TestAcceptingAllTheAICheckConfirmedTakesOnlyUndecidedSuggestions(t *testing.T) {
	yes, no := true, false
	changes := []pipeline.Change{
		{Change: correction.Change{ID: "chg_0001", Original: "a", Replacement: "A", Status: correction.StatusNeedsReview}, Applied: &no, AIVerdict: aipass.Confirmed},
		{Change: correction.Change{ID: "chg_0002", Original: "b", Replacement: "B", Status: correction.StatusNeedsReview}, Applied: &no, AIVerdict: aipass.Uncertain},
		{Change: correction.Change{ID: "chg_0003", Original: "c", Replacement: "C", Status: correction.StatusAutoApplied}, Applied: &yes, AIVerdict: aipass.Confirmed},
		{Change: correction.Change{ID: "chg_0004", Original: "d", Replacement: "D", Status: correction.StatusNeedsReview}, Applied: &no, AIVerdict: aipass.Confirmed,
			Decision: &pipeline.Decision{ChangeID: "chg_0004", Action: pipeline.ActionReject}},
		{Change: correction.Change{ID: "chg_0005", Original: "e", Replacement: "E", Status: correction.StatusNeedsReview}, Applied: &no, AIVerdict: aipass.Confirmed},
	}
	batch, done, msg := decisionsOf(url.Values{"action": {actionAcceptConfirmed}}, changes, nil)
	if msg != "" || len(batch) != 2 || batch[0].ChangeID != "chg_0001" || batch[1].ChangeID != "chg_0005" || batch[0].Action != pipeline.ActionAccept {
		t.Fatalf("batch %+v, %q; want chg_0001 and chg_0005 accepted", batch, msg)
	}
	if done != "Accepted the 2 suggestions the AI check agreed with." {
		t.Errorf("it says %q", done)
	}
}

func TestAddingByWordsFindsTheOccurrenceAsked(t *testing.T) {
	m := &pipeline.Marked{Pieces: []pipeline.Piece{
		{Text: "the cat and the hat", Src: 10, Change: -1},
		{Text: "Capernaum", Src: -1, Change: 0},
		{Text: " then the end", Src: 40, Change: -1},
	}}
	for _, tc := range []struct {
		name, words, occurrence string
		start                   int
		msg                     string
	}{
		{"the one occurrence", "cat", "", 14, ""},
		{"the second of three", "the", "2", 22, ""},
		{"the third, after a change", "the", "3", 46, ""},
		{"not inside a longer word", "he", "", 0, "is not in the text"},
		{"not inside a change", "Capernaum", "", 0, "is not in the text"},
		{"more than once, without saying which", "the", "", 0, "is 3 times in the text"},
		{"an occurrence past the last", "the", "4", 0, "is only 3 times in the text"},
		{"an occurrence that is no number", "the", "second", 0, "Say which one with a number"},
	} {
		form := url.Values{"words": {tc.words}, "occurrence": {tc.occurrence}}
		batch, _, msg := added(form, "x", m)
		switch {
		case tc.msg != "" && !strings.Contains(msg, tc.msg):
			t.Errorf("%s: %q, want %q", tc.name, msg, tc.msg)
		case tc.msg == "" && (msg != "" || len(batch) != 1 || batch[0].Start != tc.start || batch[0].End != tc.start+len(tc.words)):
			t.Errorf("%s: %+v, %q; want the span from %d", tc.name, batch, msg, tc.start)
		}
	}
}
