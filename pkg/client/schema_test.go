package client

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// jsonFields returns the JSON member names of struct type t, embedded structs included.
func jsonFields(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			names = append(names, jsonFields(f.Type)...)
			continue
		}
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// The client's types have exactly the members the OpenAPI document gives each object.
func TestTypesMatchOpenAPI(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	type object struct {
		Properties map[string]json.RawMessage `json:"properties"`
		AnyOf      []json.RawMessage          `json:"anyOf"`
	}
	// members returns the property names of the schema at path (schema name, then property
	// names down to a nested object; an anyOf takes its object branch).
	members := func(path ...string) []string {
		raw := doc.Components.Schemas[path[0]]
		for _, p := range path[1:] {
			var o object
			if err := json.Unmarshal(raw, &o); err != nil {
				t.Fatal(err)
			}
			raw = o.Properties[p]
		}
		var o object
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatal(err)
		}
		for _, b := range o.AnyOf {
			var branch object
			if err := json.Unmarshal(b, &branch); err == nil && branch.Properties != nil {
				o = branch
			}
		}
		var names []string
		for k := range o.Properties {
			names = append(names, k)
		}
		slices.Sort(names)
		return names
	}
	without := func(names []string, drop string) []string {
		return slices.DeleteFunc(names, func(s string) bool { return s == drop })
	}
	cases := []struct {
		schema []string
		typ    any
		drop   string // a member the Go type carries elsewhere
	}{
		{[]string{"Transcript"}, Transcript{}, ""},
		{[]string{"ChangesSummary"}, ChangesSummary{}, ""},
		{[]string{"AIPassResult"}, AIPass{}, ""},
		{[]string{"AIPassResult", "usage"}, TokenUsage{}, ""},
		{[]string{"JobRef"}, JobRef{}, ""},
		{[]string{"TranscriptOptions"}, Options{}, ""},
		{[]string{"TranscriptOptions", "ai_pass"}, AIPassOptions{}, ""},
		{[]string{"FailureReason"}, FailureReason{}, ""},
		{[]string{"Job"}, Job{}, ""},
		{[]string{"Change"}, Change{}, ""},
		{[]string{"Decision"}, ChangeDecision{}, ""},
		{[]string{"Review"}, Review{}, ""},
		{[]string{"DecisionRequest"}, DecideRequest{}, ""},
		{[]string{"DecisionInput"}, Decision{}, ""},
		{[]string{"ChangeList"}, List[Change]{}, ""},
		{[]string{"TranscriptList"}, List[Transcript]{}, ""},
		{[]string{"KeyMetadata"}, KeyMetadata{}, ""},
		{[]string{"Health"}, Health{}, ""},
		{[]string{"UploadGrant"}, UploadGrant{}, ""},
		{[]string{"DeletedTranscript"}, DeletedTranscript{}, ""},
		{[]string{"CreateOptions"}, ProcessingOptions{}, ""},
		{[]string{"CreatePasteRequest"}, PasteRequest{}, "source_type"},
		{[]string{"CreateYouTubeRequest"}, YouTubeRequest{}, "source_type"},
		{[]string{"CreateURLRequest"}, URLRequest{}, "source_type"},
		{[]string{"CreateUploadRequest"}, ConfirmUploadRequest{}, "source_type"},
		{[]string{"CreateUploadGrantRequest"}, UploadRequest{}, ""},
	}
	for _, tc := range cases {
		want := without(members(tc.schema...), tc.drop)
		if len(want) == 0 {
			t.Errorf("schema %v has no properties", tc.schema)
		}
		if got := jsonFields(reflect.TypeOf(tc.typ)); !slices.Equal(got, want) {
			t.Errorf("%T has members %v, the schema %v has %v", tc.typ, got, tc.schema, want)
		}
	}
}
