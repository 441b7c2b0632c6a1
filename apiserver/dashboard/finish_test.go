package dashboard

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

func TestDownloadsAreNamedAfterTheTitle(t *testing.T) {
	for _, tc := range []struct {
		name, title, ext, disposition string
	}{
		{"a title's words are joined with hyphens", "Sunday service, 23 Nov", "srt", `attachment; filename="Sunday-service-23-Nov.srt"`},
		{"a path, quotes and control characters are left out", `../../etc/"passwd"` + "\r\n", "txt", `attachment; filename="etc-passwd.txt"`},
		{"an apostrophe joins its word", "God’s love isn't earned", "md", `attachment; filename="Gods-love-isnt-earned.md"`},
		{"a title of nothing but punctuation is a transcript", "?!…", "docx", `attachment; filename="transcript.docx"`},
		{"letters beyond ASCII go in filename* as UTF-8", "Culto de domingo — São Paulo", "vtt",
			`attachment; filename="Culto-de-domingo-So-Paulo.vtt"; filename*=UTF-8''Culto-de-domingo-S%C3%A3o-Paulo.vtt`},
		{"a title of another script keeps it in filename* only", "主日崇拜", "txt", `attachment; filename="transcript.txt"; filename*=UTF-8''%E4%B8%BB%E6%97%A5%E5%B4%87%E6%8B%9C.txt`},
	} {
		if got := contentDisposition(fileName(tc.title), tc.ext); got != tc.disposition {
			t.Errorf("%s: %q gives %s, want %s", tc.name, tc.title, got, tc.disposition)
		}
	}
	if n := len([]rune(fileName("a " + strings.Repeat("é", 500)))); n != maxFileNameRunes {
		t.Errorf("a long title gives a name of %d characters, want %d", n, maxFileNameRunes)
	}
}

func TestATranscriptIsNeverCalledByItsIDAlone(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 11, 23, 10, 42, 0, 0, time.UTC))
	for _, tc := range []struct {
		name string
		t    tcsv1.Transcript
		want string
	}{
		{"its title as corrected", tcsv1.Transcript{Status: tcsv1.TranscriptStatus{Title: "Easter"}, Spec: tcsv1.TranscriptSpec{Source: tcsv1.TranscriptSource{Title: "given"}}}, "Easter"},
		{"the title given while it is pending", tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{Source: tcsv1.TranscriptSource{Title: "given", Filename: "f.srt"}}}, "given"},
		{"the name of its file", tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{Source: tcsv1.TranscriptSource{Filename: "f.srt", URL: "https://x"}}}, "f.srt"},
		{"its address", tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{Source: tcsv1.TranscriptSource{URL: "https://youtu.be/x"}}}, "https://youtu.be/x"},
		{"when it was added", tcsv1.Transcript{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: created}, Spec: tcsv1.TranscriptSpec{ID: "tr_1"}}, "Untitled, added 23 Nov 2026 10:42"},
	} {
		if got := displayName(&tc.t); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestPlainTextLeavesOutTimingsAndMarkup(t *testing.T) {
	for _, tc := range []struct{ format, content, want string }{
		{"srt", "1\n00:00:01,000 --> 00:00:02,000\nIn the beginning\n\n2\n00:00:02,000 --> 00:00:03,000\nwas the Word.\n", "In the beginning\nwas the Word."},
		{"html", "<p>In the <b>beginning</b></p>", "In the beginning"},
		{"txt", "As it is.\n", "As it is.\n"},
	} {
		got, err := plainText([]byte(tc.content), tc.format)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.format, got, err, tc.want)
		}
	}
}
