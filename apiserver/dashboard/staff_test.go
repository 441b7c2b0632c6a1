package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/domain/endpoints"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
)

// memoryTranscripts is a transcripts service of one organization that holds the transcripts,
// contents and changes it is given. A list returns all of them, newest first.
type memoryTranscripts struct {
	org     string
	items   []*tcsv1.Transcript
	content map[string]string
	changes map[string][]pipeline.Change
}

func (m *memoryTranscripts) find(org, id string) (*tcsv1.Transcript, error) {
	for _, t := range m.items {
		if t.Spec.ID == id && org == m.org {
			return t, nil
		}
	}
	return nil, fmt.Errorf("transcript %s: %w", id, transcripts.ErrNotFound)
}

func (m *memoryTranscripts) Get(_ context.Context, org, id string) (*tcsv1.Transcript, bool, error) {
	t, err := m.find(org, id)
	return t, false, err
}

func (m *memoryTranscripts) Content(_ context.Context, _ string, t *tcsv1.Transcript) (*string, error) {
	if c, ok := m.content[t.Spec.ID]; ok {
		return &c, nil
	}
	return nil, nil
}

func (m *memoryTranscripts) List(_ context.Context, org string, _ transcripts.ListOptions) ([]*tcsv1.Transcript, bool, error) {
	if org != m.org {
		return nil, false, nil
	}
	out := slices.Clone(m.items)
	slices.SortFunc(out, func(a, b *tcsv1.Transcript) int { return b.Created().Compare(a.Created().Time) })
	return out, false, nil
}

func (m *memoryTranscripts) Delete(_ context.Context, org, id string, _ metav1.Time) (*tcsv1.Transcript, error) {
	t, err := m.find(org, id)
	if err != nil {
		return nil, err
	}
	m.items = slices.DeleteFunc(m.items, func(x *tcsv1.Transcript) bool { return x == t })
	return t, nil
}

func (m *memoryTranscripts) Changes(_ context.Context, org, id string) (*tcsv1.Transcript, []pipeline.Change, error) {
	t, err := m.find(org, id)
	return t, m.changes[id], err
}

// transcriptAt returns a transcript of org with id created at created, in phase with the AI
// pass status ai.
func transcriptAt(org, id string, created time.Time, phase tcsv1.Phase, ai tcsv1.AIPassStatus) *tcsv1.Transcript {
	t := &tcsv1.Transcript{
		ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), CreationTimestamp: metav1.NewTime(created)},
		Spec:       tcsv1.TranscriptSpec{ID: id, Organization: org, Source: tcsv1.TranscriptSource{Type: tcsv1.SourceYouTube, URL: "https://youtu.be/x"}},
		Status:     tcsv1.TranscriptStatus{Phase: phase, AIPassStatus: ai},
	}
	job := t.AddJob(tcsv1.JobYouTubeFetch, metav1.NewTime(created))
	job.State = tcsv1.JobSucceeded
	return t
}

// staffEnv is a dashboard with one organization whose owner is signed in, and the objects its
// pages show: transcripts of every status, a key, an endpoint with a failed delivery, members.
type staffEnv struct {
	d              *Dashboard
	h              http.Handler
	org            string
	session        *accounts.Session
	acc            *accounts.Accounts
	key            *orgs.Key
	ep             *tcsv1.WebhookEndpoint
	delivery       string
	svc            *memoryTranscripts
	env            *signInEnv
	owner, member  string
	memberSession  *accounts.Session
	now            time.Time
	failed, review string
}

// now is the time of the dashboard's clock in the tests: a Monday evening in UTC, which is
// already Tuesday in Auckland.
var testNow = time.Date(2026, time.November, 23, 20, 30, 0, 0, time.UTC)

func startStaffEnv(t *testing.T) *staffEnv {
	t.Helper()
	env := startSignInEnv(t)
	ctx := t.Context()
	org, err := orgs.Create(ctx, env.c, env.ns, "Grace Church", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &staffEnv{env: env, org: org.Spec.ID, owner: "ann@example.org", member: "mia@example.org", now: testNow}
	s.acc, err = accounts.New(accounts.Options{Client: env.c, Reader: env.c, Namespace: env.ns})
	if err != nil {
		t.Fatal(err)
	}
	const password = "a long enough password"
	for email, role := range map[string]string{s.owner: accounts.RoleOwner, s.member: accounts.RoleMember} {
		if err := s.acc.SetMember(ctx, s.org, email, role); err != nil {
			t.Fatal(err)
		}
		if err := s.acc.SetPassword(ctx, email, password); err != nil {
			t.Fatal(err)
		}
	}
	if s.session, err = s.acc.SignIn(ctx, s.owner, password); err != nil {
		t.Fatal(err)
	}
	if s.memberSession, err = s.acc.SignIn(ctx, s.member, password); err != nil {
		t.Fatal(err)
	}
	if s.key, err = orgs.CreateKey(ctx, env.c, env.ns, s.org, "website plugin"); err != nil {
		t.Fatal(err)
	}
	eps := &endpoints.Manager{Client: env.c, Secrets: env.c, Namespace: env.ns, AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	if s.ep, _, err = eps.Create(ctx, s.org, "http://127.0.0.1:9/hook", []string{tcsv1.EventTranscriptCompleted, tcsv1.EventTranscriptFailed}); err != nil {
		t.Fatal(err)
	}
	payloads := &memoryPayloads{m: map[string][]byte{}}
	del, err := eps.SendTest(ctx, payloads, s.ep, s.now)
	if err != nil {
		t.Fatal(err)
	}
	s.delivery = del.Spec.ID
	del.Status.State = tcsv1.DeliveryFailed
	del.Status.Attempts = []tcsv1.DeliveryAttempt{{Time: metav1.NewTime(s.now), StatusCode: 500, Error: "the receiver answered HTTP 500 Internal Server Error", DurationMillis: 12,
		Response: &tcsv1.DeliveryResponse{Headers: []tcsv1.ResponseHeader{{Name: "Content-Type", Value: "text/html"}, {Name: "X-Request-Id", Value: "req_<b>42</b>"}},
			Body: "<script>alert(1)</script> database is down", BodyTruncated: true}}}
	if err := env.c.Status().Update(ctx, del); err != nil {
		t.Fatal(err)
	}

	// Transcripts of every status, on days of the last 30.
	done := transcriptAt(s.org, "tr_done", s.now.Add(-2*time.Hour), tcsv1.PhaseCompleted, tcsv1.AIPassCompleted)
	done.Status.Title = "Sunday sermon"
	done.Status.ChangesSummary = &tcsv1.ChangesSummary{Total: 3, AutoApplied: 1, NeedsReview: 2, ByCategory: map[string]int{"bible": 2, "place": 1}}
	failed := transcriptAt(s.org, "tr_failed", s.now.Add(-26*time.Hour), tcsv1.PhaseFailed, tcsv1.AIPassFailed)
	failed.Status.Error = &tcsv1.TranscriptError{Type: "not_found", Message: "The video is private."}
	failed.Status.Jobs[0].State, failed.Status.Jobs[0].Error = tcsv1.JobFailed, "The video is private."
	busy := transcriptAt(s.org, "tr_busy", s.now.Add(-3*24*time.Hour), tcsv1.PhasePending, tcsv1.AIPassIdle)
	busy.Status.Jobs[0].State = tcsv1.JobRunning
	queued := transcriptAt(s.org, "tr_queued", s.now.Add(-4*24*time.Hour), tcsv1.PhaseCompleted, tcsv1.AIPassQueued)
	running := transcriptAt(s.org, "tr_running", s.now.Add(-5*24*time.Hour), tcsv1.PhaseCompleted, tcsv1.AIPassRunning)
	old := transcriptAt(s.org, "tr_old", s.now.AddDate(-1, 0, 0), tcsv1.PhaseCompleted, tcsv1.AIPassIdle)
	s.failed, s.review = failed.Spec.ID, done.Spec.ID
	applied, notApplied := true, false
	s.svc = &memoryTranscripts{org: s.org, items: []*tcsv1.Transcript{done, failed, busy, queued, running, old},
		content: map[string]string{"tr_done": "Read Revelation 21 and Revelation 22 in Capernaum.\n"},
		changes: map[string][]pipeline.Change{"tr_done": {
			{Change: correction.Change{ID: "chg_0001", Category: "bible", Original: "revelations", Replacement: "Revelation", Line: 1, Rule: "book.misspelling", Confidence: 0.97, Status: correction.StatusAutoApplied}, Applied: &applied, AIVerdict: aipass.Confirmed},
			{Change: correction.Change{ID: "chg_0002", Category: "bible", Original: "revelations", Replacement: "Revelation", Line: 1, Rule: "book.fuzzy", Confidence: 0.7, Status: correction.StatusNeedsReview}, Applied: &applied, AIVerdict: aipass.Uncertain},
			{Change: correction.Change{ID: "chg_0003", Category: "place", Original: "Capernaum", Replacement: "Capernaum", Line: 1, Rule: "place.lowercase", Confidence: 0.5, Status: correction.StatusNeedsReview}, Applied: &notApplied, AIVerdict: aipass.Rejected},
		}}}

	doc, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	gm := &glossary.Manager{Client: env.c, Namespace: env.ns}
	if _, _, err := gm.Add(ctx, s.org, s.owner, glossary.Input{Term: "Capernaum", Forms: []string{"capernum"}, Category: "places_of_jesus"}, ""); err != nil {
		t.Fatal(err)
	}
	s.d, err = New(Options{Client: env.c, Reader: env.c, Namespace: env.ns, PublicURL: "http://127.0.0.1:8080", Transcripts: s.svc,
		Accounts: s.acc, Endpoints: eps, Payloads: payloads, Audit: &memoryAudit{}, OpenAPI: doc, Clock: clocktesting.NewFakePassiveClock(s.now)})
	if err != nil {
		t.Fatal(err)
	}
	s.h = router(s.d)
	return s
}

// get sends a GET of path (below the organization's pages) as the session's member and
// returns the answer.
func (s *staffEnv) get(t *testing.T, session *accounts.Session, path string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/dashboard/o/"+s.org+path, nil)
	req.AddCookie(&http.Cookie{Name: s.d.cookieName(), Value: session.Token})
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// post sends form to path (below the organization's pages) as the session's member.
func (s *staffEnv) post(t *testing.T, session *accounts.Session, path string, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	form.Set("csrf", session.CSRF)
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/dashboard/o/"+s.org+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(&http.Cookie{Name: s.d.cookieName(), Value: session.Token})
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// internalWord matches the words staff must not read: the internal values of statuses,
// states, job types and error types, the rule names of the correction engine and "reconcile".
func internalWord(t *testing.T) *regexp.Regexp {
	t.Helper()
	var words []string
	for kind, table := range staffWords() {
		if kind == wordEvent || kind == wordSource || kind == wordCategory {
			// Event names are the IT volunteer's words on the webhook pages; sources and
			// categories are plain words already (paste, youtube, bible).
			continue
		}
		for v := range table {
			// Plain English words that are values too (pending, failed, completed, running,
			// queued, …) are words staff may read in sentences; the ones that are not words
			// (idle, auto_applied, needs_review, youtube_fetch, server_error, …) are not.
			if strings.Contains(v, "_") || v == "idle" {
				words = append(words, regexp.QuoteMeta(v))
			}
		}
	}
	words = append(words, `(book|place|person|ref|bible|ai)\.[a-z_]+`, `reconcil\w*`, `job_\w+`, `chg_\d+`)
	for a := range auditWords() {
		words = append(words, string(a)) // the audit trail's action names (APIKeyCreated)
	}
	return regexp.MustCompile(`\b(` + strings.Join(words, "|") + `)\b`)
}

// visibleOutsideDetails returns the text of page that a person reads without opening a
// <details>: the markup, the contents of <details>, <script>, <style> and the <head> removed.
func visibleOutsideDetails(page string) string {
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`(?s)<head>.*?</head>`),
		regexp.MustCompile(`(?s)<details\b.*?</details>`),
		regexp.MustCompile(`(?s)<script\b.*?</script>`),
		regexp.MustCompile(`(?s)<[^>]*>`),
	} {
		page = re.ReplaceAllString(page, " ")
	}
	return page
}

func TestVisibleOutsideDetailsDropsMarkupAndDetails(t *testing.T) {
	got := visibleOutsideDetails(`<head><title>idle</title></head><p class="status-needs_review">Ready</p><details><summary>x</summary>auto_applied</details><td>idle</td>`)
	if strings.Contains(got, "needs_review") || strings.Contains(got, "auto_applied") || !strings.Contains(got, "Ready") || !strings.Contains(got, "idle") {
		t.Errorf("visible text %q: want the words of the page without markup and details", got)
	}
}

// TestNoInternalWordsOnStaffPages renders every page of an organization, with transcripts of
// every status, changes, a failed delivery, keys and members, and fails when an internal word
// (idle, auto_applied, needs_review, a rule name, a job type, "reconcile", an error type) can
// be read outside a <details>. It fails too when a page shows none of the staff words it
// should, so that it cannot pass on empty pages.
func TestNoInternalWordsOnStaffPages(t *testing.T) {
	s := startStaffEnv(t)
	bad := internalWord(t)
	if err := s.d.o.Audit.PutAudit(t.Context(), &results.AuditEntry{ID: "aud_0001", Organization: s.org, Time: s.now.Add(-time.Hour), Actor: s.owner,
		Action: string(audit.APIKeyCreated), Message: s.owner + ` created API key ` + s.key.ID + ` ("website plugin")`}); err != nil {
		t.Fatal(err)
	}
	// The names of webhook events and the paths of the API are the IT volunteer's words on the
	// webhook and API pages (ai_pass.started, /transcripts/{id}/ai_pass), not internal values.
	itWords := regexp.MustCompile(`\b(transcript|ai_pass)\.(created|completed|failed|started)\b|/ai_pass\b`)
	for _, tc := range []struct {
		path string
		want []string
		// api is the API reference, whose words are the API's own names (ai_pass): the one
		// page for the IT volunteer alone, reached from the API keys page.
		api bool
	}{
		{"/", []string{"Transcripts added per day", "Waiting for your review", "Sunday sermon", "Source not found", "Bible reference"}, false},
		{"/transcripts", []string{"Ready", "Could not be corrected", "Being corrected", "Not asked for", "Waiting to start", "Checking now", "YouTube video",
			`<option value="pending" >Being corrected</option>`, `<option value="youtube" >YouTube video</option>`}, false},
		{"/transcripts/tr_done", []string{"Applied", "Suggested: needs your review", "AI agrees", "AI is not sure", "AI disagrees", "Place name"}, false},
		{"/transcripts/tr_failed", []string{"Could not be corrected", "Check the link and add it again, or delete this transcript"}, false},
		{"/transcripts/tr_busy", []string{"Being corrected"}, false},
		{"/keys", []string{"website plugin", "Revoke…", "curl http://127.0.0.1:8080/api/v1/transcripts"}, false},
		{"/keys?revoke=" + s.key.ID, []string{"Revoke the key “website plugin”?", "refused from the moment it is revoked"}, false},
		{"/endpoints", []string{"0% delivered</span>: 0 of the 1 that ended, among the last 1"}, false},
		{"/endpoints/" + s.ep.Spec.ID, []string{"Not delivered", "A transcript is corrected and ready", "All events"}, false},
		{"/endpoints/" + s.ep.Spec.ID + "?confirm=delete", []string{"Delete this endpoint?"}, false},
		{"/endpoints/" + s.ep.Spec.ID + "?confirm=rotate", []string{"Rotate the signing secret?", "24 hours"}, false},
		{"/deliveries/" + s.delivery, []string{"Not delivered", "HTTP 500", "the receiver answered HTTP 500 Internal Server Error", "the start of the receiver's answer"}, false},
		{"/members", []string{s.member}, false},
		{"/members?remove=" + s.member, []string{"Remove " + s.member + "?"}, false},
		{"/audit", []string{"Audit trail"}, false},
		{"/glossary", []string{"Capernaum", "capernum", "places of jesus", "Export the glossary"}, false},
		{"/settings", []string{"Time zone of the organization", "Bible reference", "places of jesus"}, false},
		{"/api", []string{"GET /api/v1/transcripts", "starting_after", "Base URL"}, true},
	} {
		rec := s.get(t, s.session, tc.path)
		if rec.Code != http.StatusOK {
			t.Errorf("%s: %d, want 200", tc.path, rec.Code)
			continue
		}
		text := itWords.ReplaceAllString(visibleOutsideDetails(rec.Body.String()), " ")
		if found := bad.FindAllString(text, -1); len(found) > 0 && !tc.api {
			t.Errorf("%s shows internal words outside <details>: %q", tc.path, found)
		}
		for _, w := range tc.want {
			if !strings.Contains(rec.Body.String(), w) {
				t.Errorf("%s does not say %q", tc.path, w)
			}
		}
	}
}

func TestSayHasWordsForEveryInternalValue(t *testing.T) {
	for _, tc := range []struct {
		kind  string
		value any
		want  string
	}{
		{wordStatus, tcsv1.PhasePending, "Being corrected"},
		{wordAIPass, tcsv1.AIPassIdle, "Not asked for"},
		{wordChange, correction.StatusAutoApplied, "Applied"},
		{wordChange, correction.StatusNeedsReview, "Suggested: needs your review"},
		{wordVerdict, aipass.Uncertain, "AI is not sure"},
		{wordJob, tcsv1.JobYouTubeFetch, "Getting the YouTube captions"},
		{wordDelivery, tcsv1.DeliveryState(""), "Sending"},
		{wordError, "something_new", "Something went wrong. Try adding it again, or delete this transcript."},
		{wordCategory, "hymn_titles", "hymn titles"},
		{wordReason, "server_error", "Problem on our side"},
		{wordCategory, "custom", "Added by a person"},
	} {
		if got := say(tc.kind, tc.value); got != tc.want {
			t.Errorf("say(%q, %q) = %q, want %q", tc.kind, tc.value, got, tc.want)
		}
	}
	// Every webhook event an endpoint chooses from has its words.
	for _, e := range webhook.Events() {
		if _, ok := staffWords()[wordEvent][e]; !ok {
			t.Errorf("the event %s has no words", e)
		}
	}
	// Every value of the table is put in words that are not the value itself.
	for kind, table := range staffWords() {
		for v, w := range table {
			if w == "" || (v != "" && strings.EqualFold(w, v)) {
				t.Errorf("%s %q is worded %q", kind, v, w)
			}
		}
	}
}

func TestDatesReadAsPeopleReadThemInTheOrganizationsTimeZone(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	auckland, _ := time.LoadLocation("Pacific/Auckland")
	at := time.Date(2026, time.November, 23, 9, 42, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		t    any
		loc  *time.Location
		want string
	}{
		{"in UTC", at, time.UTC, "Mon 23 Nov, 09:42"},
		{"in Berlin", at, berlin, "Mon 23 Nov, 10:42"},
		{"past midnight in Auckland", at.Add(12 * time.Hour), auckland, "Tue 24 Nov, 10:42"},
		{"of another year, with the year", at.AddDate(-1, 0, 0), berlin, "Sun 23 Nov 2025, 10:42"},
		{"an API timestamp", "2026-11-23T09:42:00Z", berlin, "Mon 23 Nov, 10:42"},
		{"a Kubernetes time", metav1.NewTime(at), berlin, "Mon 23 Nov, 10:42"},
		{"never", time.Time{}, berlin, "never"},
	} {
		v := &view{Zone: tc.loc, Now: testNow}
		if got := when(v, tc.t); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The overview counts days in the organization's time zone: a transcript made at 20:00 UTC
// on Monday is Tuesday's in Auckland.
func TestTheOverviewCountsDaysInTheOrganizationsTimeZone(t *testing.T) {
	s := startStaffEnv(t)
	lastDay := func() string {
		body := s.get(t, s.session, "/").Body.String()
		rows := regexp.MustCompile(`<tr><th scope="row">([^<]+)</th><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td></tr>`).FindAllStringSubmatch(body, -1)
		if len(rows) != overviewDays {
			t.Fatalf("the overview's table has %d days, want %d", len(rows), overviewDays)
		}
		last := rows[len(rows)-1]
		return last[1] + " ready " + last[2]
	}
	if got := lastDay(); got != "Mon 23 Nov ready 1" {
		t.Errorf("in UTC the last day is %q, want Mon 23 Nov with the transcript of 18:30", got)
	}
	if rec := s.post(t, s.session, "/settings", url.Values{"time_zone": {"Pacific/Auckland"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("saving the time zone: %d %s", rec.Code, rec.Body)
	}
	waitFor(t, func() bool {
		return strings.Contains(s.get(t, s.session, "/settings").Body.String(), `<option selected>Pacific/Auckland</option>`)
	})
	if got := lastDay(); got != "Tue 24 Nov ready 1" {
		t.Errorf("in Auckland the last day is %q, want Tue 24 Nov with the transcript of 07:30", got)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal("the condition did not come true within 5 s")
}

func TestTheOverviewDrawsChartsAnyoneCanRead(t *testing.T) {
	s := startStaffEnv(t)
	body := s.get(t, s.session, "/").Body.String()
	for _, want := range []string{
		`<svg viewBox="0 0 480 200" role="img" aria-labelledby="by-day-t"`,
		`<title id="by-day-t">Transcripts added per day in the last 30 days, by outcome: 5 in all</title>`,
		`<title>Sun 22 Nov: 0 ready, 1 could not be corrected, 0 being corrected</title>`,
		`<title>Bible reference: 2</title>`, `<title>Source not found: 1</title>`,
		`<strong class="big">2</strong> suggested changes wait`,
		`<details><summary>The numbers</summary>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the overview lacks %s", want)
		}
	}
	if strings.Contains(body, "<script") && strings.Count(body, "<script") != 1 {
		t.Error("the overview has scripts of its own")
	}
}

func TestSettings(t *testing.T) {
	s := startStaffEnv(t)
	ctx := t.Context()
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		error  string
	}{
		{"a time zone that is not one is refused", url.Values{"time_zone": {"Mars/Olympus"}}, http.StatusBadRequest, "is not a time zone name"},
		{"a category that is not a name is refused", url.Values{"categories": {"Not A Name"}}, http.StatusBadRequest, "is not a category name"},
		{"time zone and defaults are saved", url.Values{"time_zone": {"Europe/Berlin"}, "normalize_references": {"on"}, "ai_pass": {"on"}, "ai_pass_apply": {"on"}, "categories": {"place", "bible"}}, http.StatusSeeOther, ""},
	} {
		rec := s.post(t, s.session, "/settings", tc.form)
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.error) {
			t.Errorf("%s: %d, want %d with %q:\n%.300s", tc.name, rec.Code, tc.status, tc.error, rec.Body)
		}
	}
	org, err := orgs.Get(ctx, s.env.c, s.env.ns, s.org)
	if err != nil {
		t.Fatal(err)
	}
	want := tcsv1.TranscriptOptions{NormalizeReferences: true, AIPass: tcsv1.AIPassOptions{Enabled: true, Apply: true}, Categories: []string{"bible", "place"}}
	if got := orgs.Defaults(org); fmt.Sprint(got) != fmt.Sprint(want) || orgs.TimeZone(org).String() != "Europe/Berlin" {
		t.Errorf("saved: defaults %+v, time zone %s; want %+v, Europe/Berlin", got, orgs.TimeZone(org), want)
	}
	// The members are as they were: the settings are written over the organization as read.
	if role, err := s.acc.Role(ctx, s.org, s.member); err != nil || role != accounts.RoleMember {
		t.Errorf("the member after saving settings: %q, %v", role, err)
	}
	// A member reads them and cannot change them.
	page := s.get(t, s.memberSession, "/settings").Body.String()
	if !strings.Contains(page, "your role reads them") || !strings.Contains(page, "<fieldset disabled>") || strings.Contains(page, "Save settings") {
		t.Errorf("a member's settings page is not read-only:\n%s", page)
	}
	if rec := s.post(t, s.memberSession, "/settings", url.Values{"time_zone": {"UTC"}}); rec.Code != http.StatusForbidden {
		t.Errorf("a member saving settings: %d, want 403", rec.Code)
	}
	// Dates are shown in the organization's time zone: the delivery of 20:30 UTC at 21:30.
	if body := s.get(t, s.session, "/deliveries/"+s.delivery).Body.String(); !strings.Contains(body, "Mon 23 Nov, 21:30") {
		t.Errorf("the delivery page does not show its attempt in Berlin time:\n%s", body)
	}
}

func TestTheDeliveryPageShowsEachAnswerAsText(t *testing.T) {
	s := startStaffEnv(t)
	page := s.get(t, s.memberSession, "/deliveries/"+s.delivery).Body.String()
	for _, want := range []string{
		`<details class="tech answer"><summary>The receiver's answer to attempt 1 (HTTP 500)</summary>`,
		"<dt>Content-Type</dt><dd>text/html</dd>", "<dt>X-Request-Id</dt><dd>req_&lt;b&gt;42&lt;/b&gt;</dd>",
		`aria-label="Body of the answer to attempt 1">&lt;script&gt;alert(1)&lt;/script&gt; database is down</pre>`,
		"only its first " + strconv.Itoa(tcsv1.MaxResponseBodyBytes) + " bytes are kept",
		"up to " + strconv.Itoa(tcsv1.MaxResponseHeaders) + " of its headers",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the delivery page does not show %q", want)
		}
	}
	for _, bad := range []string{"<script>alert(1)", "<b>42</b>", "are not kept", "More headers or longer values"} {
		if strings.Contains(page, bad) {
			t.Errorf("the delivery page shows %q", bad)
		}
	}
	if t.Failed() {
		t.Logf("page:\n%s", page)
	}
}

// Revoking a key, deleting an endpoint, rotating its secret and removing a member each take a
// confirmation that says what breaks: the pages offer a link to it, never the form that acts.
func TestDestructiveActionsAskToConfirm(t *testing.T) {
	s := startStaffEnv(t)
	for _, tc := range []struct {
		page, action, confirm string
	}{
		{"/keys", "/keys/" + s.key.ID + "/revoke", "/keys?revoke=" + s.key.ID},
		{"/endpoints/" + s.ep.Spec.ID, "/endpoints/" + s.ep.Spec.ID + "/delete", "/endpoints/" + s.ep.Spec.ID + "?confirm=delete"},
		{"/endpoints/" + s.ep.Spec.ID, "/endpoints/" + s.ep.Spec.ID + "/rotate", "/endpoints/" + s.ep.Spec.ID + "?confirm=rotate"},
		{"/members", "/members/remove", "/members?remove=" + url.QueryEscape(s.member)},
		{"/transcripts/" + s.failed, "/transcripts/" + s.failed + "/delete", "/transcripts/" + s.failed + "?confirm=delete"},
	} {
		form := `<form method="post" action="/dashboard/o/` + s.org + tc.action + `"`
		if body := s.get(t, s.session, tc.page).Body.String(); strings.Contains(body, form) {
			t.Errorf("%s has the form of %s without a confirmation", tc.page, tc.action)
		} else if !strings.Contains(body, `href="/dashboard/o/`+s.org+strings.ReplaceAll(tc.confirm, "&", "&amp;")) {
			t.Errorf("%s has no link to the confirmation %s", tc.page, tc.confirm)
		}
		body := s.get(t, s.session, tc.confirm).Body.String()
		if !strings.Contains(body, form) || !strings.Contains(body, `class="card confirm"`) {
			t.Errorf("the confirmation %s lacks the form of %s", tc.confirm, tc.action)
		}
		// A member is offered no confirmation.
		if body := s.get(t, s.memberSession, tc.confirm).Body.String(); strings.Contains(body, form) {
			t.Errorf("a member is offered the form of %s", tc.action)
		}
	}
	// Confirming revokes.
	if rec := s.post(t, s.session, "/keys/"+s.key.ID+"/revoke", url.Values{}); rec.Code != http.StatusSeeOther {
		t.Fatalf("revoking: %d", rec.Code)
	}
	if _, err := orgs.GetKey(t.Context(), s.env.c, s.env.ns, s.org, s.key.ID); err == nil {
		t.Error("the confirmed revocation did not revoke the key")
	}
	// A member may not delete a transcript; confirming as an owner deletes it.
	if rec := s.post(t, s.memberSession, "/transcripts/"+s.failed+"/delete", url.Values{}); rec.Code != http.StatusForbidden {
		t.Errorf("a member deleting a transcript: %d, want 403", rec.Code)
	}
	if rec := s.post(t, s.session, "/transcripts/"+s.failed+"/delete", url.Values{}); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/dashboard/o/"+s.org+"/transcripts" {
		t.Fatalf("deleting a transcript: %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := s.get(t, s.session, "/transcripts/"+s.failed); rec.Code != http.StatusNotFound {
		t.Errorf("the deleted transcript's page: %d, want 404", rec.Code)
	}
}

func TestWithContextFindsEachOfTwoIdenticalChangesOnALine(t *testing.T) {
	line := "Read revelation 21 and revelation 22."
	rows := []changeRow{
		{Change: pipeline.Change{Change: correction.Change{Original: "revelation", Replacement: "Revelation", Line: 1}}},
		{Change: pipeline.Change{Change: correction.Change{Original: "revelation", Replacement: "Revelation", Line: 1}}},
		{Change: pipeline.Change{Change: correction.Change{Original: "revelation", Replacement: "Revelation", Line: 1}}},
	}
	withContext(rows, line)
	want := [][2]string{{"Read ", " 21 and revelation 22."}, {"Read revelation 21 and ", " 22."}, {"Read ", " 21 and revelation 22."}}
	for i, w := range want {
		if rows[i].Before != w[0] || rows[i].After != w[1] {
			t.Errorf("change %d: %q|%q|%q, want %q|revelation|%q", i+1, rows[i].Before, rows[i].Match, rows[i].After, w[0], w[1])
		}
	}
}

func TestTheAPIReferenceListsTheServedDocument(t *testing.T) {
	doc, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := parseAPIReference(doc)
	if err != nil {
		t.Fatal(err)
	}
	var list *apiOperation
	for i := range ref.Operations {
		if o := &ref.Operations[i]; o.Method == http.MethodGet && o.Path == "/api/v1/transcripts" {
			list = o
		}
	}
	if list == nil {
		t.Fatalf("no GET /api/v1/transcripts among %d operations", len(ref.Operations))
	}
	var names []string
	for _, p := range list.Parameters {
		names = append(names, p.Name)
	}
	// limit is given by reference; the reference is resolved.
	if !slices.Contains(names, "limit") || !slices.Contains(names, "created[gte]") || !slices.Contains(list.Responses, "200") {
		t.Errorf("GET /api/v1/transcripts: parameters %v, responses %v", names, list.Responses)
	}
	if _, err := parseAPIReference([]byte("{")); err == nil {
		t.Error("a broken document was read")
	}
}

func TestDeliveryRate(t *testing.T) {
	dels := func(states ...tcsv1.DeliveryState) []tcsv1.WebhookDelivery {
		var out []tcsv1.WebhookDelivery
		for _, s := range states {
			out = append(out, tcsv1.WebhookDelivery{Status: tcsv1.WebhookDeliveryStatus{State: s}})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		dels []tcsv1.WebhookDelivery
		want int
	}{
		{"none", nil, -1},
		{"only pending", dels(tcsv1.DeliveryPending), -1},
		{"three of four", dels(tcsv1.DeliverySucceeded, tcsv1.DeliverySucceeded, tcsv1.DeliverySucceeded, tcsv1.DeliveryFailed, tcsv1.DeliverySkipped), 75},
	} {
		if got := rateOf(tc.dels).Percent(); got != tc.want {
			t.Errorf("%s: %d%%, want %d", tc.name, got, tc.want)
		}
	}
}

// errNotAdded says that the pages these tests render add no transcript.
var errNotAdded = errors.New("these tests add no transcript")

func (m *memoryTranscripts) Make(context.Context, string, transcripts.Draft) (*tcsv1.Transcript, error) {
	return nil, errNotAdded
}

func (m *memoryTranscripts) Complete(context.Context, string, *tcsv1.Transcript, *pipeline.Result, metav1.Time) (bool, error) {
	return false, errNotAdded
}

func (m *memoryTranscripts) Queue(context.Context, string, *tcsv1.Transcript, string, metav1.Time) error {
	return errNotAdded
}

func (m *memoryTranscripts) ConfirmUpload(context.Context, string, string, transcripts.Confirmation) (*tcsv1.Transcript, error) {
	return nil, errNotAdded
}

func (m *memoryTranscripts) Decide(context.Context, string, string, transcripts.Batch, *int64) (*tcsv1.Transcript, error) {
	return nil, errors.New("these tests decide on no transcript")
}

// Marked has no submitted document to show the changes in: the page shows them as a list.
func (m *memoryTranscripts) Marked(context.Context, string, *tcsv1.Transcript, []pipeline.Change) (*pipeline.Marked, error) {
	return nil, nil
}

// A delivery's page names its transcript by its title and its endpoint by its address, as
// the people who read it know them, not by their ids alone.
func TestTheDeliveryPageNamesItsTranscriptAndEndpoint(t *testing.T) {
	s := startStaffEnv(t)
	ctx := t.Context()
	del := &tcsv1.WebhookDelivery{}
	if err := s.env.c.Get(ctx, client.ObjectKey{Namespace: s.ep.Namespace, Name: webhook.DeliveryName(strings.TrimPrefix(s.delivery, "evt_"))}, del); err != nil {
		t.Fatal(err)
	}
	del.Spec.TranscriptID, del.Spec.Event = s.review, tcsv1.EventTranscriptCompleted
	if err := s.env.c.Update(ctx, del); err != nil {
		t.Fatal(err)
	}
	page := s.get(t, s.session, "/deliveries/"+s.delivery).Body.String()
	for _, want := range []string{
		`about <a href="/dashboard/o/` + s.org + `/transcripts/tr_done">Sunday sermon</a>`,
		`to <a href="/dashboard/o/` + s.org + `/endpoints/` + s.ep.Spec.ID + `">http://127.0.0.1:9/hook</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the delivery page does not show %q", want)
		}
	}
}
