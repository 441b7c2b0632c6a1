package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
)

// TestAdminTranscriptDecide checks tcs admin transcript decide: decisions from flags and from
// a file, recorded with who made them, the reviewed content printed, and the refusals (a
// decision that does not apply, a review that moved).
func TestAdminTranscriptDecide(t *testing.T) {
	ctx := context.Background()
	a := newAdminCLI(t)
	dsn := "sqlite://" + filepath.Join(t.TempDir(), "results.db")
	storeDir := t.TempDir()
	store, err := blob.OpenDir(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	processor := pipeline.New(engine, store)
	c := env.Client(t, client.Options{Scheme: scheme.New()})

	// A completed paste with an automatic change (chg_0001) and a suggestion (chg_0002).
	org, id := ids.New("org"), ids.New("tr")
	input := "Turn to first corinthians 13:4.\nThe Revelations of the prophets were many.\n"
	keys := pipeline.KeysFor(org, id)
	res, err := processor.Correct([]byte(input), formats.TXT, correction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := processor.Save(ctx, keys, []byte(input), res); err != nil {
		t.Fatal(err)
	}
	tr := &tcsv1.Transcript{}
	tr.Name, tr.Namespace = tcsv1.TranscriptName(id), a.namespace
	tr.Spec = tcsv1.TranscriptSpec{ID: id, Organization: org, Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste, InputRef: keys.Input}}
	if err := c.Create(ctx, tr); err != nil {
		t.Fatal(err)
	}
	tr.Status.AIPassStatus = tcsv1.AIPassIdle
	res.Complete(tr, keys, time.Now())
	if err := c.Status().Update(ctx, tr); err != nil {
		t.Fatal(err)
	}

	run := func(args ...string) string {
		t.Helper()
		return a.mustRun(t, append([]string{"--results-dsn", dsn, "transcript", "decide", id, "--store", storeDir}, args...)...)
	}
	start := strings.Index(input, "prophets")
	out := run("--by", "pastor@church.org", "--review-version", "0", "--reject", "chg_0001", "--accept", "chg_0002",
		"--add", fmt.Sprintf("%d:%d=Prophets:custom", start, start+len("prophets")))
	var shown map[string]any
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatalf("decide printed %q: %v", out, err)
	}
	want := "Turn to first corinthians 13:4.\nThe Revelation of the Prophets were many.\n"
	review, _ := shown["review"].(map[string]any)
	if shown["content"] != want || review == nil || review["version"] != 1.0 || review["decided"] != 3.0 || review["last_decided_by"] != "pastor@church.org" {
		t.Fatalf("decide printed %s", out)
	}

	// From a file, printing the content only.
	file := filepath.Join(t.TempDir(), "decisions.json")
	if err := os.WriteFile(file, []byte(`{"decisions":[{"change_id":"chg_0001","action":"replace","replacement":"First Corinthians"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := run("--by", "deacon@church.org", "--decisions", file, "--content"); got != strings.Replace(want, "first corinthians", "First Corinthians", 1) {
		t.Fatalf("decide --content printed %q", got)
	}
	stored := &tcsv1.Transcript{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: a.namespace, Name: tcsv1.TranscriptName(id)}, stored); err != nil {
		t.Fatal(err)
	}
	if r := stored.Status.Review; r == nil || r.Version != 2 || r.LastDecidedBy != "deacon@church.org" {
		t.Fatalf("the review stored: %+v", stored.Status.Review)
	}

	base := []string{"--results-dsn", dsn, "transcript", "decide", id, "--store", storeDir}
	a.mustFail(t, "--by is required", append(base, "--accept", "chg_0002")...)
	a.mustFail(t, "no decisions", append(base, "--by", "x@y.org")...)
	a.mustFail(t, `no change "chg_0042"`, append(base, "--by", "x@y.org", "--accept", "chg_0042")...)
	a.mustFail(t, "rerun with --review-version 2", append(base, "--by", "x@y.org", "--review-version", "1", "--accept", "chg_0002")...)
	a.mustFail(t, "want START:END=TEXT", append(base, "--by", "x@y.org", "--add", "3-4=x")...)
}
