package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
)

func newProcessor(t *testing.T) (*Processor, *blob.Store) {
	t.Helper()
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return New(engine, store), store
}

func TestCorrectMapsChangesToTheSubmittedDocument(t *testing.T) {
	p, _ := newProcessor(t)
	for _, tc := range []struct {
		name, format, in, want, wantTitle string
		wantFormat                        formats.Format
	}{
		{"txt sniffed", "", "Hope\nread Revelations 21:4\n", "Hope\nread Revelation 21:4\n", "Hope", formats.TXT},
		{"srt", "srt", "1\n00:00:01,000 --> 00:00:02,000\nread Revelations 21:4\n", "1\n00:00:01,000 --> 00:00:02,000\nread Revelation 21:4\n", "read Revelation 21:4", formats.SRT},
		{"srt sniffed", "", "1\n00:00:01,000 --> 00:00:02,000\nread Revelations 21:4\n", "1\n00:00:01,000 --> 00:00:02,000\nread Revelation 21:4\n", "read Revelation 21:4", formats.SRT},
		{"no change", "txt", "Grace and peace.\n", "Grace and peace.\n", "Grace and peace.", formats.TXT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Correct([]byte(tc.in), formats.Format(tc.format), correction.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Content) != tc.want || res.Title != tc.wantTitle || res.Format != tc.wantFormat {
				t.Fatalf("Correct = %q, title %q, format %s; want %q, %q, %s", res.Content, res.Title, res.Format, tc.want, tc.wantTitle, tc.wantFormat)
			}
			for _, c := range res.Changes {
				if tc.in[c.Start:c.End] != c.Original {
					t.Errorf("change %s: submitted[%d:%d] = %q, Original %q", c.ID, c.Start, c.End, tc.in[c.Start:c.End], c.Original)
				}
				if line := strings.Count(tc.in[:c.Start], "\n") + 1; line != c.Line {
					t.Errorf("change %s: line %d, want %d", c.ID, c.Line, line)
				}
			}
			if res.Summary.Total != len(res.Changes) {
				t.Errorf("summary %+v for %d changes", res.Summary, len(res.Changes))
			}
		})
	}
}

func TestCorrectRefusesUnreadableContent(t *testing.T) {
	p, _ := newProcessor(t)
	_, err := p.Correct([]byte("{not json"), formats.JSON, correction.Options{})
	var ce *ContentError
	if !errors.As(err, &ce) || ce.Format != formats.JSON {
		t.Fatalf("err = %v, want a ContentError for json", err)
	}
}

func TestSaveAndReprocess(t *testing.T) {
	ctx := context.Background()
	p, store := newProcessor(t)
	keys := KeysFor("org_a", "tr_b")
	if keys.Input != "transcripts/org_a/tr_b/input" || keys.Content != "transcripts/org_a/tr_b/content" || keys.Changes != "transcripts/org_a/tr_b/changes.json" {
		t.Fatalf("keys %+v", keys)
	}
	in := []byte("We read Phillipians 4:13.")
	res, err := p.Correct(in, "", correction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Save(ctx, keys, in, res); err != nil {
		t.Fatal(err)
	}
	again, err := p.Reprocess(ctx, keys, "", correction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if string(again.Content) != "We read Philippians 4:13." || string(again.Content) != string(res.Content) {
		t.Fatalf("Reprocess = %q", again.Content)
	}
	raw, err := store.Get(ctx, keys.Changes)
	if err != nil {
		t.Fatal(err)
	}
	var changes []correction.Change
	if err := json.Unmarshal(raw, &changes); err != nil || len(changes) != 1 || changes[0].Replacement != "Philippians" {
		t.Fatalf("stored changes %s (%v)", raw, err)
	}
	if _, err := p.Reprocess(ctx, KeysFor("org_a", "tr_missing"), "", correction.Options{}); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Reprocess without input: %v, want ErrNotFound", err)
	}
}

func TestComplete(t *testing.T) {
	tr := &tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{Source: tcsv1.TranscriptSource{Title: "Given"}}}
	tr.Generation = 3
	res := &Result{Format: formats.SRT, Title: "From content", Summary: correction.Summary{Total: 2, AutoApplied: 1, NeedsReview: 1, ByCategory: map[string]int{"bible": 2}}}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	res.Complete(tr, KeysFor("org_a", "tr_b"), now)
	st := tr.Status
	if st.Phase != tcsv1.PhaseCompleted || st.AIPassStatus != tcsv1.AIPassIdle || st.Title != "Given" || st.Format != "srt" ||
		st.ChangesSummary.Total != 2 || st.ChangesSummary.ByCategory["bible"] != 2 || !st.CompletedAt.Time.Equal(now) ||
		st.ContentRef != "transcripts/org_a/tr_b/content" || st.ObservedGeneration != 3 {
		t.Fatalf("status %+v", st)
	}
	tr2 := &tcsv1.Transcript{}
	res.Complete(tr2, KeysFor("org_a", "tr_c"), now)
	if tr2.Status.Title != "From content" {
		t.Fatalf("title %q, want the content's first line", tr2.Status.Title)
	}
}

func TestFirstLine(t *testing.T) {
	long := strings.Repeat("é", MaxTitleRunes+10)
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"\n\n  \n", ""},
		{"\n\n  Hello world  \nnext", "Hello world"},
		{"only", "only"},
		{long, strings.Repeat("é", MaxTitleRunes)},
	} {
		if got := FirstLine(tc.in); got != tc.want {
			t.Errorf("FirstLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCorrectFindsANameSplitAcrossCues(t *testing.T) {
	p, _ := newProcessor(t)
	in := "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nturn with me to first\n\n00:00:02.000 --> 00:00:04.000\ncorinthians thirteen verse four\n"
	want := "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nturn with me to 1 Corinthians\n\n00:00:02.000 --> 00:00:04.000\nthirteen verse four\n"
	res, err := p.Correct([]byte(in), "", correction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Content) != want || res.Format != formats.VTT {
		t.Fatalf("content %q (%s), want %q", res.Content, res.Format, want)
	}
	if len(res.Changes) != 1 {
		t.Fatalf("changes %+v", res.Changes)
	}
	c := res.Changes[0]
	// The change spans the submitted bytes from the first word to the last, timings between.
	if c.Original != "first\ncorinthians" || c.Replacement != "1 Corinthians" || c.Line != 4 ||
		!strings.HasPrefix(in[c.Start:], "first") || !strings.HasSuffix(in[:c.End], "corinthians") {
		t.Fatalf("change %+v covers %q", c, in[c.Start:c.End])
	}
}

func TestCorrectionsAreObserved(t *testing.T) {
	p, _ := newProcessor(t)
	type seen struct {
		format string
		bytes  int
	}
	var got []seen
	p.ObserveCorrections(func(format string, bytes int, took time.Duration) {
		if took <= 0 {
			t.Errorf("took %v", took)
		}
		got = append(got, seen{format, bytes})
	})
	content := "1\n00:00:01,000 --> 00:00:03,000\nturn to revelations 21:4\n"
	if _, err := p.Correct([]byte(content), "", correction.Options{}); err != nil {
		t.Fatal(err)
	}
	// A refused document is no corrected one.
	if _, err := p.Correct([]byte("PK\x03\x04 not a docx"), formats.DOCX, correction.Options{}); err == nil {
		t.Fatal("a broken docx was corrected")
	}
	if want := []seen{{"srt", len(content)}}; !slices.Equal(got, want) {
		t.Fatalf("observed %v, want %v", got, want)
	}
}

func TestCorrectionOptionsCarryCategoriesAndThresholds(t *testing.T) {
	p, _ := newProcessor(t)
	const in = "read Revelations 21:4 and first corinthians 13 4 near capernum\n"
	for _, tc := range []struct {
		name string
		opts tcsv1.TranscriptOptions
		want map[string]correction.Status // original: status; absent means not changed
	}{
		{"no options keep the engine's decisions", tcsv1.TranscriptOptions{},
			map[string]correction.Status{"Revelations": correction.StatusAutoApplied, "first corinthians": correction.StatusAutoApplied, "capernum": correction.StatusAutoApplied}},
		{"a category filter leaves the other categories out", tcsv1.TranscriptOptions{Categories: []string{"place"}},
			map[string]correction.Status{"capernum": correction.StatusAutoApplied}},
		{"an auto_apply bound demotes the changes below it", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.95"}},
			map[string]correction.Status{"Revelations": correction.StatusNeedsReview, "first corinthians": correction.StatusAutoApplied, "capernum": correction.StatusNeedsReview}},
		{"a suggest bound drops the changes below it", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{Suggest: "0.95"}},
			map[string]correction.Status{"first corinthians": correction.StatusAutoApplied}},
		{"both together", tcsv1.TranscriptOptions{Categories: []string{"bible"}, Thresholds: &tcsv1.Thresholds{AutoApply: "1", Suggest: "0.9"}},
			map[string]correction.Status{"Revelations": correction.StatusNeedsReview, "first corinthians": correction.StatusNeedsReview}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Correct([]byte(in), formats.TXT, CorrectionOptions(tc.opts))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]correction.Status{}
			for _, c := range res.Changes {
				got[c.Original] = c.Status
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("changes %v; want %v", got, tc.want)
			}
			if res.Summary.Total != len(tc.want) {
				t.Errorf("summary total %d; want %d", res.Summary.Total, len(tc.want))
			}
		})
	}
}
