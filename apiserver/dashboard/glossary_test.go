package dashboard

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/glossary"
)

// upload sends file as the field "file" of a multipart form to path as the session's member.
func (s *staffEnv) upload(t *testing.T, session *accounts.Session, path string, file []byte) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("csrf", session.CSRF)
	fw, err := mw.CreateFormFile("file", "glossary.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(file)
	_ = mw.Close()
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/dashboard/o/"+s.org+path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(&http.Cookie{Name: s.d.cookieName(), Value: session.Token})
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// auditActions returns the actions of the audit trail of the environment's organization.
func (s *staffEnv) auditActions() []string {
	a := s.d.o.Audit.(*memoryAudit)
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, e := range a.entries {
		out = append(out, e.Action+" by "+e.Actor)
	}
	return out
}

// The glossary page lists, adds, changes, deletes (after a confirmation), imports and exports
// entries through the glossary service, as the member; members read it and change nothing.
func TestTheGlossaryPage(t *testing.T) {
	s := startStaffEnv(t)
	ctx := t.Context()
	gm := &glossary.Manager{Client: s.env.c, Namespace: s.env.ns}
	entries := func() []string {
		t.Helper()
		g, err := gm.Get(ctx, s.org)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range g.Entries {
			out = append(out, e.Term+"="+strings.Join(e.Forms, "|")+"/"+e.Category+"/"+e.UpdatedBy)
		}
		return out
	}

	// The page lists the entry with who changed it when, in the organization's time zone.
	page := s.get(t, s.session, "/glossary").Body.String()
	for _, want := range []string{"Capernaum", "capernum", "places of jesus", "Add a word", `action="/dashboard/o/` + s.org + `/glossary/import#csv"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the glossary page does not say %q", want)
		}
	}

	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		say    string
	}{
		{"an entry without a term is refused in words", url.Values{"term": {""}}, http.StatusBadRequest, "The term: is empty; write it."},
		{"a category of the engine is refused in words", url.Values{"term": {"Okonkwo"}, "category": {"bible"}}, http.StatusBadRequest, "is a kind of word tcs corrects itself"},
		{"a form of another entry is refused in words", url.Values{"term": {"Capernum Town"}, "forms": {"Capernaum"}}, http.StatusBadRequest, "has the same words as the entry &#34;Capernaum&#34;"},
		{"an entry is added", url.Values{"term": {"Pastor Okonkwo"}, "forms": {"pastor okonquo\r\npastor okonko\r\n"}, "apply": {"auto"}, "category": {"name"}}, http.StatusSeeOther, ""},
	} {
		rec := s.post(t, s.session, "/glossary", tc.form)
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.say) {
			t.Errorf("%s: %d, want %d saying %q:\n%.3000s", tc.name, rec.Code, tc.status, tc.say, rec.Body)
		}
	}
	if got := entries(); !slices.Equal(got, []string{"Capernaum=capernum/places_of_jesus/" + s.owner, "Pastor Okonkwo=pastor okonquo|pastor okonko/name/" + s.owner}) {
		t.Fatalf("after adding: %q", got)
	}
	g, _ := gm.Get(ctx, s.org)
	id := g.Entries[1].ID
	// Who changed the entry when, at the dashboard's clock, in the organization's time zone.
	if body := s.get(t, s.session, "/glossary").Body.String(); !strings.Contains(body, "Mon 23 Nov, 20:30<br><span class=\"muted\">by "+s.owner) {
		t.Errorf("the page does not say who changed the entry when:\n%s", body)
	}

	// A change sent with the version the page showed is refused once the glossary changed.
	rec := s.post(t, s.session, "/glossary/"+id, url.Values{"term": {"Pastor Okonkwo"}, "version": {"1"}})
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "Someone else changed the glossary") {
		t.Errorf("a change at an old version: %d\n%.2000s", rec.Code, rec.Body)
	}
	// The edit form shows the entry; saving changes it.
	if body := s.get(t, s.session, "/glossary?edit="+id).Body.String(); !strings.Contains(body, "pastor okonquo\npastor okonko</textarea>") || !strings.Contains(body, `value="auto" checked`) {
		t.Errorf("the edit form does not show the entry:\n%s", body)
	}
	if rec := s.post(t, s.session, "/glossary/"+id, url.Values{"term": {"Pastor Okonkwo"}, "forms": {"pastor okonquo"}, "apply": {"suggest"}, "category": {"name"}, "version": {g.Version}}); rec.Code != http.StatusSeeOther {
		t.Errorf("saving a change: %d\n%.2000s", rec.Code, rec.Body)
	}
	if got := entries(); got[1] != "Pastor Okonkwo=pastor okonquo/name/"+s.owner {
		t.Errorf("after the change: %q", got)
	}

	// Deleting takes a confirmation: the page links to it, the confirmation holds the form.
	form := `<form method="post" action="/dashboard/o/` + s.org + `/glossary/` + id + `/delete"`
	if body := s.get(t, s.session, "/glossary").Body.String(); strings.Contains(body, form) || !strings.Contains(body, "/glossary?delete="+id) {
		t.Errorf("the glossary page offers deleting without a confirmation")
	}
	if body := s.get(t, s.session, "/glossary?delete="+id).Body.String(); !strings.Contains(body, form) || !strings.Contains(body, "Delete “Pastor Okonkwo” from the glossary?") {
		t.Errorf("the confirmation lacks the form:\n%s", body)
	}

	// A member reads the page, is offered no form, and is refused every change.
	body := s.get(t, s.memberSession, "/glossary?delete="+id+"&edit="+id).Body.String()
	if !strings.Contains(body, "Pastor Okonkwo") || strings.Contains(body, form) || strings.Contains(body, "Add a word") || strings.Contains(body, "/glossary/import") {
		t.Errorf("a member's glossary page offers changes:\n%s", body)
	}
	for _, p := range []string{"/glossary", "/glossary/" + id, "/glossary/" + id + "/delete"} {
		if rec := s.post(t, s.memberSession, p, url.Values{"term": {"X"}}); rec.Code != http.StatusForbidden {
			t.Errorf("a member posting %s: %d, want 403", p, rec.Code)
		}
	}
	if rec := s.upload(t, s.memberSession, "/glossary/import", []byte(glossary.CSVHeader+"\nX,,false,false,\n")); rec.Code != http.StatusForbidden {
		t.Errorf("a member importing: %d, want 403", rec.Code)
	}

	if rec := s.post(t, s.session, "/glossary/"+id+"/delete", url.Values{}); rec.Code != http.StatusSeeOther {
		t.Errorf("deleting: %d", rec.Code)
	}
	if got := entries(); len(got) != 1 {
		t.Errorf("after deleting: %q", got)
	}

	// Export downloads the CSV file of the glossary, which a member may do.
	rec = s.get(t, s.memberSession, "/glossary/export")
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/csv; charset=utf-8" ||
		!strings.Contains(rec.Header().Get("Content-Disposition"), "attachment") || rec.Body.String() != glossary.CSVHeader+"\nCapernaum,capernum,false,false,places_of_jesus\n" {
		t.Errorf("export: %d %v\n%s", rec.Code, rec.Header(), rec.Body)
	}

	// A file refused names its line and column in words, and changes nothing.
	rec = s.upload(t, s.session, "/glossary/import", []byte(glossary.CSVHeader+"\nBethel,bethal,false,false,church\nZion,,maybe,false,\n"))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "Line 3, column 3 (sounds alike)") || !strings.Contains(rec.Body.String(), "nothing was changed") {
		t.Errorf("a file refused: %d\n%s", rec.Code, rec.Body)
	}
	if rec := s.upload(t, s.session, "/glossary/import", nil); rec.Code != http.StatusBadRequest {
		t.Errorf("an empty upload: %d", rec.Code)
	}
	if got := entries(); len(got) != 1 {
		t.Errorf("after a refused import: %q", got)
	}
	// A file imported replaces the glossary.
	rec = s.upload(t, s.session, "/glossary/import", []byte(glossary.CSVHeader+"\nBethel Tabernacle,bethal tabernacle,false,true,church\n"))
	if rec.Code != http.StatusSeeOther {
		t.Errorf("importing: %d\n%s", rec.Code, rec.Body)
	}
	if got := entries(); !slices.Equal(got, []string{"Bethel Tabernacle=bethal tabernacle/church/" + s.owner}) {
		t.Errorf("after importing: %q", got)
	}

	// Each change is in the audit trail, by the member who made it.
	want := []string{"GlossaryEntryAdded by " + s.owner, "GlossaryEntryChanged by " + s.owner, "GlossaryEntryDeleted by " + s.owner, "GlossaryImported by " + s.owner}
	if got := s.auditActions(); !slices.Equal(got, want) {
		t.Errorf("audit trail: %q, want %q", got, want)
	}
}

// An organization without a glossary is told what one is for, with an example.
func TestAnEmptyGlossarySaysWhatItIsFor(t *testing.T) {
	s := startStaffEnv(t)
	gm := &glossary.Manager{Client: s.env.c, Namespace: s.env.ns}
	if _, err := gm.Replace(t.Context(), s.org, s.owner, nil, ""); err != nil {
		t.Fatal(err)
	}
	for _, session := range []*accounts.Session{s.session, s.memberSession} {
		body := s.get(t, session, "/glossary").Body.String()
		for _, want := range []string{"The glossary is empty", "names of your pastors, your church, local places", "Pastor Okonkwo"} {
			if !strings.Contains(body, want) {
				t.Errorf("the empty glossary page does not say %q", want)
			}
		}
	}
}

// A transcript pasted in the dashboard is corrected with the organization's glossary, as one
// pasted through the API is.
func TestAPasteIsCorrectedWithTheGlossary(t *testing.T) {
	var gm *glossary.Manager
	e := startAddEnvWith(t, false, func(o *Options) {
		o.Add.Glossaries = glossary.NewCompiler(o.Client, o.Namespace, 0)
		gm = &glossary.Manager{Client: o.Client, Namespace: o.Namespace}
	})
	if _, _, err := gm.Add(t.Context(), e.org, "office@example.org", glossary.Input{Term: "Pastor Okonkwo", Forms: []string{"pastor okonquo"}, Auto: true}, ""); err != nil {
		t.Fatal(err)
	}
	rec := e.post(t, map[string][]string{"source": {"paste"}, "content": {"We welcome pastor okonquo."}, "category": {"bible", "place"}}, "", nil)
	m := createdID.FindStringSubmatch(rec.Header().Get("Location"))
	if m == nil {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	tr, _, err := e.svc.Get(t.Context(), e.org, m[1])
	if err != nil {
		t.Fatal(err)
	}
	content, err := e.svc.Content(t.Context(), e.org, tr)
	if err != nil || content == nil || *content != "We welcome Pastor Okonkwo." {
		t.Fatalf("the pasted transcript reads %v, %v; want it corrected by the glossary", content, err)
	}
}
