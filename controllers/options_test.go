package controllers

import (
	"encoding/json"
	"maps"
	"testing"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/text/correction"
)

// TestReconcilerHonoursCategoriesAndThresholds shows that the deterministic pass a reconciler
// runs (a paste the API server left half done) corrects only the categories of the
// transcript's options, demotes the changes below its auto_apply bound and drops those below
// its suggest bound.
func TestReconcilerHonoursCategoriesAndThresholds(t *testing.T) {
	c, store, ns := startReconciler(t)
	const input = "read Revelations 21:4 and first corinthians 13 4 near capernum\n"
	for _, tc := range []struct {
		name       string
		options    tcsv1.TranscriptOptions
		content    string
		summary    tcsv1.ChangesSummary
		statusOf   map[string]correction.Status
		byCategory map[string]int
	}{
		{"no options", tcsv1.TranscriptOptions{},
			"read Revelation 21:4 and 1 Corinthians 13 4 near Capernaum\n", tcsv1.ChangesSummary{Total: 3, AutoApplied: 3},
			map[string]correction.Status{"Revelations": correction.StatusAutoApplied, "first corinthians": correction.StatusAutoApplied, "capernum": correction.StatusAutoApplied},
			map[string]int{"bible": 2, "place": 1}},
		{"bible only, automatic from 0.95", tcsv1.TranscriptOptions{Categories: []string{"bible"}, Thresholds: &tcsv1.Thresholds{AutoApply: "0.95"}},
			"read Revelations 21:4 and 1 Corinthians 13 4 near capernum\n", tcsv1.ChangesSummary{Total: 2, AutoApplied: 1, NeedsReview: 1},
			map[string]correction.Status{"Revelations": correction.StatusNeedsReview, "first corinthians": correction.StatusAutoApplied},
			map[string]int{"bible": 2}},
		{"nothing below 0.95", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{Suggest: "0.95"}},
			"read Revelations 21:4 and 1 Corinthians 13 4 near capernum\n", tcsv1.ChangesSummary{Total: 1, AutoApplied: 1},
			map[string]correction.Status{"first corinthians": correction.StatusAutoApplied},
			map[string]int{"bible": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscript(ns, "org_a", tcsv1.SourcePaste)
			tr.Spec.Options = tc.options
			if err := store.Put(t.Context(), tr.Spec.Source.InputRef, []byte(input), "text/plain"); err != nil {
				t.Fatal(err)
			}
			if err := c.Create(t.Context(), tr); err != nil {
				t.Fatal(err)
			}
			got := eventually(t, c, tr, "completed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseCompleted })
			s := got.Status.ChangesSummary
			if s == nil || s.Total != tc.summary.Total || s.AutoApplied != tc.summary.AutoApplied || s.NeedsReview != tc.summary.NeedsReview ||
				!maps.Equal(s.ByCategory, tc.byCategory) {
				t.Fatalf("changes summary %+v; want %+v by category %v", s, tc.summary, tc.byCategory)
			}
			content, err := store.Get(t.Context(), got.Status.ContentRef)
			if err != nil || string(content) != tc.content {
				t.Fatalf("content %q, %v; want %q", content, err, tc.content)
			}
			raw, err := store.Get(t.Context(), got.Status.ChangesRef)
			if err != nil {
				t.Fatal(err)
			}
			var changes []correction.Change
			if err := json.Unmarshal(raw, &changes); err != nil {
				t.Fatalf("change list %s: %v", raw, err)
			}
			statusOf := map[string]correction.Status{}
			for _, ch := range changes {
				statusOf[ch.Original] = ch.Status
			}
			if !maps.Equal(statusOf, tc.statusOf) {
				t.Fatalf("changes %v; want %v", statusOf, tc.statusOf)
			}
		})
	}
}

// TestWebhookBodyCarriesTheOptions shows that a webhook body shows a transcript's categories,
// thresholds and metadata as the API does.
func TestWebhookBodyCarriesTheOptions(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{})
	h.endpoint(t, "org_a", rc.srv.URL+"/hook", secret, tcsv1.EventTranscriptCreated)
	tr := newTranscript(h.ns, "org_a", tcsv1.SourcePaste)
	tr.Spec.Options = tcsv1.TranscriptOptions{Categories: []string{"bible", "place"},
		Thresholds: &tcsv1.Thresholds{AutoApply: "0.9", Suggest: "0.5"}, Metadata: map[string]string{"campus": "north", "series.id": "hope"}}
	if err := h.c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	h.pending(t, tr)
	h.waitDeliveries(t, tr.Spec.ID, "created delivered", allIn(1, tcsv1.DeliverySucceeded))
	got := rc.requests()
	if len(got) != 1 {
		t.Fatalf("%d requests, want 1", len(got))
	}
	var body struct {
		Options struct {
			Categories []string           `json:"categories"`
			Thresholds map[string]float64 `json:"thresholds"`
			Metadata   map[string]string  `json:"metadata"`
		} `json:"options"`
	}
	if err := json.Unmarshal(got[0].body, &body); err != nil {
		t.Fatal(err)
	}
	o := body.Options
	if len(o.Categories) != 2 || o.Categories[0] != "bible" || o.Categories[1] != "place" ||
		!maps.Equal(o.Thresholds, map[string]float64{"auto_apply": 0.9, "suggest": 0.5}) ||
		!maps.Equal(o.Metadata, tr.Spec.Options.Metadata) {
		t.Fatalf("the body's options %+v; want those of %+v\n%s", o, tr.Spec.Options, got[0].body)
	}
}
