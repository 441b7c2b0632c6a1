package apiserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

func TestParseOptionsReadsCategoriesThresholdsAndMetadata(t *testing.T) {
	many := func(n int, item func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = item(i)
		}
		return strings.Join(parts, ",")
	}
	for _, tc := range []struct {
		name string
		body string
		want tcsv1.TranscriptOptions
	}{
		{"categories are sorted and their duplicates collapse", `{"categories":["place","bible","place","church-names"]}`,
			tcsv1.TranscriptOptions{Categories: []string{"bible", "church-names", "place"}}},
		{"32 categories are accepted", `{"categories":[` + many(32, func(i int) string { return fmt.Sprintf(`"c%d"`, i) }) + `]}`,
			tcsv1.TranscriptOptions{Categories: func() []string {
				var out []string
				for i := range 32 {
					out = append(out, fmt.Sprintf("c%d", i))
				}
				return slices.Sorted(slices.Values(out))
			}()}},
		{"null categories are none", `{"categories":null}`, tcsv1.TranscriptOptions{}},
		{"both thresholds", `{"thresholds":{"auto_apply":0.9,"suggest":0.5}}`,
			tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.9", Suggest: "0.5"}}},
		{"a threshold alone", `{"thresholds":{"suggest":0.25}}`, tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{Suggest: "0.25"}}},
		{"thresholds of 0 and 1", `{"thresholds":{"auto_apply":1,"suggest":0}}`, tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "1", Suggest: "0"}}},
		{"equal thresholds", `{"thresholds":{"auto_apply":0.7,"suggest":0.70}}`, tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.7", Suggest: "0.7"}}},
		{"a threshold in exponent form", `{"thresholds":{"auto_apply":8.5e-1}}`, tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.85"}}},
		{"empty thresholds are none", `{"thresholds":{}}`, tcsv1.TranscriptOptions{}},
		{"a threshold of minus zero is 0", `{"thresholds":{"suggest":-0.0}}`, tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{Suggest: "0"}}},
		{"trailing zeros beyond three places", `{"thresholds":{"auto_apply":0.8500}}`, tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.85"}}},
		{"null thresholds are none", `{"thresholds":{"auto_apply":null}}`, tcsv1.TranscriptOptions{}},
		{"metadata", `{"metadata":{"campus":"north","series.id":"2024-07","empty":""}}`,
			tcsv1.TranscriptOptions{Metadata: map[string]string{"campus": "north", "series.id": "2024-07", "empty": ""}}},
		{"20 metadata keys and a repeated one", `{"metadata":{` + many(20, func(i int) string { return fmt.Sprintf(`"k%d":"v"`, i) }) + `,"k0":"w"}}`,
			tcsv1.TranscriptOptions{Metadata: func() map[string]string {
				m := map[string]string{}
				for i := range 20 {
					m[fmt.Sprintf("k%d", i)] = "v"
				}
				m["k0"] = "w"
				return m
			}()}},
		{"a value of 500 bytes", `{"metadata":{"k":"` + strings.Repeat("é", 250) + `"}}`, tcsv1.TranscriptOptions{Metadata: map[string]string{"k": strings.Repeat("é", 250)}}},
		{"empty metadata is none", `{"metadata":{}}`, tcsv1.TranscriptOptions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, aerr := parseOptions(json.RawMessage(tc.body))
			if aerr != nil {
				t.Fatalf("refused: %s: %s", aerr.Param, aerr.Message)
			}
			if !got.Equal(tc.want) {
				t.Fatalf("options %+v; want %+v", got, tc.want)
			}
		})
	}
}

func TestParseOptionsRefusesEachInvalidOptionNamingIt(t *testing.T) {
	long := strings.Repeat("a", 41)
	for _, tc := range []struct {
		name, body, param string
	}{
		{"categories not an array", `{"categories":"bible"}`, "options.categories"},
		{"categories an object", `{"categories":{"a":1}}`, "options.categories"},
		{"empty categories", `{"categories":[]}`, "options.categories"},
		{"33 categories", `{"categories":[` + strings.Repeat(`"bible",`, 32) + `"place"]}`, "options.categories"},
		{"a category not a string", `{"categories":["bible",7]}`, "options.categories[1]"},
		{"a null category", `{"categories":[null]}`, "options.categories[0]"},
		{"a category in capitals", `{"categories":["place","Bible"]}`, "options.categories[1]"},
		{"an empty category", `{"categories":[""]}`, "options.categories[0]"},
		{"a category of 41 bytes", `{"categories":["` + long + `"]}`, "options.categories[0]"},
		{"a very long category", `{"categories":["` + strings.Repeat("a", 10_000) + `"]}`, "options.categories[0]"},
		{"a category with a space", `{"categories":["church names"]}`, "options.categories[0]"},
		{"a category starting with -", `{"categories":["-x"]}`, "options.categories[0]"},
		{"a category of invalid UTF-8", "{\"categories\":[\"b\xffible\"]}", "options.categories[0]"},
		{"thresholds not an object", `{"thresholds":0.5}`, "options.thresholds"},
		{"an unknown threshold", `{"thresholds":{"drop":0.1}}`, "options.thresholds.drop"},
		{"auto_apply in camel case", `{"thresholds":{"autoApply":0.9}}`, "options.thresholds.autoApply"},
		{"auto_apply a string", `{"thresholds":{"auto_apply":"0.9"}}`, "options.thresholds.auto_apply"},
		{"auto_apply above 1", `{"thresholds":{"auto_apply":1.5}}`, "options.thresholds.auto_apply"},
		{"auto_apply below 0", `{"thresholds":{"auto_apply":-0.1}}`, "options.thresholds.auto_apply"},
		{"auto_apply a boolean", `{"thresholds":{"auto_apply":true}}`, "options.thresholds.auto_apply"},
		{"suggest of four decimal places", `{"thresholds":{"suggest":0.1234}}`, "options.thresholds.suggest"},
		{"suggest a huge exponent", `{"thresholds":{"suggest":1e400}}`, "options.thresholds.suggest"},
		{"suggest above auto_apply", `{"thresholds":{"auto_apply":0.5,"suggest":0.75}}`, "options.thresholds.suggest"},
		{"metadata not an object", `{"metadata":["a"]}`, "options.metadata"},
		{"metadata a string", `{"metadata":"a=b"}`, "options.metadata"},
		{"21 metadata keys", `{"metadata":{` + strings.TrimSuffix(strings.Repeat(`"k":"v",`, 1), ",") + func() string {
			var b strings.Builder
			for i := range 20 {
				fmt.Fprintf(&b, `,"k%d":"v"`, i)
			}
			return b.String()
		}() + `}}`, "options.metadata"},
		{"an empty metadata key", `{"metadata":{"":"v"}}`, "options.metadata"},
		{"a metadata key of 41 bytes", `{"metadata":{"` + long + `":"v"}}`, "options.metadata." + long},
		{"a metadata key with a bracket", `{"metadata":{"a]b":"v"}}`, "options.metadata.a]b"},
		{"a metadata key with a space", `{"metadata":{"a b":"v"}}`, "options.metadata.a b"},
		{"a metadata key not ASCII", `{"metadata":{"café":"v"}}`, "options.metadata.café"},
		{"a metadata value of 501 bytes", `{"metadata":{"k":"` + strings.Repeat("a", 501) + `"}}`, "options.metadata.k"},
		{"a very long metadata value", `{"metadata":{"k":"` + strings.Repeat("a", 100_000) + `"}}`, "options.metadata.k"},
		{"a metadata value a number", `{"metadata":{"k":1}}`, "options.metadata.k"},
		{"a null metadata value", `{"metadata":{"k":null}}`, "options.metadata.k"},
		{"a metadata value an object", `{"metadata":{"k":{"a":"b"}}}`, "options.metadata.k"},
		{"a metadata value with a lone surrogate", `{"metadata":{"k":"a\ud800"}}`, "options.metadata.k"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !json.Valid([]byte(tc.body)) && !strings.Contains(tc.name, "UTF-8") {
				t.Fatalf("the test's body is not JSON: %s", tc.body)
			}
			got, aerr := parseOptions(json.RawMessage(tc.body))
			if aerr == nil {
				t.Fatalf("accepted as %+v; want a refusal naming %s", got, tc.param)
			}
			if aerr.Param != tc.param || aerr.Status != 400 || aerr.Message == "" {
				t.Fatalf("refused naming %q (%d): %s; want %q", aerr.Param, aerr.Status, aerr.Message, tc.param)
			}
		})
	}
}
