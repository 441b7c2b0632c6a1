package dashboard

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/endpoints"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// addEnv is a dashboard whose transcripts service, object store and correction engine are
// real, with a member signed in to one organization.
type addEnv struct {
	h       http.Handler
	svc     *transcripts.Service
	store   *blob.Store
	org     string
	session *accounts.Session
	cookie  string
}

func startAddEnv(t *testing.T) *addEnv {
	t.Helper()
	return startAddEnvWith(t, false)
}

// startAddEnvWith is startAddEnv; with cached, the service lists from a manager's informer
// cache with the organization index, as in the service.
func startAddEnvWith(t *testing.T, cached bool, mods ...func(*Options)) *addEnv {
	t.Helper()
	te, err := testenv.Start()
	if err != nil {
		t.Fatalf("these tests need the local control plane: %v", err)
	}
	t.Cleanup(func() { _ = te.Stop() })
	env := &signInEnv{c: te.Client(t, client.Options{Scheme: scheme.New()}), ns: te.Namespace(t, "dashboard-add")}
	ctx := t.Context()
	var list client.Reader = env.c
	if cached {
		mgr := te.NewManager(t, env.ns)
		if err := mgr.GetFieldIndexer().IndexField(ctx, &tcsv1.Transcript{}, transcripts.IndexOrganization, transcripts.OrganizationIndex); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(testenv.Run(t, mgr))
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			t.Fatal("the cache did not sync")
		}
		list = mgr.GetCache()
	}
	org, err := orgs.Create(ctx, env.c, env.ns, "Grace Church", nil)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := accounts.New(accounts.Options{Client: env.c, Reader: env.c, Namespace: env.ns})
	if err != nil {
		t.Fatal(err)
	}
	const email, password = "office@example.org", "a long enough password"
	if err := acc.SetMember(ctx, org.Spec.ID, email, accounts.RoleMember); err != nil {
		t.Fatal(err)
	}
	if err := acc.SetPassword(ctx, email, password); err != nil {
		t.Fatal(err)
	}
	session, err := acc.SignIn(ctx, email, password)
	if err != nil {
		t.Fatal(err)
	}
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	proc := pipeline.New(engine, store)
	svc := &transcripts.Service{Namespace: env.ns, Cache: list, APIReader: env.c, Client: env.c, Store: proc, Files: store}
	o := Options{Client: env.c, Reader: env.c, Namespace: env.ns, PublicURL: "http://127.0.0.1:8080", Transcripts: svc,
		Accounts: acc, Payloads: &memoryPayloads{m: map[string][]byte{}}, Audit: &memoryAudit{},
		Endpoints: &endpoints.Manager{Client: env.c, Secrets: env.c, Namespace: env.ns},
		Add:       AddOptions{Corrector: proc, Files: store, OutboundAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, AIPass: true}}
	for _, mod := range mods {
		mod(&o)
	}
	d, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return &addEnv{h: router(d), svc: svc, store: store, org: org.Spec.ID, session: session, cookie: d.cookieName()}
}

// post sends the add form with fields and, when name is not empty, a file, as the member.
func (e *addEnv) post(t *testing.T, fields map[string][]string, name string, file []byte) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("csrf", e.session.CSRF)
	for k, vs := range fields {
		for _, v := range vs {
			_ = mw.WriteField(k, v)
		}
	}
	if name != "" {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(file)
	}
	_ = mw.Close()
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/dashboard/o/"+e.org+"/transcripts/new", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(&http.Cookie{Name: e.cookie, Value: e.session.Token})
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

var createdID = regexp.MustCompile(`/transcripts/(tr_[A-Za-z0-9]+)$`)

// TestAddingATranscript sends the add form as a member: each source is made through the
// transcripts service as the API makes it, and each refusal is shown next to its field.
func TestAddingATranscript(t *testing.T) {
	e := startAddEnv(t)
	defaults := []string{"bible", "place"}
	srt := []byte("1\n00:00:01,000 --> 00:00:04,000\nTurn to first corinthians 13.\n")
	for _, tc := range []struct {
		name     string
		fields   map[string][]string
		file     string
		data     []byte
		errField string
		check    func(t *testing.T, tr *tcsv1.Transcript)
	}{
		{name: "a paste is corrected at once, with its options",
			fields: map[string][]string{"source": {"paste"}, "content": {"We read from first corinthians 13 at capernum."}, "title": {"  Sunday service  "},
				"category": {"bible", "place", "person"}, "normalize_references": {"on"}, "ai_pass": {"on"}},
			check: func(t *testing.T, tr *tcsv1.Transcript) {
				if tr.Status.Phase != tcsv1.PhaseCompleted || tr.Spec.Source.Type != tcsv1.SourcePaste || tr.Spec.Source.Title != "Sunday service" {
					t.Errorf("paste: phase %q, source %+v; want completed, a paste titled Sunday service", tr.Status.Phase, tr.Spec.Source)
				}
				o := tr.Spec.Options
				if !o.NormalizeReferences || !o.AIPass.Enabled || o.AIPass.Apply || strings.Join(o.Categories, ",") != "bible,place,person" {
					t.Errorf("paste options %+v", o)
				}
			}},
		{name: "the default categories are left to the engine",
			fields: map[string][]string{"source": {"paste"}, "content": {"at capernum"}, "category": defaults},
			check: func(t *testing.T, tr *tcsv1.Transcript) {
				if len(tr.Spec.Options.Categories) != 0 || tr.Spec.Options.NormalizeReferences || tr.Spec.Options.AIPass.Enabled {
					t.Errorf("options %+v, want none set", tr.Spec.Options)
				}
			}},
		{name: "a caption file is stored and confirmed as an upload named after the file",
			fields: map[string][]string{"source": {"file"}, "category": defaults}, file: "Sunday service 23 Nov.srt", data: srt,
			check: func(t *testing.T, tr *tcsv1.Transcript) {
				src := tr.Spec.Source
				if src.Type != tcsv1.SourceUpload || src.Filename != "Sunday service 23 Nov.srt" || src.Title != "Sunday service 23 Nov" || src.Format != "srt" || tr.Status.Phase != tcsv1.PhasePending {
					t.Errorf("upload: %+v, phase %q", src, tr.Status.Phase)
				}
				if len(tr.Status.Jobs) != 1 || tr.Status.Jobs[0].Type != tcsv1.JobUploadIngest {
					t.Errorf("upload jobs %+v, want its ingest job queued", tr.Status.Jobs)
				}
				if got, err := e.store.Get(t.Context(), src.InputRef); err != nil || !bytes.Equal(got, srt) {
					t.Errorf("the stored file is %q, %v; want the uploaded bytes", got, err)
				}
			}},
		{name: "a web address is queued for its fetch, its format taken from its name",
			fields: map[string][]string{"source": {"url"}, "url": {"http://127.0.0.1:9/sermons/sunday.vtt"}, "category": defaults},
			check: func(t *testing.T, tr *tcsv1.Transcript) {
				if tr.Spec.Source.Type != tcsv1.SourceURL || tr.Spec.Source.Format != "vtt" || len(tr.Status.Jobs) != 1 || tr.Status.Jobs[0].Type != tcsv1.JobURLFetch {
					t.Errorf("url: %+v, jobs %+v", tr.Spec.Source, tr.Status.Jobs)
				}
			}},
		{name: "a YouTube link is queued for its captions",
			fields: map[string][]string{"source": {"youtube"}, "youtube": {"https://youtu.be/dQw4w9WgXcQ"}, "category": defaults},
			check: func(t *testing.T, tr *tcsv1.Transcript) {
				if tr.Spec.Source.Type != tcsv1.SourceYouTube || tr.Status.Jobs[0].Type != tcsv1.JobYouTubeFetch {
					t.Errorf("youtube: %+v, jobs %+v", tr.Spec.Source, tr.Status.Jobs)
				}
			}},
		{name: "an empty paste is refused", fields: map[string][]string{"source": {"paste"}, "content": {"  "}, "category": defaults}, errField: "content"},
		{name: "a paste above the limit is refused", fields: map[string][]string{"source": {"paste"}, "content": {strings.Repeat("a", limits.MaxPasteContent+1)}, "category": defaults}, errField: "content"},
		{name: "a paste that is not the format chosen is refused", fields: map[string][]string{"source": {"paste"}, "content": {"{not json"}, "format": {"json"}, "category": defaults}, errField: "content"},
		{name: "a paste may not be a Word document", fields: map[string][]string{"source": {"paste"}, "content": {"text"}, "format": {"docx"}, "category": defaults}, errField: "format"},
		{name: "no source is refused", fields: map[string][]string{"category": defaults}, errField: "source"},
		{name: "no file is refused", fields: map[string][]string{"source": {"file"}, "category": defaults}, errField: "file"},
		{name: "an empty file is refused", fields: map[string][]string{"source": {"file"}, "category": defaults}, file: "empty.txt", data: []byte{}, errField: "file"},
		{name: "a file above the API's limit is refused", fields: map[string][]string{"source": {"file"}, "category": defaults}, file: "big.txt", data: bytes.Repeat([]byte("a"), limits.MaxRemoteFile+1), errField: "file"},
		{name: "a web address of a private network is refused", fields: map[string][]string{"source": {"url"}, "url": {"http://10.1.2.3/a.txt"}, "category": defaults}, errField: "url"},
		{name: "a web address without a file name needs a format", fields: map[string][]string{"source": {"url"}, "url": {"http://127.0.0.1:9/sermon"}, "category": defaults}, errField: "format"},
		{name: "a link that is not YouTube's is refused", fields: map[string][]string{"source": {"youtube"}, "youtube": {"https://example.org/watch?v=1"}, "category": defaults}, errField: "youtube"},
		{name: "a title above the limit is refused", fields: map[string][]string{"source": {"paste"}, "content": {"x"}, "title": {strings.Repeat("t", limits.MaxTitle+1)}, "category": defaults}, errField: "title"},
		{name: "no category is refused", fields: map[string][]string{"source": {"paste"}, "content": {"x"}}, errField: "category"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := e.post(t, tc.fields, tc.file, tc.data)
			if tc.errField != "" {
				body := rec.Body.String()
				if rec.Code != http.StatusBadRequest || !strings.Contains(body, `id="`+tc.errField+`-error"`) {
					t.Fatalf("%d, want 400 with a message next to %s:\n%s", rec.Code, tc.errField, body)
				}
				// The form comes back with what was typed, the file aside.
				if c := tc.fields["content"]; len(c) == 1 && len(c[0]) < 100 && !strings.Contains(body, c[0]) {
					t.Errorf("the refused form lost its text %q", c[0])
				}
				return
			}
			m := createdID.FindStringSubmatch(rec.Header().Get("Location"))
			if rec.Code != http.StatusSeeOther || m == nil {
				t.Fatalf("%d to %q, want 303 to the new transcript's page:\n%s", rec.Code, rec.Header().Get("Location"), rec.Body)
			}
			tr, _, err := e.svc.Get(t.Context(), e.org, m[1])
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, tr)
		})
	}
}

// TestAddingATranscriptNeedsTheFormsToken refuses the add form without its CSRF token, and
// makes nothing.
func TestAddingATranscriptNeedsTheFormsToken(t *testing.T) {
	e := startAddEnv(t)
	e.session.CSRF = "not the token"
	rec := e.post(t, map[string][]string{"source": {"paste"}, "content": {"text"}, "category": {"bible", "place"}}, "", nil)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("%d, want 403", rec.Code)
	}
}

// get fetches path below the organization as the member.
func (e *addEnv) get(t *testing.T, path string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/dashboard/o/"+e.org+path, nil)
	req.AddCookie(&http.Cookie{Name: e.cookie, Value: e.session.Token})
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

// TestACompletedTranscriptDownloadsAsTheServicesContent adds captions from the form and
// downloads them in their format, named after their title, byte for byte the service's
// content, and as plain text; a transcript not yet corrected has nothing to download.
func TestACompletedTranscriptDownloadsAsTheServicesContent(t *testing.T) {
	e := startAddEnv(t)
	srt := "1\n00:00:01,000 --> 00:00:04,000\nTurn to first corinthians 13.\n"
	rec := e.post(t, map[string][]string{"source": {"paste"}, "content": {srt}, "format": {"srt"}, "title": {"Sunday service, 23 Nov"}, "category": {"bible", "place"}}, "", nil)
	m := createdID.FindStringSubmatch(rec.Header().Get("Location"))
	if m == nil {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	tr, _, err := e.svc.Get(t.Context(), e.org, m[1])
	if err != nil {
		t.Fatal(err)
	}
	content, err := e.svc.Content(t.Context(), e.org, tr)
	if err != nil || content == nil || !strings.Contains(*content, "00:00:01,000 --> 00:00:04,000\nTurn to 1 Corinthians 13.") {
		t.Fatalf("the service's content: %v, %v", content, err)
	}
	for _, tc := range []struct {
		query, disposition, contentType, body string
	}{
		{"", `attachment; filename="Sunday-service-23-Nov.srt"`, "application/x-subrip; charset=utf-8", *content},
		{"?as=text", `attachment; filename="Sunday-service-23-Nov.txt"`, "text/plain; charset=utf-8", "Turn to 1 Corinthians 13."},
	} {
		rec := e.get(t, "/transcripts/"+m[1]+"/download"+tc.query)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Disposition") != tc.disposition || rec.Header().Get("Content-Type") != tc.contentType || rec.Body.String() != tc.body {
			t.Errorf("download%s: %d %q %q %q; want %q %q %q", tc.query, rec.Code, rec.Header().Get("Content-Disposition"), rec.Header().Get("Content-Type"), rec.Body, tc.disposition, tc.contentType, tc.body)
		}
	}
	page := e.get(t, "/transcripts/"+m[1]).Body.String()
	if !strings.Contains(page, "<h1>Sunday service, 23 Nov</h1>") || !strings.Contains(page, `<textarea id="plain-text" readonly rows="12">Turn to 1 Corinthians 13.</textarea>`) {
		t.Errorf("the transcript's page has no title or plain text:\n%s", page)
	}

	rec = e.post(t, map[string][]string{"source": {"youtube"}, "youtube": {"https://youtu.be/dQw4w9WgXcQ"}, "category": {"bible", "place"}}, "", nil)
	m = createdID.FindStringSubmatch(rec.Header().Get("Location"))
	if m == nil {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if rec := e.get(t, "/transcripts/"+m[1]+"/download"); rec.Code != http.StatusConflict {
		t.Errorf("the download of a pending transcript: %d, want 409", rec.Code)
	}
	if page := e.get(t, "/transcripts/"+m[1]).Body.String(); !strings.Contains(page, "<h1>https://youtu.be/dQw4w9WgXcQ</h1>") {
		t.Errorf("a pending transcript without a title is not named by its address:\n%s", page)
	}
}

// TestTheListAndOverviewShowWhatStaffLookFor reads the overview and the list of a new
// organization and of one with transcripts added from the form: the first steps, titles, the
// count and filter of transcripts to review, a title search and its empty result, and a date
// refused next to its field.
func TestTheListAndOverviewShowWhatStaffLookFor(t *testing.T) {
	e := startAddEnvWith(t, true)
	if page := e.get(t, "/").Body.String(); !strings.Contains(page, `id="first-steps"`) || strings.Contains(page, "<table") {
		t.Errorf("a new organization's overview:\n%s", page)
	}
	if page := e.get(t, "/transcripts").Body.String(); !strings.Contains(page, "No transcripts yet") || strings.Contains(page, "No transcript matches") {
		t.Errorf("a new organization's list:\n%s", page)
	}
	for _, p := range []struct{ title, content string }{{"Easter morning", "He is risen."}, {"", "in genesis god made the heavens"}, {"Advent, week 1", "at capernum"}} {
		if rec := e.post(t, map[string][]string{"source": {"paste"}, "title": {p.title}, "content": {p.content}, "category": {"bible", "place"}}, "", nil); rec.Code != http.StatusSeeOther {
			t.Fatalf("adding %q: %d", p.content, rec.Code)
		}
	}
	rows := regexp.MustCompile(`<tr data-live="tr_[^"]+"><td><a href="[^"]+">([^<]+)</a>`)
	names := func(page string) string {
		var out []string
		for _, m := range rows.FindAllStringSubmatch(page, -1) {
			out = append(out, m[1])
		}
		return strings.Join(out, "|")
	}
	// The cache sees the new transcripts a moment later.
	var page string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if page = e.get(t, "/transcripts").Body.String(); strings.Count(page, "<tr data-live=") == 3 || time.Now().After(deadline) {
			break
		}
	}
	// A paste without a title is named by its first line.
	if got := names(page); got != "Advent, week 1|in genesis god made the heavens|Easter morning" {
		t.Errorf("the list names %q", got)
	}
	if !strings.Contains(page, `id="review-count">1 transcript has suggestions to review.`) {
		t.Errorf("no count of one transcript to review:\n%s", page)
	}
	for _, tc := range []struct{ query, names, says string }{
		{"?review=1", "in genesis god made the heavens", ""},
		{"?q=EASTER", "Easter morning", ""},
		{"?q=pentecost", "", "No transcript matches"},
		{"?status=failed", "", "No transcript matches"},
	} {
		page := e.get(t, "/transcripts"+tc.query).Body.String()
		if got := names(page); got != tc.names || !strings.Contains(page, tc.says) {
			t.Errorf("%s lists %q, want %q and %q", tc.query, got, tc.names, tc.says)
		}
		if tc.says != "" && !strings.Contains(page, `Clear filters</a>`) {
			t.Errorf("%s says nothing matches without a way to clear the filters", tc.query)
		}
	}
	if rec := e.get(t, "/transcripts?from=yesterday"); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `id="from-error"`) {
		t.Errorf("a date that is not one: %d", rec.Code)
	}
	if page := e.get(t, "/").Body.String(); strings.Contains(page, `id="first-steps"`) || !strings.Contains(page, "Easter morning") {
		t.Errorf("the overview of an organization with transcripts:\n%s", page)
	}
}

// TestAddingIsRateLimitedPerOrganization refuses the transcript past limits.CreatePerMinute
// in a minute, with the time to wait; a refused form is not counted.
func TestAddingIsRateLimitedPerOrganization(t *testing.T) {
	// The clock stands still, so that no time refills the allowance.
	frozen := clocktesting.NewFakePassiveClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	e := startAddEnvWith(t, false, func(o *Options) { o.Clock = frozen })
	if rec := e.post(t, map[string][]string{"source": {"paste"}, "content": {""}, "category": {"bible"}}, "", nil); rec.Code != http.StatusBadRequest {
		t.Fatalf("an empty paste: %d", rec.Code)
	}
	video := map[string][]string{"source": {"youtube"}, "youtube": {"https://youtu.be/dQw4w9WgXcQ"}, "category": {"bible", "place"}}
	for i := 0; i < limits.CreatePerMinute; i++ {
		if rec := e.post(t, video, "", nil); rec.Code != http.StatusSeeOther {
			t.Fatalf("transcript %d of the minute: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	rec := e.post(t, video, "", nil)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "try again in") {
		t.Fatalf("one past the limit: %d, Retry-After %q\n%s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
}

// TestTheKindsOfNamesChosenAreCorrected corrects the names of biblical people only when the
// form asks for them, as the engine's categories say.
func TestTheKindsOfNamesChosenAreCorrected(t *testing.T) {
	e := startAddEnv(t)
	const sermon = "good morning church let us pray\nthank you god for jesus and for your word in the bible amen\nking nebuchadnezzar had a dream in egypt\n"
	for _, tc := range []struct {
		name       string
		categories []string
		want       string
	}{
		{"by default, places but not people", []string{"bible", "place"}, "king nebuchadnezzar had a dream in Egypt"},
		{"people when chosen", []string{"bible", "place", "person"}, "king Nebuchadnezzar had a dream in Egypt"},
		{"people alone", []string{"person"}, "king Nebuchadnezzar had a dream in egypt"},
	} {
		rec := e.post(t, map[string][]string{"source": {"paste"}, "content": {sermon}, "category": tc.categories}, "", nil)
		m := createdID.FindStringSubmatch(rec.Header().Get("Location"))
		if m == nil {
			t.Fatalf("%s: %d %s", tc.name, rec.Code, rec.Body)
		}
		tr, _, err := e.svc.Get(t.Context(), e.org, m[1])
		if err != nil {
			t.Fatal(err)
		}
		content, err := e.svc.Content(t.Context(), e.org, tr)
		if err != nil || content == nil || !strings.Contains(*content, tc.want) {
			t.Errorf("%s: the content is %v (%v), want it to say %q", tc.name, content, err, tc.want)
		}
	}
}
