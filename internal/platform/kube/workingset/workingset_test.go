package workingset

import (
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

func TestSelector(t *testing.T) {
	sel, err := Selector()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		labels labels.Set
		want   bool
	}{
		{"no labels", nil, true},
		{"other labels", labels.Set{tcsv1.LabelOrganization: "org_a"}, true},
		{"marked", labels.Set{tcsv1.LabelOrganization: "org_a", tcsv1.LabelArchived: "true"}, false},
		{"marked with any value", labels.Set{tcsv1.LabelArchived: ""}, false},
	} {
		if got := sel.Matches(tc.labels); got != tc.want {
			t.Errorf("%s: matches %v, want %v", tc.name, got, tc.want)
		}
	}
}
