package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/controllers"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// archiverManager returns a manager (not started) running the archiver on h's namespace with
// archive-after after, and the object store it uses.
func (h *harness) archiverManager(t *testing.T, rs *results.Store, after time.Duration) (ctrl.Manager, *blob.Store) {
	t.Helper()
	mgr := env.NewManager(t, h.namespace)
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &tcsv1.WebhookEndpoint{},
		controllers.IndexWebhookEndpointOrganization, func(o client.Object) []string {
			return []string{o.(*tcsv1.WebhookEndpoint).Spec.Organization}
		}); err != nil {
		t.Fatal(err)
	}
	blobs, err := blob.OpenDir(h.storeDir)
	if err != nil {
		t.Fatal(err)
	}
	a := &controllers.ArchiveReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Namespace: h.namespace, Results: rs, Blobs: blobs, After: after}
	if err := a.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	return mgr, blobs
}

// runArchiver runs the archiver on h's namespace with a short archive-after until every
// transcript of ids left the cluster, then stops it.
func (h *harness) runArchiver(t *testing.T, rs *results.Store, ids ...string) {
	t.Helper()
	mgr, blobs := h.archiverManager(t, rs, 100*time.Millisecond)
	// The transcript controller lets a deleted transcript go (its finalizer).
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	tr := &controllers.TranscriptReconciler{Client: mgr.GetClient(), Processor: pipeline.New(engine, blobs), Store: blobs}
	if err := tr.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	stop := testenv.Run(t, mgr)
	defer stop()
	deadline := time.Now().Add(20 * time.Second)
	for _, id := range ids {
		for {
			err := h.client.Get(context.Background(), types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, &tcsv1.Transcript{})
			if apierrors.IsNotFound(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("transcript %s was not archived: %v", id, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// openResults opens a results store: PostgreSQL when postgres is set, else SQLite.
func openResults(t *testing.T, dsn string) *results.Store {
	t.Helper()
	if dsn == "" {
		dsn = "sqlite://" + filepath.Join(t.TempDir(), "results.db")
	}
	rs, err := results.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	return rs
}

// TestArchivedTranscriptsReadAsLive checks that the API answers the same for a transcript
// once it is archived: GET, changes, jobs, the list with its cursors and filters mixing
// archived and live transcripts, soft delete, and the AI-pass trigger, which brings it back.
func TestArchivedTranscriptsReadAsLive(t *testing.T) {
	testArchivedTranscriptsReadAsLive(t, "")
}

// TestArchivedTranscriptsReadAsLivePostgres is TestArchivedTranscriptsReadAsLive with the
// results store on a real PostgreSQL server.
func TestArchivedTranscriptsReadAsLivePostgres(t *testing.T) {
	testArchivedTranscriptsReadAsLive(t, newPostgresDatabase(t))
}

func testArchivedTranscriptsReadAsLive(t *testing.T, dsn string) {
	rs := openResults(t, dsn)
	h := newHarnessWith(t, harnessOptions{results: rs})
	ctx := context.Background()
	paste := func(i int) string {
		r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": fmt.Sprintf("sermon %d: read revelations 21:4", i)})
		if r.status != 201 {
			t.Fatalf("paste: %d %s", r.status, r.raw)
		}
		return r.body["id"].(string)
	}
	var archived []string
	for i := range 4 {
		archived = append(archived, paste(i))
	}
	other := h.paste(t, h.keyB.Value, map[string]any{"source_type": "paste", "content": "other church"}).body["id"].(string)
	// What the API shows of each before it moves.
	before := map[string]string{}
	for _, id := range archived {
		for _, path := range []string{"/api/v1/transcripts/" + id, "/api/v1/transcripts/" + id + "/changes?limit=100"} {
			before[path] = string(h.do(t, http.MethodGet, path, h.keyA.Value, "", nil).raw)
		}
		job := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil).body["jobs"].([]any)[0].(map[string]any)["id"].(string)
		before["/api/v1/jobs/"+job] = string(h.do(t, http.MethodGet, "/api/v1/jobs/"+job, h.keyA.Value, "", nil).raw)
	}
	h.runArchiver(t, rs, append(archived, other)...)
	var live []string
	for i := range 3 {
		live = append(live, paste(10+i))
	}

	t.Run("get", func(t *testing.T) {
		for path, want := range before {
			r := h.do(t, http.MethodGet, path, h.keyA.Value, "", nil)
			if r.status != 200 || string(r.raw) != want {
				t.Errorf("GET %s of an archived transcript: %d %s\nwant %s", path, r.status, r.raw, want)
			}
		}
		// The dashboard reads through the same transcripts service.
		shown, _, err := h.srv.Transcripts().Get(ctx, h.keyA.OrganizationID, archived[0])
		var content *string
		if err == nil {
			content, err = h.srv.Transcripts().Content(ctx, h.keyA.OrganizationID, shown)
		}
		if err != nil || shown.Spec.ID != archived[0] || content == nil {
			t.Errorf("in-process read of an archived transcript: %v %v", shown, err)
		}
		wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/"+archived[0], h.keyB.Value, "", nil), 403, ErrForbidden, "id")
		wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/"+other, h.keyA.Value, "", nil), 403, ErrForbidden, "id")
	})

	// Newest first: the live ones, then the archived ones.
	newest := append(reverse(live), reverse(archived)...)
	waitList(t, h, len(newest))
	t.Run("list", func(t *testing.T) {
		for _, tc := range []struct {
			query   string
			want    []string
			hasMore bool
		}{
			{"?limit=100", newest, false},
			{"?limit=2", newest[:2], true},
			{"?limit=3", newest[:3], true},
			{"?limit=4&starting_after=" + newest[1], newest[2:6], true},
			{"?limit=2&starting_after=" + newest[2], newest[3:5], true}, // a live cursor into the store
			{"?limit=2&starting_after=" + newest[4], newest[5:7], false},
			{"?limit=2&ending_before=" + newest[4], newest[2:4], true}, // an archived cursor back to live ones
			{"?limit=3&ending_before=" + newest[3], newest[0:3], false},
			{"?limit=100&status=completed", newest, false},
			{"?limit=100&status=failed", nil, false},
			{"?limit=100&source_type=url", nil, false},
		} {
			r := h.do(t, http.MethodGet, "/api/v1/transcripts"+tc.query, h.keyA.Value, "", nil)
			if got := dataIDs(t, r); strings.Join(got, ",") != strings.Join(tc.want, ",") || r.body["has_more"] != tc.hasMore {
				t.Errorf("%s: %v has_more %v; want %v has_more %v", tc.query, got, r.body["has_more"], tc.want, tc.hasMore)
			}
		}
		// Pages walked either way cover every transcript once.
		var walked []string
		q := "?limit=2"
		for {
			r := h.do(t, http.MethodGet, "/api/v1/transcripts"+q, h.keyA.Value, "", nil)
			ids := dataIDs(t, r)
			walked = append(walked, ids...)
			if r.body["has_more"] != true {
				break
			}
			q = "?limit=2&starting_after=" + ids[len(ids)-1]
		}
		if strings.Join(walked, ",") != strings.Join(newest, ",") {
			t.Errorf("walked %v, want %v", walked, newest)
		}
	})

	t.Run("delete", func(t *testing.T) {
		id := archived[1]
		r := h.do(t, http.MethodDelete, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
		if r.status != 200 || r.body["deleted"] != true || r.body["id"] != id {
			t.Fatalf("DELETE of an archived transcript: %d %s", r.status, r.raw)
		}
		wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil), 404, ErrNotFound, "id")
		wantError(t, h.do(t, http.MethodDelete, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil), 404, ErrNotFound, "id")
		wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts/"+id+"/ai_pass", h.keyA.Value, "", nil), 404, ErrNotFound, "id")
		r = h.do(t, http.MethodGet, "/api/v1/transcripts?limit=100", h.keyA.Value, "", nil)
		for _, got := range dataIDs(t, r) {
			if got == id {
				t.Fatalf("a deleted archived transcript is listed: %s", r.raw)
			}
		}
		if rec, err := rs.Get(ctx, id, results.GetOptions{IncludeDeleted: true}); err != nil || rec.DeletedAt == nil {
			t.Fatalf("the record is not soft-deleted: %+v, %v", rec, err)
		}
	})

	t.Run("upload-confirm", func(t *testing.T) {
		// A confirmed upload archived since: confirming it again is the same 409 as in the
		// cluster, not a 404.
		id := ids.New("tr")
		now := metav1.Now()
		up := &tcsv1.Transcript{
			ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), Namespace: h.namespace, CreationTimestamp: now},
			Spec: tcsv1.TranscriptSpec{ID: id, Organization: h.keyB.OrganizationID,
				Source: tcsv1.TranscriptSource{Type: tcsv1.SourceUpload, Format: "txt"}},
			Status: tcsv1.TranscriptStatus{Phase: tcsv1.PhaseCompleted, AIPassStatus: tcsv1.AIPassIdle, CompletedAt: &now},
		}
		if _, err := rs.Put(ctx, up, 1); err != nil {
			t.Fatal(err)
		}
		r := h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyB.Value, "application/json", []byte(`{"source_type":"upload","transcript_id":"`+id+`"}`))
		wantError(t, r, 409, ErrConflict, "transcript_id")
		r = h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "application/json", []byte(`{"source_type":"upload","transcript_id":"`+id+`"}`))
		wantError(t, r, 403, ErrForbidden, "transcript_id")
	})

	t.Run("ai-pass", func(t *testing.T) {
		id := archived[2]
		created := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil).body["created_at"]
		r := h.do(t, http.MethodPost, "/api/v1/transcripts/"+id+"/ai_pass", h.keyA.Value, "application/json", []byte(`{"apply":true}`))
		if r.status != 202 || r.body["ai_pass_status"] != "queued" || r.body["status"] != "completed" || r.body["content"] == nil || r.body["created_at"] != created {
			t.Fatalf("AI pass on an archived transcript: %d %s", r.status, r.raw)
		}
		// It is a resource again, with its status, for the AI pass controller.
		tr := &tcsv1.Transcript{}
		if err := h.client.Get(ctx, types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
			t.Fatalf("not brought back into the cluster: %v", err)
		}
		if tr.Status.Phase != tcsv1.PhaseCompleted || tr.Status.AIPassStatus != tcsv1.AIPassQueued || tr.Status.ContentRef == "" || tr.Annotations[tcsv1.AnnotationArchivedAt] != "" {
			t.Fatalf("brought back as %+v %+v", tr.Annotations, tr.Status)
		}
		// A second trigger meets the pass in flight, as for a live transcript.
		wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts/"+id+"/ai_pass", h.keyA.Value, "", nil), 409, ErrConflict, "")
		// Listed once, in its place.
		r = h.do(t, http.MethodGet, "/api/v1/transcripts?limit=100", h.keyA.Value, "", nil)
		want := append(reverse(live), archived[3], archived[2], archived[0])
		if got := dataIDs(t, r); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("list with a transcript brought back: %v, want %v", got, want)
		}
		// The pass ends (no AI controller runs here); the archiver moves it out again.
		now := metav1.Now()
		if err := h.client.Get(ctx, client.ObjectKeyFromObject(tr), tr); err != nil {
			t.Fatal(err)
		}
		tr.StartAIPass("rules", "rules-v1", now)
		tr.CompleteAIPass(now)
		if err := h.client.Status().Update(ctx, tr); err != nil {
			t.Fatal(err)
		}
		h.runArchiver(t, rs, id)
		rec, err := rs.Get(ctx, id, results.GetOptions{})
		if err != nil || rec.AIPassStatus != tcsv1.AIPassCompleted || rec.Transcript.Status.AIPass == nil || !rec.Transcript.Status.AIPass.Apply {
			t.Fatalf("the record after the pass: %+v, %v", rec, err)
		}
		r = h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
		if r.status != 200 || r.body["ai_pass_status"] != "completed" || r.body["created_at"] != created {
			t.Fatalf("GET after the pass: %d %s", r.status, r.raw)
		}
	})
}

// waitList waits until the list of A holds n transcripts (the cache catches up).
func waitList(t *testing.T, h *harness, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := h.do(t, http.MethodGet, "/api/v1/transcripts?limit=100", h.keyA.Value, "", nil)
		if len(dataIDs(t, r)) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the list holds %v, want %d transcripts", dataIDs(t, r), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTranscriptLeavingTheCluster checks a transcript whose resource the archiver deleted but
// whose finalizer has not run yet: a soft delete goes to its record (so the finalizer keeps
// the content the record points to), and an AI pass waits for the resource to go and brings
// it back.
func TestTranscriptLeavingTheCluster(t *testing.T) {
	rs := openResults(t, "")
	h := newHarnessWith(t, harnessOptions{results: rs})
	ctx := context.Background()
	var ids []string
	for i := range 2 {
		r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": fmt.Sprintf("sermon %d", i)})
		ids = append(ids, r.body["id"].(string))
	}
	// A finalizer of someone else's holds the deletion (the archiver removes tcs's own with
	// its mark), as a kubectl delete with tcs's finalizer or another controller's would.
	for _, id := range ids {
		tr := &tcsv1.Transcript{}
		if err := h.client.Get(ctx, types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
			t.Fatal(err)
		}
		patch := client.MergeFrom(tr.DeepCopy())
		tr.Finalizers = append(tr.Finalizers, "example.com/hold")
		if err := h.client.Patch(ctx, tr, patch); err != nil {
			t.Fatal(err)
		}
	}
	// The archiver alone: no transcript controller.
	mgr, _ := h.archiverManager(t, rs, 100*time.Millisecond)
	stop := testenv.Run(t, mgr)
	key := func(id string) types.NamespacedName {
		return types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, id := range ids {
		for {
			tr := &tcsv1.Transcript{}
			if err := h.client.Get(ctx, key(id), tr); err != nil {
				t.Fatal(err)
			}
			if !tr.DeletionTimestamp.IsZero() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s was not archived", id)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	stop()

	r := h.do(t, http.MethodDelete, "/api/v1/transcripts/"+ids[0], h.keyA.Value, "", nil)
	if r.status != 200 {
		t.Fatalf("DELETE of a transcript leaving the cluster: %d %s", r.status, r.raw)
	}
	if rec, err := rs.Get(ctx, ids[0], results.GetOptions{IncludeDeleted: true}); err != nil || rec.DeletedAt == nil {
		t.Fatalf("the record is not soft-deleted: %+v %v", rec, err)
	}
	tr := &tcsv1.Transcript{}
	if err := h.client.Get(ctx, key(ids[0]), tr); err != nil || tr.Status.DeletedAt != nil {
		t.Fatalf("the leaving resource was soft-deleted instead of its record: %v %v", tr.Status.DeletedAt, err)
	}

	// The AI pass waits for the resource to go; the finalizer goes a moment later.
	go func() {
		time.Sleep(500 * time.Millisecond)
		leaving := &tcsv1.Transcript{}
		if err := h.client.Get(ctx, key(ids[1]), leaving); err != nil {
			t.Error(err)
			return
		}
		patch := client.MergeFrom(leaving.DeepCopy())
		leaving.Finalizers = nil
		if err := h.client.Patch(ctx, leaving, patch); err != nil {
			t.Error(err)
		}
	}()
	r = h.do(t, http.MethodPost, "/api/v1/transcripts/"+ids[1]+"/ai_pass", h.keyA.Value, "", nil)
	if r.status != 202 || r.body["ai_pass_status"] != "queued" {
		t.Fatalf("AI pass on a transcript leaving the cluster: %d %s", r.status, r.raw)
	}
	back := &tcsv1.Transcript{}
	if err := h.client.Get(ctx, key(ids[1]), back); err != nil {
		t.Fatal(err)
	}
	if !back.DeletionTimestamp.IsZero() || back.Status.AIPassStatus != tcsv1.AIPassQueued || back.Status.Phase != tcsv1.PhaseCompleted {
		t.Fatalf("brought back as %+v, deleting %v", back.Status, back.DeletionTimestamp)
	}
}

// TestMarkedTranscriptsComeBackWhenChanged checks transcripts the archiver recorded and marked
// (out of the cache, waiting archive-after for their removal): reads and lists answer from
// the resource and the record as for any transcript, and a soft delete or an AI-pass trigger
// brings one back into the working set first, so that the list right after shows the change.
func TestMarkedTranscriptsComeBackWhenChanged(t *testing.T) {
	rs := openResults(t, "")
	h := newHarnessWith(t, harnessOptions{results: rs})
	ctx := context.Background()
	var ids []string
	for i := range 3 {
		r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": fmt.Sprintf("sermon %d: read revelations 21:4", i)})
		if r.status != 201 {
			t.Fatalf("paste: %d %s", r.status, r.raw)
		}
		ids = append(ids, r.body["id"].(string))
	}
	// Marked, and kept marked for the whole test.
	mgr, _ := h.archiverManager(t, rs, time.Hour)
	defer testenv.Run(t, mgr)()
	resource := func(id string) *tcsv1.Transcript {
		tr := &tcsv1.Transcript{}
		if err := h.client.Get(ctx, types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, id := range ids {
		for !resource(id).MarkedArchived() {
			if time.Now().After(deadline) {
				t.Fatalf("%s was not marked", id)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	listed := func() map[string]map[string]any {
		r := h.do(t, http.MethodGet, "/api/v1/transcripts?limit=10", h.keyA.Value, "", nil)
		if r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.raw)
		}
		out := map[string]map[string]any{}
		for _, item := range r.body["data"].([]any) {
			m := item.(map[string]any)
			out[m["id"].(string)] = m
		}
		return out
	}
	got := listed()
	for _, id := range ids {
		if got[id]["status"] != "completed" {
			t.Fatalf("marked %s listed as %v", id, got[id])
		}
		if r := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil); r.status != 200 || r.body["content"] == nil {
			t.Fatalf("GET of marked %s: %d %s", id, r.status, r.raw)
		}
	}

	if r := h.do(t, http.MethodDelete, "/api/v1/transcripts/"+ids[0], h.keyA.Value, "", nil); r.status != 200 {
		t.Fatalf("DELETE of a marked transcript: %d %s", r.status, r.raw)
	}
	if _, ok := listed()[ids[0]]; ok {
		t.Fatal("the list right after the DELETE shows the transcript")
	}
	if r := h.do(t, http.MethodGet, "/api/v1/transcripts/"+ids[0], h.keyA.Value, "", nil); r.status != 404 {
		t.Fatalf("GET after DELETE: %d", r.status)
	}
	if tr := resource(ids[0]); tr.MarkedArchived() || tr.Status.DeletedAt == nil || !controllerutil.ContainsFinalizer(tr, tcsv1.FinalizerStoredObjects) {
		t.Fatalf("the deleted transcript: marked %v, deletedAt %v, finalizers %v", tr.MarkedArchived(), tr.Status.DeletedAt, tr.Finalizers)
	}

	r := h.do(t, http.MethodPost, "/api/v1/transcripts/"+ids[1]+"/ai_pass", h.keyA.Value, "", nil)
	if r.status != 202 || r.body["ai_pass_status"] != "queued" {
		t.Fatalf("AI pass on a marked transcript: %d %s", r.status, r.raw)
	}
	if got := listed()[ids[1]]; got["ai_pass_status"] != "queued" {
		t.Fatalf("the list right after the trigger shows %v", got)
	}
	if tr := resource(ids[1]); tr.MarkedArchived() || tr.Status.AIPassStatus != tcsv1.AIPassQueued {
		t.Fatalf("the triggered transcript: marked %v, %+v", tr.MarkedArchived(), tr.Status)
	}
	if tr := resource(ids[2]); !tr.MarkedArchived() || listed()[ids[2]]["status"] != "completed" {
		t.Fatalf("the untouched transcript: marked %v", tr.MarkedArchived())
	}
}
