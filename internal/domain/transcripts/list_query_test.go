package transcripts

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

func TestParseListQueryReadsMetadataFilters(t *testing.T) {
	many := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("metadata[k%d]=v", i)
		}
		return strings.Join(parts, "&")
	}
	for _, tc := range []struct {
		name, query string
		want        map[string]string
		param       string
	}{
		{"no filter", "status=completed", nil, ""},
		{"one pair", "metadata[campus]=north", map[string]string{"campus": "north"}, ""},
		{"two pairs", "metadata[campus]=north&metadata[series.id]=s-1", map[string]string{"campus": "north", "series.id": "s-1"}, ""},
		{"an escaped bracket form", "metadata%5Bcampus%5D=north", map[string]string{"campus": "north"}, ""},
		{"an empty value", "metadata[campus]=", map[string]string{"campus": ""}, ""},
		{"a value with spaces", "metadata[campus]=north+hills", map[string]string{"campus": "north hills"}, ""},
		{"20 keys", many(20), func() map[string]string {
			m := map[string]string{}
			for i := range 20 {
				m[fmt.Sprintf("k%d", i)] = "v"
			}
			return m
		}(), ""},
		{"another parameter that starts alike", "metadatum=1", nil, ""},
		{"21 keys", many(21), nil, "metadata"},
		{"metadata without a key", "metadata=north", nil, "metadata"},
		{"an empty key", "metadata[]=north", nil, "metadata[]"},
		{"no closing bracket", "metadata[campus=north", nil, "metadata[campus"},
		{"a nested key", "metadata[a][b]=north", nil, "metadata[a][b]"},
		{"a key with a space", "metadata[a+b]=north", nil, "metadata[a b]"},
		{"a key of 41 bytes", "metadata[" + strings.Repeat("k", 41) + "]=v", nil, "metadata[" + strings.Repeat("k", 41) + "]"},
		{"a key given twice", "metadata[campus]=north&metadata[campus]=south", nil, "metadata[campus]"},
		{"a value of 501 bytes", "metadata[campus]=" + strings.Repeat("v", 501), nil, "metadata[campus]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			o, err := ParseListQuery(q)
			var pe *ParamError
			switch {
			case tc.param != "":
				if !errors.As(err, &pe) || pe.Param != tc.param || pe.Message == "" {
					t.Fatalf("ParseListQuery = %v; want a *ParamError naming %s", err, tc.param)
				}
			case err != nil:
				t.Fatalf("ParseListQuery: %v", err)
			case !maps.Equal(o.metadata, tc.want):
				t.Fatalf("metadata filter %v; want %v", o.metadata, tc.want)
			}
		})
	}
}

func TestListFilterMatchesEveryMetadataPair(t *testing.T) {
	tr := &tcsv1.Transcript{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.Now()},
		Spec:   tcsv1.TranscriptSpec{ID: "tr_1", Options: tcsv1.TranscriptOptions{Metadata: map[string]string{"campus": "north", "series": "hope", "empty": ""}}},
		Status: tcsv1.TranscriptStatus{Phase: tcsv1.PhaseCompleted}}
	bare := tr.DeepCopy()
	bare.Spec.Options.Metadata = nil
	for _, tc := range []struct {
		name   string
		filter map[string]string
		t      *tcsv1.Transcript
		want   bool
	}{
		{"no filter", nil, tr, true},
		{"no filter, no metadata", nil, bare, true},
		{"one pair", map[string]string{"campus": "north"}, tr, true},
		{"every pair", map[string]string{"campus": "north", "series": "hope"}, tr, true},
		{"an empty value", map[string]string{"empty": ""}, tr, true},
		{"an empty value of a key it lacks", map[string]string{"room": ""}, tr, false},
		{"another value", map[string]string{"campus": "south"}, tr, false},
		{"one pair of two", map[string]string{"campus": "north", "series": "faith"}, tr, false},
		{"a transcript without metadata", map[string]string{"campus": "north"}, bare, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (listFilter{metadata: tc.filter}).match(tc.t); got != tc.want {
				t.Fatalf("match = %v; want %v", got, tc.want)
			}
		})
	}
}
