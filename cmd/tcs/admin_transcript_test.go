package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/results"
)

// TestAdminTranscriptArchived checks that tcs admin transcript get and restore reach archived
// transcripts in the results store as well as live ones in the cluster.
func TestAdminTranscriptArchived(t *testing.T) {
	ctx := context.Background()
	a := newAdminCLI(t)
	dsn := "sqlite://" + filepath.Join(t.TempDir(), "results.db")
	rs, err := results.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	org := ids.New("org")
	newTr := func() *tcsv1.Transcript {
		id := ids.New("tr")
		now := metav1.Now()
		return &tcsv1.Transcript{
			ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), Namespace: a.namespace, CreationTimestamp: now},
			Spec: tcsv1.TranscriptSpec{ID: id, Organization: org, Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste},
				Options: tcsv1.TranscriptOptions{Categories: []string{"bible"}, Metadata: map[string]string{"campus": "north"}}},
			Status: tcsv1.TranscriptStatus{Phase: tcsv1.PhaseCompleted, AIPassStatus: tcsv1.AIPassIdle, CompletedAt: &now},
		}
	}
	archived := newTr()
	if _, err := rs.Put(ctx, archived, 1); err != nil {
		t.Fatal(err)
	}
	live := newTr()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	if err := c.Create(ctx, live); err != nil {
		t.Fatal(err)
	}

	get := func(id string) map[string]any {
		t.Helper()
		out := a.mustRun(t, "--results-dsn", dsn, "transcript", "get", id)
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("get %s: %v\n%s", id, err, out)
		}
		return v
	}
	if v := get(archived.Spec.ID); v["location"] != "results_store" || v["id"] != archived.Spec.ID || v["status"] != "completed" || v["deleted_at"] != nil {
		t.Fatalf("get of an archived transcript: %v", v)
	}
	if v := get(live.Spec.ID); v["location"] != "cluster" || v["id"] != live.Spec.ID {
		t.Fatalf("get of a live transcript: %v", v)
	}
	// Both show the options as the API does.
	for _, id := range []string{archived.Spec.ID, live.Spec.ID} {
		o, _ := get(id)["options"].(map[string]any)
		if m, _ := o["metadata"].(map[string]any); m["campus"] != "north" || fmt.Sprint(o["categories"]) != "[bible]" {
			t.Fatalf("get %s shows the options %v", id, o)
		}
	}
	if _, err := a.run(t, "--results-dsn", dsn, "transcript", "get", ids.New("tr")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("get of an unknown transcript: %v", err)
	}

	if _, err := a.run(t, "--results-dsn", dsn, "transcript", "restore", archived.Spec.ID); err == nil || !strings.Contains(err.Error(), "is not deleted") {
		t.Fatalf("restore of an archived transcript not deleted: %v", err)
	}
	if _, err := rs.SoftDelete(ctx, archived.Spec.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if v := get(archived.Spec.ID); v["deleted_at"] == nil {
		t.Fatalf("get of a deleted archived transcript shows no deleted_at: %v", v)
	}
	if out := a.mustRun(t, "--results-dsn", dsn, "transcript", "restore", archived.Spec.ID); !strings.Contains(out, "restored "+archived.Spec.ID) {
		t.Fatalf("restore: %s", out)
	}
	if _, err := rs.Get(ctx, archived.Spec.ID, results.GetOptions{}); err != nil {
		t.Fatalf("the restored record: %v", err)
	}
	if _, err := a.run(t, "--results-dsn", dsn, "transcript", "restore", ids.New("tr")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("restore of an unknown transcript: %v", err)
	}
}
