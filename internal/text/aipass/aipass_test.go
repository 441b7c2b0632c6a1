package aipass_test

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
)

// finishText is the text of the TestFinish requests; its changes are
// "romans" and "jerusalem".
const finishText = "turn to romans 8 28 in jerusalem and capernaum"

// finishSpan returns the byte span of the first occurrence of s in
// finishText.
func finishSpan(t *testing.T, s string) (int, int) {
	t.Helper()
	i := strings.Index(finishText, s)
	if i < 0 {
		t.Fatalf("%q not in the text", s)
	}
	return i, i + len(s)
}

// finishProposal returns a proposal to replace the first occurrence of
// orig in finishText.
func finishProposal(t *testing.T, orig, repl, reason string) aipass.Proposal {
	t.Helper()
	s, e := finishSpan(t, orig)
	return aipass.Proposal{Start: s, End: e, Original: orig, Replacement: repl, Reason: reason}
}

func finishRequest(t *testing.T) aipass.Request {
	t.Helper()
	rs, re := finishSpan(t, "romans")
	js, je := finishSpan(t, "jerusalem")
	return aipass.Request{Text: finishText, Changes: []correction.Change{
		{ID: "chg_0001", Category: "bible", Original: "romans", Replacement: "Romans", Start: rs, End: re, Line: 1, Rule: "book.lowercase"},
		{ID: "chg_0002", Category: "place", Original: "jerusalem", Replacement: "Jerusalem", Start: js, End: je, Line: 1, Rule: "place.lowercase"},
	}}
}

func TestFinish(t *testing.T) {
	const missing = "no verdict given"
	long := strings.Repeat("word ", 100)
	longCut := strings.TrimSpace(strings.Join(strings.Fields(long), " ")[:aipass.MaxReason-1]) + "…"
	accents := strings.Repeat("é", 300)
	accentsCut := strings.Repeat("é", aipass.MaxReason-1) + "…"
	confirmed := func(reason string) aipass.Judgement {
		return aipass.Judgement{Verdict: aipass.Confirmed, Reason: reason}
	}
	uncertain := aipass.Judgement{Verdict: aipass.Uncertain, Reason: missing}
	both := map[string]aipass.Judgement{"chg_0001": confirmed("a"), "chg_0002": confirmed("b")}
	p := func(orig, repl string) aipass.Proposal { return finishProposal(t, orig, repl, "r") }
	shifted := func(pr aipass.Proposal, ds, de int) aipass.Proposal {
		pr.Start += ds
		pr.End += de
		return pr
	}

	tests := []struct {
		name      string
		verdicts  map[string]aipass.Judgement
		proposals []aipass.Proposal
		missing   string
		want      []aipass.Judgement // without ChangeID: one per change, in order
		wantProps []aipass.Proposal
	}{
		{name: "all verdicts", verdicts: both, missing: missing,
			want: []aipass.Judgement{confirmed("a"), confirmed("b")}},
		{name: "no verdicts", verdicts: nil, missing: missing,
			want: []aipass.Judgement{uncertain, uncertain}},
		{name: "one missing", verdicts: map[string]aipass.Judgement{"chg_0002": {Verdict: aipass.Rejected, Reason: "no"}}, missing: missing,
			want: []aipass.Judgement{uncertain, {Verdict: aipass.Rejected, Reason: "no"}}},
		{name: "verdict for an unknown change", verdicts: map[string]aipass.Judgement{"chg_0009": confirmed("x"), "chg_0001": confirmed("a")}, missing: missing,
			want: []aipass.Judgement{confirmed("a"), uncertain}},
		{name: "invalid verdicts", verdicts: map[string]aipass.Judgement{
			"chg_0001": {Verdict: "maybe", Reason: "a"},
			"chg_0002": {Verdict: "", Reason: "b"},
		}, missing: missing, want: []aipass.Judgement{uncertain, uncertain}},
		{name: "verdict case matters", verdicts: map[string]aipass.Judgement{"chg_0001": {Verdict: "Confirmed", Reason: "a"}, "chg_0002": confirmed("b")}, missing: missing,
			want: []aipass.Judgement{uncertain, confirmed("b")}},
		{name: "wrong change id in the judgement", verdicts: map[string]aipass.Judgement{
			"chg_0001": {ChangeID: "chg_0002", Verdict: aipass.Confirmed, Reason: "a"},
			"chg_0002": {ChangeID: "", Verdict: aipass.Confirmed, Reason: "b"},
		}, missing: missing, want: []aipass.Judgement{confirmed("a"), confirmed("b")}},
		{name: "reasons collapsed", verdicts: map[string]aipass.Judgement{
			"chg_0001": confirmed("  followed by\n\tthe   reference 8:28 "),
			"chg_0002": confirmed(""),
		}, missing: missing, want: []aipass.Judgement{confirmed("followed by the reference 8:28"), confirmed("")}},
		{name: "reasons cut to MaxReason", verdicts: map[string]aipass.Judgement{"chg_0001": confirmed(long), "chg_0002": confirmed(accents)}, missing: missing,
			want: []aipass.Judgement{confirmed(longCut), confirmed(accentsCut)}},
		{name: "missing reason collapsed", verdicts: nil, missing: "  no \n verdict ",
			want: []aipass.Judgement{{Verdict: aipass.Uncertain, Reason: "no verdict"}, {Verdict: aipass.Uncertain, Reason: "no verdict"}}},
		{name: "valid proposals sorted", verdicts: both, missing: missing,
			proposals: []aipass.Proposal{p("capernaum", "Capernaum"), p("turn", "Turn")},
			want:      []aipass.Judgement{confirmed("a"), confirmed("b")},
			wantProps: []aipass.Proposal{p("turn", "Turn"), p("capernaum", "Capernaum")}},
		{name: "proposal reason collapsed", verdicts: both, missing: missing,
			proposals: []aipass.Proposal{finishProposal(t, "turn", "Turn", " a\n\nreason ")},
			want:      []aipass.Judgement{confirmed("a"), confirmed("b")},
			wantProps: []aipass.Proposal{finishProposal(t, "turn", "Turn", "a reason")}},
		{name: "proposals out of range", verdicts: both, missing: missing,
			proposals: []aipass.Proposal{
				{Start: -1, End: 4, Original: "turn", Replacement: "Turn"},
				{Start: len(finishText) - 9, End: len(finishText) + 1, Original: "capernaum", Replacement: "Capernaum"},
				{Start: 5, End: 5, Original: "", Replacement: "X"},
				{Start: 7, End: 5, Original: "", Replacement: "X"},
			},
			want: []aipass.Judgement{confirmed("a"), confirmed("b")}},
		{name: "proposals not matching the text", verdicts: both, missing: missing,
			proposals: []aipass.Proposal{
				{Start: 0, End: 4, Original: "Turn", Replacement: "TURN"},
				shifted(p("capernaum", "Capernaum"), 1, 0),
			},
			want: []aipass.Judgement{confirmed("a"), confirmed("b")}},
		{name: "proposals that change nothing or break UTF-8", verdicts: both, missing: missing,
			proposals: []aipass.Proposal{p("and", "and"), p("turn", "T\xffrn")},
			want:      []aipass.Judgement{confirmed("a"), confirmed("b")}},
		{name: "proposals overlapping a change", verdicts: both, missing: missing,
			proposals: []aipass.Proposal{
				p("romans 8", "Romans 8"),
				p("to romans", "to Romans"),
				p("rom", "Rom"),
				p("in jerusalem", "in Jerusalem"),
				p("jerusalem and", "Jerusalem and"),
			},
			want: []aipass.Judgement{confirmed("a"), confirmed("b")}},
		{name: "proposals next to a change", verdicts: both, missing: missing,
			proposals: []aipass.Proposal{p("to ", "unto "), p(" 8", " eight")},
			want:      []aipass.Judgement{confirmed("a"), confirmed("b")},
			wantProps: []aipass.Proposal{p("to ", "unto "), p(" 8", " eight")}},
		{name: "proposals overlapping each other", verdicts: both, missing: missing,
			proposals: []aipass.Proposal{
				p("capernaum", "Capernaum"),
				p("and capernaum", "and Capernaum"),
				p("and", "And"),
				p("turn", "Turn"),
				p("turn to", "Turn to"),
			},
			want:      []aipass.Judgement{confirmed("a"), confirmed("b")},
			wantProps: []aipass.Proposal{p("turn", "Turn"), p("and capernaum", "and Capernaum")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := finishRequest(t)
			rev := aipass.Finish(req, tt.verdicts, tt.proposals, tt.missing)
			if len(rev.Judgements) != len(req.Changes) {
				t.Fatalf("%d judgements for %d changes", len(rev.Judgements), len(req.Changes))
			}
			for i, j := range rev.Judgements {
				want := tt.want[i]
				want.ChangeID = req.Changes[i].ID
				if j != want {
					t.Errorf("judgement %d\n got %+v\nwant %+v", i, j, want)
				}
				if n := utf8.RuneCountInString(j.Reason); n > aipass.MaxReason {
					t.Errorf("judgement %d: reason of %d runes", i, n)
				}
			}
			if len(rev.Proposals) != len(tt.wantProps) || len(tt.wantProps) > 0 && !reflect.DeepEqual(rev.Proposals, tt.wantProps) {
				t.Errorf("proposals\n got %+v\nwant %+v", rev.Proposals, tt.wantProps)
			}
			if rev.Usage != (aipass.Usage{}) {
				t.Errorf("usage %+v", rev.Usage)
			}
		})
	}
}

// TestFinishEmpty checks a request without changes.
func TestFinishEmpty(t *testing.T) {
	rev := aipass.Finish(aipass.Request{Text: "amen"}, nil, nil, "x")
	if rev.Judgements == nil || len(rev.Judgements) != 0 || len(rev.Proposals) != 0 {
		t.Fatalf("%+v", rev)
	}
}
