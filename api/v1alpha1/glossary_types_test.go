package v1alpha1_test

import (
	"testing"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/config/crd"
	"tcs.dev/tcs/internal/text/correction"
)

// TestGlossaryBoundsAreTheEnginesAndTheCRDs checks that the bounds of a Glossary are those the
// deterministic pass compiles it with, and those its generated CRD validates.
func TestGlossaryBoundsAreTheEnginesAndTheCRDs(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ours, engine int
	}{
		{"entries", tcsv1.MaxGlossaryEntries, correction.MaxGlossaryEntries},
		{"term", tcsv1.MaxGlossaryTermLength, correction.MaxGlossaryTermBytes},
		{"form", tcsv1.MaxGlossaryTermLength, correction.MaxGlossaryFormBytes},
		{"forms", tcsv1.MaxGlossaryForms, correction.MaxGlossaryForms},
		{"category", tcsv1.MaxGlossaryCategoryLength, correction.MaxGlossaryCategoryBytes},
	} {
		if tc.ours != tc.engine {
			t.Errorf("the %s bound of a Glossary is %d, the engine's %d", tc.name, tc.ours, tc.engine)
		}
	}
	crds, err := crd.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range crds {
		if c.Spec.Names.Kind != "Glossary" {
			continue
		}
		spec := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		entries := spec.Properties["entries"]
		entry := entries.Items.Schema
		forms := entry.Properties["forms"]
		for _, tc := range []struct {
			name string
			got  *int64
			want int
		}{
			{"entries maxItems", entries.MaxItems, tcsv1.MaxGlossaryEntries},
			{"term maxLength", entry.Properties["term"].MaxLength, tcsv1.MaxGlossaryTermLength},
			{"forms maxItems", forms.MaxItems, tcsv1.MaxGlossaryForms},
			{"form maxLength", forms.Items.Schema.MaxLength, tcsv1.MaxGlossaryTermLength},
			{"updatedBy maxLength", entry.Properties["updatedBy"].MaxLength, tcsv1.MaxGlossaryActorLength},
		} {
			if tc.got == nil || *tc.got != int64(tc.want) {
				t.Errorf("the CRD's %s is %v, want %d", tc.name, tc.got, tc.want)
			}
		}
		if p := entry.Properties["category"].Pattern; p != `^[a-z][a-z0-9_]{0,31}$` {
			t.Errorf("the CRD's category pattern is %q, want one of at most %d bytes", p, tcsv1.MaxGlossaryCategoryLength)
		}
		return
	}
	t.Fatal("no Glossary CRD in config/crd/bases")
}
