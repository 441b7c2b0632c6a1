package controllers

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/transcripts"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/pkg/webhook"
)

// TestWebhookDeliversTranscriptReviewedToTheEndpointsThatChoseIt checks the reviewed event:
// sent over HTTPS for each decision batch that changed the content, with the reviewed
// transcript as its body, under a delivery name derived from the review version; received only
// by an endpoint that names the event, never by one that chose "all" before it existed.
func TestWebhookDeliversTranscriptReviewedToTheEndpointsThatChoseIt(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{})
	org := ids.New("org")
	reviewed := h.endpoint(t, org, rc.srv.URL+"/reviewed", secret, tcsv1.EventTranscriptReviewed)
	// An endpoint that chose "all" before the reviewed event existed stored the list of then.
	before := slices.DeleteFunc(iwebhook.Events(), func(e string) bool { return e == tcsv1.EventTranscriptReviewed })
	allBefore := h.endpoint(t, org, rc.srv.URL+"/all-before", secret, before...)
	if all, err := iwebhook.ParseEvents([]string{"all"}); err != nil || !slices.Contains(all, tcsv1.EventTranscriptReviewed) {
		t.Fatalf("all chosen now: %v, %v; want it to include %s", all, err, tcsv1.EventTranscriptReviewed)
	}
	waitSubscribed(t, h, reviewed, tcsv1.EventTranscriptReviewed)
	waitSubscribed(t, h, allBefore, before...)

	// A completed paste, as the API server makes one.
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	processor := pipeline.New(engine, h.store)
	tr := h.transcript(t, org)
	keys := pipeline.KeysFor(org, tr.Spec.ID)
	input := []byte("They sailed past capernum.\nThe Revelations of the prophets were many.\n")
	res, err := processor.Correct(input, formats.TXT, correction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := processor.Save(t.Context(), keys, input, res); err != nil {
		t.Fatal(err)
	}
	h.setStatus(t, tr, func(x *tcsv1.Transcript) {
		x.Status.AIPassStatus = tcsv1.AIPassIdle
		res.Complete(x, keys, time.Now())
	})
	svc := &transcripts.Service{Namespace: h.ns, Cache: h.c, APIReader: h.c, Client: h.c, Store: processor, Processor: processor}
	decide := func(action string) *tcsv1.Transcript {
		t.Helper()
		got, err := svc.Decide(t.Context(), org, tr.Spec.ID, transcripts.Batch{By: "key_reviewer",
			Decisions: []pipeline.Decision{{ChangeID: "chg_0001", Action: action}}}, nil)
		if err != nil {
			t.Fatalf("%s: %v", action, err)
		}
		return got
	}
	atFirst := decide(pipeline.ActionAccept)
	decide(pipeline.ActionAccept) // the same content: no event
	atThird := decide(pipeline.ActionReject)
	if got := atThird.EmittedEventTypes(); slices.Index(got, tcsv1.EventTranscriptReviewed) < 0 || len(got) != 2+2 {
		t.Fatalf("emitted %v; want created, completed and two reviewed", got)
	}
	ds := h.waitDeliveries(t, tr.Spec.ID, "every event delivered", allIn(2+2, tcsv1.DeliverySucceeded))
	var toReviewed []tcsv1.WebhookDelivery
	for _, d := range ds {
		switch d.Spec.Endpoint {
		case reviewed.Name:
			toReviewed = append(toReviewed, d)
		case allBefore.Name:
			if d.Spec.Event == tcsv1.EventTranscriptReviewed {
				t.Errorf("an endpoint of all-before received %s", d.Spec.Event)
			}
		default:
			t.Errorf("a delivery to %s", d.Spec.Endpoint)
		}
	}
	if len(toReviewed) != 2 {
		t.Fatalf("%d deliveries to the reviewed endpoint, want 2", len(toReviewed))
	}
	for i, want := range []struct {
		version int64
		shown   *tcsv1.Transcript
		content string
	}{
		{1, atFirst, "They sailed past Capernaum.\nThe Revelations of the prophets were many.\n"},
		{3, atThird, string(input)},
	} {
		d := toReviewed[i]
		hash := iwebhook.DeliveryHash(tr.Spec.ID, tcsv1.EventTranscriptReviewed, tcsv1.ReviewKey(want.version), reviewed.Spec.ID)
		if d.Spec.Event != tcsv1.EventTranscriptReviewed || d.Name != iwebhook.DeliveryName(hash) || d.Spec.ID != iwebhook.DeliveryID(hash) {
			t.Fatalf("reviewed delivery %d: %s %+v; want the name of review version %d", i, d.Name, d.Spec, want.version)
		}
		var got *received
		for _, r := range rc.requests() {
			if r.header.Get(webhook.HeaderDelivery) == d.Spec.ID {
				got = &r
			}
		}
		if got == nil {
			t.Fatalf("delivery %s never reached the receiver", d.Spec.ID)
		}
		if b := wantBody(t, want.shown, &want.content, tcsv1.EventTranscriptReviewed, d.Spec.ID); string(got.body) != string(b) {
			t.Fatalf("reviewed body %d\n%s\nwant\n%s", i, got.body, b)
		}
		var body map[string]any
		if err := json.Unmarshal(got.body, &body); err != nil {
			t.Fatal(err)
		}
		if review := body["review"].(map[string]any); review["version"] != float64(want.version) || review["last_decided_by"] != "key_reviewer" {
			t.Errorf("reviewed body %d: review %v", i, review)
		}
	}
}
