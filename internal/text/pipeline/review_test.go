package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
)

// scripted is a provider with fixed verdicts by change id and proposals of words, so that the
// merge of verdicts into documents can be checked exactly.
type scripted struct {
	verdicts map[string]aipass.Verdict
	propose  map[string]string // word of the text → replacement
	err      error
}

func (s *scripted) Name() string  { return "scripted" }
func (s *scripted) Model() string { return "v0" }

func (s *scripted) Review(_ context.Context, req aipass.Request) (*aipass.Review, error) {
	if s.err != nil {
		return nil, s.err
	}
	judged := map[string]aipass.Judgement{}
	for id, v := range s.verdicts {
		judged[id] = aipass.Judgement{Verdict: v, Reason: "because " + string(v)}
	}
	var props []aipass.Proposal
	for word, repl := range s.propose {
		if i := strings.Index(req.Text, word); i >= 0 {
			props = append(props, aipass.Proposal{Start: i, End: i + len(word), Original: word, Replacement: repl, Reason: "proposed"})
		}
	}
	return aipass.Finish(req, judged, props, "none given"), nil
}

func TestReviewMergesVerdictsIntoEachFormat(t *testing.T) {
	// chg_0001: "Revelations" auto-applied; chg_0002: "capernum" left for review.
	verdicts := map[string]aipass.Verdict{"chg_0001": aipass.Rejected, "chg_0002": aipass.Confirmed}
	for _, tc := range []struct {
		name, format, in string
		apply            bool
		want             string // the content the transcript shows afterwards
	}{
		{"txt without apply", "txt", "read Revelations 21:4 past capernum\n", false, "read Revelation 21:4 past capernum\n"},
		{"txt with apply", "txt", "read Revelations 21:4 past capernum\n", true, "read Revelations 21:4 past Capernaum\n"},
		{"srt with apply", "srt", "1\n00:00:01,000 --> 00:00:02,000\nread Revelations 21:4\n\n2\n00:00:02,000 --> 00:00:03,000\npast capernum\n", true,
			"1\n00:00:01,000 --> 00:00:02,000\nread Revelations 21:4\n\n2\n00:00:02,000 --> 00:00:03,000\npast Capernaum\n"},
		{"html with apply", "html", "<p>read <b>Revelations</b> 21:4 past capernum</p>", true, "<p>read <b>Revelations</b> 21:4 past Capernaum</p>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, store := newProcessor(t)
			keys := KeysFor("org_a", "tr_1")
			res, err := p.Correct([]byte(tc.in), formats.Format(tc.format), correction.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Changes) != 2 || res.Changes[0].Status != correction.StatusAutoApplied || res.Changes[1].Status != correction.StatusNeedsReview {
				t.Fatalf("the deterministic pass found %+v", res.Changes)
			}
			if err := p.Save(t.Context(), keys, []byte(tc.in), res); err != nil {
				t.Fatal(err)
			}
			rev, err := p.Review(t.Context(), ReviewInput{Keys: keys, Format: formats.Format(tc.format), Apply: tc.apply},
				&scripted{verdicts: verdicts, propose: map[string]string{"read": "Read"}})
			if err != nil {
				t.Fatal(err)
			}
			contentKey := keys.Content
			if tc.apply {
				contentKey = keys.AIContent
			}
			content, err := store.Get(t.Context(), contentKey)
			if err != nil || string(content) != tc.want {
				t.Fatalf("content %q, %v; want %q", content, err, tc.want)
			}
			if deterministic, _ := store.Get(t.Context(), keys.Content); string(deterministic) != string(res.Content) {
				t.Fatalf("the deterministic content changed: %q", deterministic)
			}
			raw, err := store.Get(t.Context(), keys.AIChanges)
			if err != nil {
				t.Fatal(err)
			}
			var stored []Change
			if err := json.Unmarshal(raw, &stored); err != nil {
				t.Fatal(err)
			}
			if len(stored) != 3 || len(rev.Changes) != 3 {
				t.Fatalf("stored %+v", stored)
			}
			// In text order: the proposal ("read") comes first but is numbered last.
			ids := []string{stored[0].ID, stored[1].ID, stored[2].ID}
			if strings.Join(ids, ",") != "chg_0003,chg_0001,chg_0002" {
				t.Fatalf("ids %v", ids)
			}
			for _, c := range stored {
				if tc.in[c.Start:c.End] != c.Original {
					t.Errorf("change %s: submitted[%d:%d] = %q, original %q", c.ID, c.Start, c.End, tc.in[c.Start:c.End], c.Original)
				}
				wantApplied := map[string]bool{"chg_0001": !tc.apply, "chg_0002": tc.apply, "chg_0003": false}[c.ID]
				if c.IsApplied() != wantApplied {
					t.Errorf("change %s applied %v, want %v", c.ID, c.IsApplied(), wantApplied)
				}
			}
			if p := stored[0]; p.Category != aipass.CategoryAI || p.Status != correction.StatusNeedsReview || p.AIVerdict != "" || p.AIReason != "proposed" || p.Replacement != "Read" {
				t.Errorf("proposal %+v", p)
			}
			if stored[1].AIVerdict != aipass.Rejected || stored[1].AIReason != "because rejected" || stored[2].AIVerdict != aipass.Confirmed {
				t.Errorf("verdicts %+v", stored)
			}
			s := rev.Summary
			if s.Total != 3 || s.AutoApplied != 1 || s.NeedsReview != 2 || s.AIFlagged != 1 || s.ByCategory["ai"] != 1 ||
				rev.Confirmed != 1 || rev.Rejected != 1 || rev.Uncertain != 0 || rev.Proposed != 1 {
				t.Errorf("summary %+v, revision %+v", s, rev)
			}
		})
	}
}

func TestReviewFailures(t *testing.T) {
	in := "read Revelations 21:4\n"
	providerDown := errors.New("connection refused")
	for _, tc := range []struct {
		name    string
		tamper  func(t *testing.T, p *Processor, keys Keys)
		prov    aipass.Provider
		wantErr func(error) bool
	}{
		{"provider error", nil, &scripted{err: providerDown}, func(err error) bool {
			var pe *ProviderError
			return errors.As(err, &pe) && errors.Is(err, providerDown)
		}},
		{"stale change list", func(t *testing.T, p *Processor, keys Keys) {
			if err := p.store.Put(t.Context(), keys.Changes, []byte(`[]`), "application/json"); err != nil {
				t.Fatal(err)
			}
		}, &scripted{}, func(err error) bool { return errors.Is(err, ErrStale) }},
		{"input gone", func(t *testing.T, p *Processor, keys Keys) {
			if err := p.store.Delete(t.Context(), keys.Input); err != nil {
				t.Fatal(err)
			}
		}, &scripted{}, func(err error) bool { return err != nil && !errors.As(err, new(*ProviderError)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, store := newProcessor(t)
			keys := KeysFor("org_a", "tr_1")
			res, err := p.Correct([]byte(in), formats.TXT, correction.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Save(t.Context(), keys, []byte(in), res); err != nil {
				t.Fatal(err)
			}
			if tc.tamper != nil {
				tc.tamper(t, p, keys)
			}
			_, err = p.Review(t.Context(), ReviewInput{Keys: keys, Format: formats.TXT, Apply: true}, tc.prov)
			if !tc.wantErr(err) {
				t.Fatalf("Review error %v", err)
			}
			for _, k := range []string{keys.AIChanges, keys.AIContent} {
				if ok, err := store.Exists(t.Context(), k); err != nil || ok {
					t.Fatalf("%s written by a failed review (%v)", k, err)
				}
			}
		})
	}
}
