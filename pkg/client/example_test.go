package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"tcs.dev/tcs/pkg/client"
	"tcs.dev/tcs/pkg/webhook"
)

// Correct a pasted text: the answer is the corrected transcript.
func Example() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	t, err := c.CreatePaste(ctx, client.PasteRequest{
		Content: "Turn to first corinthians 13 4, and then revelations 21.",
		Title:   "Love is patient",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Status, t.Title)
	fmt.Println(*t.Content)
	fmt.Println(t.ChangesSummary.Total, "changes:", t.ChangesSummary.ByCategory)
	// Output:
	// completed Love is patient
	// Turn to 1 Corinthians 13 4, and then Revelation 21.
	// 2 changes: map[bible:2]
}

// Upload a file (grant, PUT, confirm), then poll until the transcript is done.
func ExampleClient_Upload() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	srt := "1\n00:00:01,000 --> 00:00:04,000\nWe read from the book of revelations\n\n" +
		"2\n00:00:04,500 --> 00:00:07,000\nwhere Jesus went to capernum.\n"
	t, err := c.Upload(ctx, client.UploadRequest{Filename: "sermon.srt"}, []byte(srt))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Status, t.SourceFormat, t.Jobs[0].Type)

	t, err = c.WaitForTranscript(ctx, t.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Status)
	fmt.Print(*t.Content)
	// Output:
	// pending srt upload_ingest
	// completed
	// 1
	// 00:00:01,000 --> 00:00:04,000
	// We read from the book of Revelation
	//
	// 2
	// 00:00:04,500 --> 00:00:07,000
	// where Jesus went to Capernaum.
}

// Create from a URL and wait for the result in the same request (wait=true). A 504 after the
// client's retries means the wait ran out: the transcript goes on, and WaitForTranscript polls it.
func ExampleWait() {
	// A file server of yours; tcs dev may fetch from 127.0.0.1, a production service only
	// from public addresses.
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "Paul wrote to the church at ephesus, and in revelations 2 John did too.")
	}))
	defer files.Close()

	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	t, err := c.CreateURL(ctx, client.URLRequest{URL: files.URL + "/sermon.txt", SourceFormat: "txt"}, client.Wait(30*time.Second))
	var apiErr *client.Error
	if errors.As(err, &apiErr) && apiErr.Type == client.ErrTimeout {
		t, err = c.WaitForTranscript(ctx, apiErr.TranscriptID)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Status)
	fmt.Print(*t.Content)
	// Output:
	// completed
	// Paul wrote to the church at Ephesus, and in Revelation 2 John did too.
}

// Iterate over every transcript, newest first; the iterator fetches the pages.
func ExampleClient_Transcripts() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY_B"))
	if err != nil {
		log.Fatal(err)
	}
	for _, title := range []string{"Genesis", "Exodus", "Leviticus"} {
		if _, err := c.CreatePaste(ctx, client.PasteRequest{Content: "A sermon on " + title + ".", Title: title}); err != nil {
			log.Fatal(err)
		}
	}
	n := 0
	for t, err := range c.Transcripts(ctx, client.TranscriptFilter{Status: client.StatusCompleted}, 2) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(t.Title, t.Content == nil)
		if n++; n == 3 {
			break
		}
	}
	// Output:
	// Leviticus true
	// Exodus true
	// Genesis true
}

// Correct only some categories, keep weaker changes as suggestions, tag the transcript with
// your own metadata, and list by it.
func ExampleProcessingOptions() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	autoApply := 0.95
	t, err := c.CreatePaste(ctx, client.PasteRequest{
		Content: "read Revelations 21:4 and first corinthians 13 4 near capernum",
		Options: &client.ProcessingOptions{
			Categories: []string{"bible"},
			Thresholds: &client.Thresholds{AutoApply: &autoApply},
			Metadata:   map[string]string{"campus": "north", "example": "options"},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(*t.Content)
	fmt.Println(t.ChangesSummary.AutoApplied, "applied,", t.ChangesSummary.NeedsReview, "suggested")
	fmt.Println(t.Options.Categories, *t.Options.Thresholds.AutoApply, t.Options.Metadata)
	for listed, err := range c.Transcripts(ctx, client.TranscriptFilter{Metadata: map[string]string{"example": "options"}}, 10) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(listed.ID == t.ID)
	}
	// Output:
	// read Revelations 21:4 and 1 Corinthians 13 4 near capernum
	// 1 applied, 1 suggested
	// [bible] 0.95 map[campus:north example:options]
	// true
}

// List what the deterministic pass changed.
func ExampleClient_Changes() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	t, err := c.CreatePaste(ctx, client.PasteRequest{Content: "In first corinthians 13 4 Paul, in revelations 21 John, near capernum."})
	if err != nil {
		log.Fatal(err)
	}
	for ch, err := range c.Changes(ctx, t.ID, client.ChangeFilter{}, 0) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %q -> %q (%s)\n", ch.Category, ch.Original, ch.Replacement, ch.Status)
	}
	// Output:
	// bible "first corinthians" -> "1 Corinthians" (auto_applied)
	// bible "revelations" -> "Revelation" (auto_applied)
	// place "capernum" -> "Capernaum" (auto_applied)
}

// Review a transcript: accept a suggestion, add a correction the passes missed, and find that
// a batch based on an older review version is refused.
func ExampleClient_Decide() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	text := "The Revelations of the prophets were many.\n"
	t, err := c.CreatePaste(ctx, client.PasteRequest{Content: text})
	if err != nil {
		log.Fatal(err)
	}
	undecided := false
	for ch, err := range c.Changes(ctx, t.ID, client.ChangeFilter{Status: "needs_review", Decided: &undecided}, 0) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("to decide: %s %q -> %q\n", ch.ID, ch.Original, ch.Replacement)
	}
	version := t.Review.Version
	start := strings.Index(text, "prophets")
	t, err = c.Decide(ctx, t.ID, client.DecideRequest{ReviewVersion: &version, Decisions: []client.Decision{
		{ChangeID: "chg_0001", Action: client.ActionAccept},
		{Action: client.ActionAdd, Start: start, End: start + len("prophets"), Replacement: "Prophets"},
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(*t.Content)
	fmt.Println("version", t.Review.Version, "undecided", t.Review.Undecided, "decided", t.Review.Decided)
	// A second reviewer who read version 0 is told to fetch the transcript again.
	_, err = c.Decide(ctx, t.ID, client.DecideRequest{ReviewVersion: &version, Decisions: []client.Decision{
		{ChangeID: "chg_0001", Action: client.ActionReject},
	}})
	fmt.Println("conflict:", client.IsType(err, "conflict"))
	// Output:
	// to decide: chg_0001 "Revelations" -> "Revelation"
	// The Revelation of the Prophets were many.
	// version 1 undecided 0 decided 2
	// conflict: true
}

// Run the AI validation pass on a transcript and wait for its verdicts.
func ExampleClient_TriggerAIPass() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	t, err := c.CreatePaste(ctx, client.PasteRequest{Content: "Read revelations 21 4 tonight."})
	if err != nil {
		log.Fatal(err)
	}
	t, err = c.TriggerAIPass(ctx, t.ID, client.AIPassRequest{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.AIPassStatus)
	t, err = c.WaitForTranscript(ctx, t.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.AIPassStatus, t.AIPass.Provider, "confirmed:", t.AIPass.Confirmed)
	// Output:
	// queued
	// completed rules confirmed: 1
}

// Read a job's status: a paste's correction job has already succeeded.
func ExampleClient_GetJob() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	t, err := c.CreatePaste(ctx, client.PasteRequest{Content: "Psalm 23."})
	if err != nil {
		log.Fatal(err)
	}
	j, err := c.GetJob(ctx, t.Jobs[0].ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(j.Type, j.Status, j.Progress, j.TranscriptID == t.ID)
	// Output:
	// correction succeeded 100 true
}

// A deleted transcript reads as not found.
func ExampleClient_DeleteTranscript() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	t, err := c.CreatePaste(ctx, client.PasteRequest{Content: "Psalm 91."})
	if err != nil {
		log.Fatal(err)
	}
	d, err := c.DeleteTranscript(ctx, t.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Deleted)
	_, err = c.GetTranscript(ctx, t.ID)
	fmt.Println(client.IsType(err, client.ErrNotFound))
	// Output:
	// true
	// true
}

// Errors carry the API's type, the offending parameter and the request id.
func ExampleError() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.CreateYouTube(ctx, client.YouTubeRequest{URL: "https://www.youtube.com/@SomeChurch"})
	var apiErr *client.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Type, apiErr.Param, strings.HasPrefix(apiErr.RequestID, "req_"))
	}
	// Output:
	// 422 unprocessable url true
}

// Confirm a key and see its organization.
func ExampleClient_Me() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	me, err := c.Me(ctx)
	if err != nil {
		log.Fatal(err)
	}
	h, err := c.Health(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.HasPrefix(me.OrganizationID, "org_"), me.Label, h.Status)
	// Output:
	// true demo key ok
}

// A webhook receiver: ParseWebhook verifies the signature over the raw body, then decodes
// the event. The second half plays tcs and sends one genuine and one forged delivery.
func ExampleParseWebhook() {
	secret := "whsec_k7q2m9x4p1r8t5w3z6v0n2b8c4d1f7g3" // from the dashboard, never the source
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 32<<20)
		ev, err := client.ParseWebhook(r, secret, webhook.DefaultTolerance)
		if err != nil {
			http.Error(w, "invalid signature", http.StatusBadRequest)
			return
		}
		fmt.Println(ev.Event, ev.DeliveryID, ev.ID, ev.Status)
	})

	body := `{"event":"transcript.completed","delivery_id":"evt_0123456789abcdefghij","id":"tr_abcdefghij0123456789","object":"transcript","status":"completed","ai_pass_status":"idle"}`
	now := time.Now().Unix()
	for _, key := range []string{secret, "whsec_forged"} {
		r := httptest.NewRequest(http.MethodPost, "/webhooks/tcs", strings.NewReader(body))
		r.Header.Set(webhook.HeaderSignatureV1, fmt.Sprintf("t=%d,v1=%s", now, webhook.SignTimestamped(key, now, []byte(body))))
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		fmt.Println(w.Code)
	}
	// Output:
	// transcript.completed evt_0123456789abcdefghij tr_abcdefghij0123456789 completed
	// 200
	// 400
}
