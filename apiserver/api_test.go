package apiserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/orgs"
)

// response is a decoded API answer.
type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// do sends a request with API key key ("" for none).
func (h *harness) do(t *testing.T, method, path, key, contentType string, body []byte) response {
	t.Helper()
	auth := ""
	if key != "" {
		auth = "Bearer " + key
	}
	return h.request(t, method, path, auth, contentType, body)
}

// request sends a request with the Authorization header auth ("" for none) and extra headers
// given as name, value pairs.
func (h *harness) request(t *testing.T, method, path, auth, contentType string, body []byte, extra ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, h.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Set(extra[i], extra[i+1])
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	// Whatever the API accepts, the document allows; whatever the document forbids, the API
	// refuses.
	if err := openAPIDoc(t).CheckAgreement(method, req.URL.String(), req.Header, body, res.StatusCode); err != nil {
		t.Errorf("%s %s: %v", method, path, err)
	}
	out := response{status: res.StatusCode, header: res.Header, raw: raw}
	// A CSV file (the glossary's export) is left in raw.
	if len(raw) > 0 && !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			t.Fatalf("%s %s: body is not a JSON object: %v\n%s", method, path, err, raw)
		}
	}
	if id := res.Header.Get("X-Request-Id"); !strings.HasPrefix(id, "req_") {
		t.Fatalf("%s %s: X-Request-Id = %q, want req_…", method, path, id)
	}
	return out
}

func (h *harness) paste(t *testing.T, key string, body any) response {
	t.Helper()
	b, _ := json.Marshal(body)
	return h.do(t, http.MethodPost, "/api/v1/transcripts", key, "application/json", b)
}

// wantError checks the spec's error object, and that its request_id is the header's.
func wantError(t *testing.T, r response, status int, typ, param string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.raw)
	}
	e, ok := r.body["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %s", r.raw)
	}
	if e["type"] != typ {
		t.Errorf("error.type = %v, want %s", e["type"], typ)
	}
	if msg, _ := e["message"].(string); msg == "" {
		t.Errorf("error.message is empty")
	}
	if got, _ := e["param"].(string); got != param {
		t.Errorf("error.param = %q, want %q (%s)", got, param, r.raw)
	}
	if e["request_id"] != r.header.Get("X-Request-Id") {
		t.Errorf("error.request_id = %v, header %s", e["request_id"], r.header.Get("X-Request-Id"))
	}
}

func TestAPI(t *testing.T) {
	h := newHarness(t)

	t.Run("healthz needs no key", func(t *testing.T) {
		r := h.do(t, http.MethodGet, "/healthz", "", "", nil)
		if r.status != http.StatusOK || r.body["status"] != "ok" {
			t.Fatalf("healthz = %d %s", r.status, r.raw)
		}
	})

	t.Run("unknown route and wrong method", func(t *testing.T) {
		wantError(t, h.do(t, http.MethodGet, "/api/v1/nothing", h.keyA.Value, "", nil), http.StatusNotFound, ErrNotFound, "")
		wantError(t, h.do(t, http.MethodGet, "/nothing", "", "", nil), http.StatusNotFound, ErrNotFound, "")
		r := h.do(t, http.MethodDelete, "/api/v1/me", h.keyA.Value, "", nil)
		wantError(t, r, http.StatusMethodNotAllowed, ErrInvalidRequest, "")
	})

	t.Run("authentication", func(t *testing.T) {
		ctx := t.Context()
		expired, err := orgs.CreateKey(ctx, h.client, h.namespace, h.keyA.OrganizationID, "expired")
		if err != nil {
			t.Fatal(err)
		}
		sec := secretOf(t, h, expired.ID)
		sec.Annotations[tcsv1.AnnotationAPIKeyExpiresAt] = time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
		if err := h.client.Update(ctx, sec); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name, header string
		}{
			{"missing", ""},
			{"not bearer", "Basic " + h.keyA.Value},
			{"malformed", "Bearer sk_live_"},
			{"wrong prefix", "Bearer sk_test_" + strings.TrimPrefix(h.keyA.Value, "sk_live_")},
			{"unknown", "Bearer sk_live_abcdefghijklmnopqrstuvwxyz012345"},
			{"one character off", "Bearer " + h.keyA.Value[:len(h.keyA.Value)-1] + flip(h.keyA.Value[len(h.keyA.Value)-1])},
			{"expired", "Bearer " + expired.Value},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var r response
				if tc.name == "expired" {
					// The cache sees the annotation a moment after the update.
					deadline := time.Now().Add(5 * time.Second)
					for {
						r = h.request(t, http.MethodGet, "/api/v1/me", tc.header, "", nil)
						if r.status == http.StatusUnauthorized || time.Now().After(deadline) {
							break
						}
						time.Sleep(50 * time.Millisecond)
					}
				} else {
					r = h.request(t, http.MethodGet, "/api/v1/me", tc.header, "", nil)
				}
				wantError(t, r, http.StatusUnauthorized, ErrUnauthorized, "")
			})
		}
		// Authentication comes before validation: a bad body with no key is still a 401.
		wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts", "", "application/json", []byte("{")), http.StatusUnauthorized, ErrUnauthorized, "")
	})

	t.Run("me", func(t *testing.T) {
		r := h.do(t, http.MethodGet, "/api/v1/me", h.keyA.Value, "", nil)
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.raw)
		}
		if r.body["api_key_id"] != h.keyA.ID || r.body["organization_id"] != h.keyA.OrganizationID || r.body["label"] != "key of A" {
			t.Fatalf("me = %s, want key %s of %s", r.raw, h.keyA.ID, h.keyA.OrganizationID)
		}
	})

	t.Run("paste end to end", func(t *testing.T) {
		content := "Love Is Patient\n\nturn with me to Revelations 21:4 and then to Phillipians 4:13.\n"
		r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": content})
		if r.status != http.StatusCreated {
			t.Fatalf("status %d: %s", r.status, r.raw)
		}
		id, _ := r.body["id"].(string)
		if !strings.HasPrefix(id, "tr_") || r.body["object"] != "transcript" || r.body["status"] != "completed" ||
			r.body["ai_pass_status"] != "idle" || r.body["source_type"] != "paste" || r.body["title"] != "Love Is Patient" {
			t.Fatalf("unexpected transcript %s", r.raw)
		}
		wantContent := "Love Is Patient\n\nturn with me to Revelation 21:4 and then to Philippians 4:13.\n"
		if r.body["content"] != wantContent {
			t.Fatalf("content = %q, want %q", r.body["content"], wantContent)
		}
		sum, _ := r.body["changes_summary"].(map[string]any)
		by, _ := sum["by_category"].(map[string]any)
		if sum["total"] != 2.0 || sum["auto_applied"] != 2.0 || sum["needs_review"] != 0.0 || sum["ai_flagged"] != 0.0 || by["bible"] != 2.0 {
			t.Fatalf("changes_summary = %v", sum)
		}
		for _, f := range []string{"created_at", "completed_at"} {
			if _, err := time.Parse(time.RFC3339, r.body[f].(string)); err != nil {
				t.Errorf("%s = %v: %v", f, r.body[f], err)
			}
		}
		if r.body["source_format"] != "txt" {
			t.Errorf("source_format = %v, want the sniffed txt", r.body["source_format"])
		}

		// The resource is completed, with true conditions for its generation.
		tr := &tcsv1.Transcript{}
		if err := h.client.Get(t.Context(), types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
			t.Fatal(err)
		}
		if tr.Status.Phase != tcsv1.PhaseCompleted || tr.Spec.Organization != h.keyA.OrganizationID || tr.Labels[tcsv1.LabelOrganization] != h.keyA.OrganizationID {
			t.Fatalf("resource %+v", tr.Status)
		}
		// A paste is created completed: both events, in order, in the one status write.
		if strings.Join(tr.EmittedEventTypes(), ",") != "transcript.created,transcript.completed" {
			t.Fatalf("emitted events %v", tr.Status.EmittedEvents)
		}
		ready := meta.FindStatusCondition(tr.Status.Conditions, tcsv1.ConditionReady)
		if ready == nil || ready.Status != metav1.ConditionTrue || ready.ObservedGeneration != tr.Generation || tr.Status.ObservedGeneration != tr.Generation {
			t.Fatalf("Ready condition %+v, generation %d", ready, tr.Generation)
		}
		// Text lives in the object store, not in etcd.
		stored, err := h.store.Get(t.Context(), tr.Status.ContentRef)
		if err != nil || string(stored) != wantContent {
			t.Fatalf("stored content %q, %v", stored, err)
		}
		input, err := h.store.Get(t.Context(), tr.Spec.Source.InputRef)
		if err != nil || string(input) != content {
			t.Fatalf("stored input %q, %v", input, err)
		}

		g := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
		if g.status != http.StatusOK || g.body["content"] != wantContent || g.body["id"] != id || g.body["status"] != "completed" {
			t.Fatalf("GET = %d %s", g.status, g.raw)
		}
		if g.header.Get("Retry-After") != "" {
			t.Errorf("a completed transcript carries Retry-After")
		}
		wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyB.Value, "", nil), http.StatusForbidden, ErrForbidden, "id")
		wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/tr_doesnotexist0000000", h.keyA.Value, "", nil), http.StatusNotFound, ErrNotFound, "id")
		wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/not-an-id", h.keyA.Value, "", nil), http.StatusNotFound, ErrNotFound, "id")
	})

	t.Run("changes", func(t *testing.T) {
		r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste",
			"content": "Revelations 1:1, Phillipians 2:2 and Revelations 3:3"})
		if r.status != http.StatusCreated {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		base := "/api/v1/transcripts/" + r.body["id"].(string) + "/changes"
		all := h.do(t, http.MethodGet, base, h.keyA.Value, "", nil)
		data, _ := all.body["data"].([]any)
		if all.status != 200 || all.body["object"] != "list" || all.body["has_more"] != false || all.body["url"] != base || len(data) != 3 {
			t.Fatalf("changes = %d %s", all.status, all.raw)
		}
		first := data[0].(map[string]any)
		if first["object"] != "change" || first["original"] != "Revelations" || first["replacement"] != "Revelation" ||
			first["start"] != 0.0 || first["end"] != 11.0 || first["line"] != 1.0 || first["status"] != "auto_applied" || first["category"] != "bible" {
			t.Fatalf("first change %v", first)
		}
		ids := []string{first["id"].(string), data[1].(map[string]any)["id"].(string), data[2].(map[string]any)["id"].(string)}
		for _, tc := range []struct {
			query   string
			want    []string
			hasMore bool
		}{
			{"?limit=2", ids[:2], true},
			{"?limit=2&starting_after=" + ids[1], ids[2:], false},
			{"?limit=1&starting_after=" + ids[0], ids[1:2], true},
			{"?limit=1&ending_before=" + ids[2], ids[1:2], true},
			{"?ending_before=" + ids[0], nil, false},
		} {
			p := h.do(t, http.MethodGet, base+tc.query, h.keyA.Value, "", nil)
			got := []string{}
			for _, d := range p.body["data"].([]any) {
				got = append(got, d.(map[string]any)["id"].(string))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") || p.body["has_more"] != tc.hasMore {
				t.Errorf("%s: ids %v has_more %v; want %v %v", tc.query, got, p.body["has_more"], tc.want, tc.hasMore)
			}
		}
		wantError(t, h.do(t, http.MethodGet, base+"?limit=0", h.keyA.Value, "", nil), 400, ErrInvalidRequest, "limit")
		wantError(t, h.do(t, http.MethodGet, base+"?limit=101", h.keyA.Value, "", nil), 400, ErrInvalidRequest, "limit")
		wantError(t, h.do(t, http.MethodGet, base+"?starting_after=chg_9999", h.keyA.Value, "", nil), 400, ErrInvalidRequest, "starting_after")
		wantError(t, h.do(t, http.MethodGet, base+"?starting_after=a&ending_before=b", h.keyA.Value, "", nil), 400, ErrInvalidRequest, "ending_before")
		wantError(t, h.do(t, http.MethodGet, base, h.keyB.Value, "", nil), http.StatusForbidden, ErrForbidden, "id")
		wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/tr_nothing/changes", h.keyA.Value, "", nil), http.StatusNotFound, ErrNotFound, "id")
	})

	t.Run("paste options", func(t *testing.T) {
		r := h.paste(t, h.keyA.Value, map[string]any{
			"source_type": "paste", "content": "1\n00:00:01,000 --> 00:00:03,000\nread revelations 3:20\n",
			"title": "  Knocking  ", "source_format": "srt",
		})
		if r.status != http.StatusCreated || r.body["title"] != "Knocking" || r.body["source_format"] != "srt" {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		if r.body["content"] != "1\n00:00:01,000 --> 00:00:03,000\nread Revelation 3:20\n" {
			t.Fatalf("content = %q", r.body["content"])
		}
		// curl -d sends form-urlencoded by default; the body is still JSON.
		body := []byte(`{"source_type":"paste","content":"genesis 1:1"}`)
		r = h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "application/x-www-form-urlencoded", body)
		if r.status != http.StatusCreated {
			t.Fatalf("form-urlencoded JSON: %d %s", r.status, r.raw)
		}
	})

	t.Run("validation", func(t *testing.T) {
		big := strings.Repeat("a", 2_000_001)
		for _, tc := range []struct {
			name, body, contentType, query string
			status                         int
			typ, param                     string
		}{
			{"malformed JSON", `{"source_type":`, "", "", 400, ErrInvalidRequest, ""},
			{"empty body", ``, "", "", 400, ErrInvalidRequest, ""},
			{"not an object", `[1,2]`, "", "", 400, ErrInvalidRequest, ""},
			{"missing source_type", `{"content":"x"}`, "", "", 400, ErrInvalidRequest, "source_type"},
			{"unknown source_type", `{"source_type":"fax","content":"x"}`, "", "", 400, ErrInvalidRequest, "source_type"},
			{"source_type not a string", `{"source_type":1,"content":"x"}`, "", "", 400, ErrInvalidRequest, "source_type"},
			{"missing content", `{"source_type":"paste"}`, "", "", 400, ErrInvalidRequest, "content"},
			{"null content", `{"source_type":"paste","content":null}`, "", "", 400, ErrInvalidRequest, "content"},
			{"content not a string", `{"source_type":"paste","content":42}`, "", "", 400, ErrInvalidRequest, "content"},
			{"blank content", `{"source_type":"paste","content":"  \n "}`, "", "", 400, ErrInvalidRequest, "content"},
			{"content over 2 MB", `{"source_type":"paste","content":"` + big + `"}`, "", "", 400, ErrInvalidRequest, "content"},
			{"content invalid UTF-8", "{\"source_type\":\"paste\",\"content\":\"ro\xffmans 8:28\"}", "", "", 400, ErrInvalidRequest, "content"},
			{"content lone surrogate", `{"source_type":"paste","content":"a\ud800b"}`, "", "", 400, ErrInvalidRequest, "content"},
			{"bad source_format", `{"source_type":"paste","content":"x","source_format":"pdf"}`, "", "", 400, ErrInvalidRequest, "source_format"},
			{"docx is not pasted", `{"source_type":"paste","content":"x","source_format":"docx"}`, "", "", 400, ErrInvalidRequest, "source_format"},
			{"title not a string", `{"source_type":"paste","content":"x","title":["a"]}`, "", "", 400, ErrInvalidRequest, "title"},
			{"unknown field", `{"source_type":"paste","content":"x","colour":"red"}`, "", "", 400, ErrInvalidRequest, "colour"},
			{"field of another source", `{"source_type":"paste","content":"x","url":"https://example.org"}`, "", "", 400, ErrInvalidRequest, "url"},
			{"options not an object", `{"source_type":"paste","content":"x","options":true}`, "", "", 400, ErrInvalidRequest, "options"},
			{"unknown option", `{"source_type":"paste","content":"x","options":{"speed":1}}`, "", "", 400, ErrInvalidRequest, "options.speed"},
			{"ai_pass.enabled not a boolean", `{"source_type":"paste","content":"x","options":{"ai_pass":{"enabled":"yes"}}}`, "", "", 400, ErrInvalidRequest, "options.ai_pass.enabled"},
			{"wait not a boolean", `{"source_type":"paste","content":"x"}`, "", "?wait=maybe", 400, ErrInvalidRequest, "wait"},
			{"timeout below range", `{"source_type":"paste","content":"x"}`, "", "?wait=true&timeout=4", 400, ErrInvalidRequest, "timeout"},
			{"timeout above range", `{"source_type":"paste","content":"x"}`, "", "?wait=true&timeout=61", 400, ErrInvalidRequest, "timeout"},
			{"text/plain", `{"source_type":"paste","content":"x"}`, "text/plain", "", 415, ErrInvalidRequest, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ct := tc.contentType
				if ct == "" {
					ct = "application/json"
				}
				r := h.do(t, http.MethodPost, "/api/v1/transcripts"+tc.query, h.keyA.Value, ct, []byte(tc.body))
				wantError(t, r, tc.status, tc.typ, tc.param)
			})
		}
		// Nothing was created by the refused requests.
		var list tcsv1.TranscriptList
		if err := h.client.List(t.Context(), &list, client.InNamespace(h.namespace)); err != nil {
			t.Fatal(err)
		}
		for _, tr := range list.Items {
			if tr.Spec.Source.Title == "x" || tr.Status.Title == "x" {
				t.Fatalf("a refused request created %s", tr.Name)
			}
		}
	})
}

func flip(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}

func secretOf(t *testing.T, h *harness, keyID string) *corev1.Secret {
	t.Helper()
	var list corev1.SecretList
	if err := h.client.List(t.Context(), &list, client.InNamespace(h.namespace), client.MatchingLabels{tcsv1.LabelAPIKeyID: keyID}); err != nil || len(list.Items) != 1 {
		t.Fatalf("finding the Secret of %s: %v (%d found)", keyID, err, len(list.Items))
	}
	return &list.Items[0]
}
