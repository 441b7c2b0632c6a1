package transcripts

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

func TestEveryMethodRefusesAnEmptyOrMalformedOrganizationBeforeReadingAnything(t *testing.T) {
	// No clients and no stores: a method that read anything would panic.
	s := &Service{Namespace: "tcs-system"}
	ctx := context.Background()
	mine := &tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{ID: "tr_a", Organization: "org_a"}}
	for _, org := range []string{"", "org_", "ORG_A", "org_a/../b", "key_a"} {
		for _, tc := range []struct {
			name string
			call func() error
		}{
			{"New", func() error {
				_, err := s.New(org, "tr_a", tcsv1.TranscriptSource{}, tcsv1.TranscriptOptions{})
				return err
			}},
			{"Create", func() error { return s.Create(ctx, org, mine) }},
			{"Make", func() error {
				_, err := s.Make(ctx, org, Draft{ID: "tr_a", Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}})
				return err
			}},
			{"Queue", func() error { return s.Queue(ctx, org, mine, "", metav1.Now()) }},
			{"Complete", func() error { _, err := s.Complete(ctx, org, mine, nil, metav1.Now()); return err }},
			{"ConfirmUpload", func() error { _, err := s.ConfirmUpload(ctx, org, "tr_a", Confirmation{}); return err }},
			{"Get", func() error { _, _, err := s.Get(ctx, org, "tr_a"); return err }},
			{"Find", func() error { _, err := s.Find(ctx, org, "tr_a"); return err }},
			{"Archived", func() error { _, err := s.Archived(ctx, org, "tr_a"); return err }},
			{"Upload", func() error { _, err := s.Upload(ctx, org, "tr_a"); return err }},
			{"Content", func() error { _, err := s.Content(ctx, org, mine); return err }},
			{"Changes", func() error { _, _, err := s.Changes(ctx, org, "tr_a"); return err }},
			{"Job", func() error { _, _, err := s.Job(ctx, org, "job_a"); return err }},
			{"List", func() error { _, _, err := s.List(ctx, org, ListOptions{Limit: 10}); return err }},
			{"UpdateStatus", func() error { return s.UpdateStatus(ctx, org, mine, func(*tcsv1.Transcript) bool { return true }) }},
			{"SetOptions", func() error { return s.SetOptions(ctx, org, mine, tcsv1.TranscriptOptions{}) }},
			{"Unarchive", func() error { _, err := s.Unarchive(ctx, org, mine, time.Now()); return err }},
			{"Delete", func() error { _, err := s.Delete(ctx, org, "tr_a", metav1.Now()); return err }},
			{"TriggerAIPass", func() error {
				_, err := s.TriggerAIPass(ctx, org, "tr_a", AIPassRequest{Now: metav1.Now()})
				return err
			}},
		} {
			var oe *OrgError
			if err := tc.call(); !errors.As(err, &oe) {
				t.Errorf("%s with organization %q = %v, want an *OrgError", tc.name, org, err)
			}
		}
	}
}

func TestAnotherOrganizationsTranscriptIsForeign(t *testing.T) {
	s := &Service{Namespace: "tcs-system"}
	ctx := context.Background()
	theirs := &tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{ID: "tr_b", Organization: "org_b"}}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Create", func() error { return s.Create(ctx, "org_a", theirs) }},
		{"Queue", func() error { return s.Queue(ctx, "org_a", theirs, "", metav1.Now()) }},
		{"Complete", func() error { _, err := s.Complete(ctx, "org_a", theirs, nil, metav1.Now()); return err }},
		{"Content", func() error { _, err := s.Content(ctx, "org_a", theirs); return err }},
		{"UpdateStatus", func() error {
			return s.UpdateStatus(ctx, "org_a", theirs, func(*tcsv1.Transcript) bool { return true })
		}},
		{"SetOptions", func() error { return s.SetOptions(ctx, "org_a", theirs, tcsv1.TranscriptOptions{}) }},
		{"Unarchive", func() error { _, err := s.Unarchive(ctx, "org_a", theirs, time.Now()); return err }},
	} {
		if err := tc.call(); !errors.Is(err, ErrForeign) {
			t.Errorf("%s of another organization's transcript = %v, want ErrForeign", tc.name, err)
		}
	}
	if Belongs("", &tcsv1.Transcript{}) {
		t.Error("a transcript without an organization belongs to the empty organization")
	}
}
