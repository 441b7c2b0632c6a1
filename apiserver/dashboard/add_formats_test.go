package dashboard

import (
	"testing"

	"tcs.dev/tcs/internal/domain/transcripts"
)

// TestTheAddFormOffersEveryFormatTheAPITakes fails for a format the API takes that the add
// form would list without a name staff read.
func TestTheAddFormOffersEveryFormatTheAPITakes(t *testing.T) {
	all := transcripts.FileFormats()
	if len(all) < 7 {
		t.Fatalf("the API takes %d formats: %v", len(all), all)
	}
	for _, f := range all {
		if formatLabels[f] == "" {
			t.Errorf("the format %s has no name on the add form", f)
		}
	}
}
