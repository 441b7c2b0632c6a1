package pipeline

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
)

func TestReviewVersionsAreStoredBeforeTheStatusNamesThem(t *testing.T) {
	dir := t.TempDir()
	store, err := blob.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	p := New(engine, store)
	ctx := t.Context()
	in := []byte("read Revelations 21:4 past capernum\n")
	keys := KeysFor("org_a", "tr_1")
	res, err := p.Correct(in, formats.TXT, correction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Save(ctx, keys, in, res); err != nil {
		t.Fatal(err)
	}
	tr := &tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{ID: "tr_1", Organization: "org_a"}}
	res.Complete(tr, keys, decidedAt)
	get := func(key string) string {
		t.Helper()
		b, err := store.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// next computes the next version from tr's current one.
	next := func(tr *tcsv1.Transcript, batch ...Decision) (*Reviewed, ReviewKeys, error) {
		in := DecisionInput{Keys: keys, Format: formats.TXT, BaseChanges: tr.Status.ChangesRef, Version: 1, Batch: batch}
		if r := tr.Status.Review; r != nil {
			in.Log, in.Version = r.DecisionsRef, r.Version+1
		}
		return p.Decide(ctx, in)
	}

	// Version 1.
	rev, v1, err := next(tr, accept("chg_0002"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^transcripts/org_a/tr_1/review/000001-[0-9a-f]{16}/content$`).MatchString(v1.Content) ||
		strings.TrimSuffix(v1.Content, "content") != strings.TrimSuffix(v1.Changes, "changes.json") ||
		strings.TrimSuffix(v1.Content, "content") != strings.TrimSuffix(v1.Decisions, "decisions.json") {
		t.Fatalf("keys %+v", v1)
	}
	if got := get(v1.Content); got != "read Revelation 21:4 past Capernaum\n" || got != string(rev.Content) {
		t.Fatalf("stored content %q", got)
	}
	var log []Decision
	if err := json.Unmarshal([]byte(get(v1.Decisions)), &log); err != nil || len(log) != 1 || log[0] != accept("chg_0002") {
		t.Fatalf("stored log %+v, %v", log, err)
	}
	var stored []Change
	if err := json.Unmarshal([]byte(get(v1.Changes)), &stored); err != nil || len(stored) != 2 || stored[1].Decision == nil || !stored[1].IsApplied() {
		t.Fatalf("stored changes %+v, %v", stored, err)
	}
	if tr.Status.Review != nil {
		t.Fatal("Decide wrote the status")
	}
	if err := rev.Record(tr, v1, keys.Changes, 1); err != nil {
		t.Fatal(err)
	}
	r := tr.Status.Review
	if r.Version != 1 || r.ContentRef != v1.Content || r.ChangesRef != v1.Changes || r.DecisionsRef != v1.Decisions || r.BaseChangesRef != keys.Changes ||
		r.Undecided != 0 || r.Decided != 1 || r.LastDecidedBy != "key_a" || !r.LastDecidedAt.Time.Equal(decidedAt) ||
		r.ChangesSummary.Total != 2 || r.ChangesSummary.AutoApplied != 2 || r.ChangesSummary.NeedsReview != 0 {
		t.Fatalf("review %+v", r)
	}
	// The deterministic pass's objects stay as they were.
	if get(keys.Content) != string(res.Content) {
		t.Fatal("the deterministic content changed")
	}

	// Version 2 applies the recorded decisions and the new ones.
	later := reject("chg_0001")
	later.By, later.At = "member@example.org", decidedAt.Add(time.Hour)
	rev2, v2, err := next(tr, later)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v2.Content, "/review/000002-") || get(v2.Content) != "read Revelations 21:4 past Capernaum\n" || len(rev2.Log) != 2 {
		t.Fatalf("version 2 %+v: %q", v2, get(v2.Content))
	}
	// Killed before the status write: version 1 is still in force, whole.
	if tr.Status.Review.Version != 1 || get(tr.Status.Review.ContentRef) != "read Revelation 21:4 past Capernaum\n" {
		t.Fatalf("review %+v", tr.Status.Review)
	}
	// Run again after the restart, the same decisions write the same objects.
	again, v2again, err := next(tr, later)
	if err != nil {
		t.Fatal(err)
	}
	if v2again != v2 || get(v2.Content) != string(again.Content) {
		t.Fatalf("the retry wrote %+v, the first run %+v", v2again, v2)
	}

	// Another reviewer decides at version 2 too: other keys, so neither overwrites the other.
	rival, vRival, err := next(tr, replace("chg_0002", "Capernaum (Kfar Nahum)"))
	if err != nil {
		t.Fatal(err)
	}
	if vRival == v2 {
		t.Fatalf("two different versions 2 share keys %+v", v2)
	}
	if err := again.Record(tr, v2again, keys.Changes, 2); err != nil {
		t.Fatal(err)
	}
	if err := rival.Record(tr, vRival, keys.Changes, 2); !errors.Is(err, ErrReviewMoved) {
		t.Fatalf("recording a second version 2: %v, want ErrReviewMoved", err)
	}
	if r := tr.Status.Review; r.Version != 2 || r.ContentRef != v2.Content || r.LastDecidedBy != "member@example.org" ||
		get(r.ContentRef) != "read Revelations 21:4 past Capernaum\n" {
		t.Fatalf("review %+v: %q", r, get(r.ContentRef))
	}

	// An AI pass that completes meanwhile moves the change list: the version computed on
	// the old one is not recorded.
	rev3, v3, err := next(tr, accept("chg_0001"))
	if err != nil {
		t.Fatal(err)
	}
	moved := tr.DeepCopy()
	moved.Status.ChangesRef = keys.AIChanges
	if err := rev3.Record(moved, v3, keys.Changes, 3); !errors.Is(err, ErrReviewMoved) {
		t.Fatalf("recording on a moved change list: %v, want ErrReviewMoved", err)
	}

	// A refused decision stores nothing.
	before := reviewObjects(t, dir)
	_, _, err = next(tr, accept("chg_0404"))
	var de *DecisionError
	if !errors.As(err, &de) || de.Param != "decisions[0].change_id" {
		t.Fatalf("err = %v, want a DecisionError naming decisions[0].change_id", err)
	}
	if after := reviewObjects(t, dir); after != before {
		t.Fatalf("a refused call stored objects: %d before, %d after", before, after)
	}
}

// reviewObjects counts the files of review versions under the store directory dir.
func reviewObjects(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(filepath.ToSlash(path), "/review/") {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no review objects found")
	}
	return n
}
