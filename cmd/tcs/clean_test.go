package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runTCS(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCommand()
	var out bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	err := cmd.Execute()
	return out.String(), err
}

const aiText = "Turn to first corinthians 13:4.\nThe Revelations of the prophets were many.\nThey sailed past capernum.\n"

func TestClean(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sermon.srt")
	if err := os.WriteFile(file, []byte("1\n00:00:01,000 --> 00:00:02,000\nread revelations 3:20\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		stdin   string
		args    []string
		want    string
		wantErr string
	}{
		{"stdin", "read Revelations 3:20\n", []string{"clean"}, "read Revelation 3:20\n", ""},
		{"dash is stdin", "Phillipians 4:13", []string{"clean", "-"}, "Philippians 4:13", ""},
		{"file with sniffed format", "", []string{"clean", file}, "1\n00:00:01,000 --> 00:00:02,000\nread Revelation 3:20\n", ""},
		{"explicit format", "read Revelations 3:20", []string{"clean", "--format", "txt"}, "read Revelation 3:20", ""},
		{"unknown format", "x", []string{"clean", "--format", "pdf"}, "", "--format"},
		{"missing file", "", []string{"clean", "/does/not/exist"}, "", "reading /does/not/exist"},
		{"bad UTF-8", "a\xffb", []string{"clean"}, "", "not valid UTF-8"},
		{"unreadable json", "{oops", []string{"clean", "--format", "json"}, "", "not valid json"},
		// The rules provider rejects the English "Revelations" and confirms the reference.
		{"ai pass leaves the text", aiText, []string{"clean", "--ai-pass"}, "Turn to 1 Corinthians 13:4.\nThe Revelations of the prophets were many.\nThey sailed past capernum.\n", ""},
		{"ai pass applied", "The revelations of the prophets. Read revelations 21:4.", []string{"clean", "--ai-pass", "--ai-apply"},
			"The revelations of the prophets. Read Revelation 21:4.", ""},
		{"ai pass bad provider", "x", []string{"clean", "--ai-pass", "--ai-provider", "gpt"}, "", "--ai-provider"},
		{"ai pass openai without model", "x", []string{"clean", "--ai-pass", "--ai-base-url", "http://127.0.0.1:9/v1"}, "", "model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runTCS(t, tc.stdin, tc.args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || out != tc.want {
				t.Fatalf("out = %q, %v; want %q", out, err, tc.want)
			}
		})
	}
}

func TestCleanJSON(t *testing.T) {
	out, err := runTCS(t, "Hope\nturn to Revelations 21:4\n", "clean", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got cleanOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.Object != "transcript" || got.Content != "Hope\nturn to Revelation 21:4\n" || got.Title != "Hope" ||
		got.SourceFormat != "txt" || got.ChangesSummary.Total != 1 || len(got.Changes) != 1 {
		t.Fatalf("clean --json = %+v", got)
	}
	c := got.Changes[0]
	if c.Original != "Revelations" || c.Replacement != "Revelation" || c.Line != 2 || c.Start != 13 || c.End != 24 {
		t.Fatalf("change %+v", c)
	}
}

func TestCleanAIPassJSON(t *testing.T) {
	out, err := runTCS(t, aiText, "clean", "--ai-pass", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Summary struct {
			Total     int `json:"total"`
			AIFlagged int `json:"ai_flagged"`
		} `json:"changes_summary"`
		AIPass struct {
			Provider  string `json:"provider"`
			Confirmed int    `json:"confirmed"`
			Rejected  int    `json:"rejected"`
			Uncertain int    `json:"uncertain"`
		} `json:"ai_pass"`
		Changes []struct {
			Original string `json:"original"`
			Verdict  string `json:"ai_verdict"`
			Reason   string `json:"ai_reason"`
			Applied  *bool  `json:"applied"`
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	verdicts := map[string]string{}
	for _, c := range got.Changes {
		if c.Reason == "" || c.Applied == nil {
			t.Errorf("change %+v lacks a reason or applied", c)
		}
		verdicts[c.Original] = c.Verdict
	}
	p := got.AIPass
	if p.Provider != "rules" || verdicts["first corinthians"] != "confirmed" || verdicts["Revelations"] != "rejected" ||
		got.Summary.Total != 3 || got.Summary.AIFlagged != p.Rejected+p.Uncertain || p.Confirmed+p.Rejected+p.Uncertain != 3 {
		t.Fatalf("result %+v, verdicts %v", got, verdicts)
	}
}
