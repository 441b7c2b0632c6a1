package webhook

import (
	"slices"
	"strings"
	"testing"
)

func TestParseEvents(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
		err  string
	}{
		{[]string{"transcript.completed", " ai_pass.failed", "transcript.completed"}, []string{"transcript.completed", "ai_pass.failed"}, ""},
		{[]string{"all"}, Events(), ""},
		{[]string{"", " "}, nil, "events is required"},
		{nil, nil, "events is required"},
		{[]string{"transcript.created", "transcript.deleted"}, nil, `unknown event type "transcript.deleted"`},
	} {
		got, err := ParseEvents(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseEvents(%q) = %v, %v; want an error mentioning %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseEvents(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestEventsAreTheEventTypesOfTheAPIAndEachCallGetsItsOwnList(t *testing.T) {
	want := []string{"transcript.created", "transcript.completed", "transcript.failed", "ai_pass.started", "ai_pass.completed", "ai_pass.failed", "transcript.reviewed"}
	got := Events()
	if !slices.Equal(got, want) {
		t.Fatalf("Events() = %v, want %v", got, want)
	}
	if slices.Contains(got, EventTest) {
		t.Errorf("Events() = %v holds the test event %q, which no endpoint subscribes to", got, EventTest)
	}
	got[0] = "changed"
	if again := Events(); !slices.Equal(again, want) {
		t.Errorf("after changing the list one call returned, Events() = %v, want %v", again, want)
	}
}
