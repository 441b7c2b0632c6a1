package ids

import (
	"strings"
	"testing"
)

func FuzzValid(f *testing.F) {
	for _, s := range []string{"tr_abc123", "tr_", "tr", "job_x", "tr_ABC", "tr_a-b", "tr_" + strings.Repeat("a", 59), "tr_" + strings.Repeat("a", 60), "org_é"} {
		f.Add("tr", s)
	}
	f.Fuzz(func(t *testing.T, prefix, id string) {
		if !Valid(prefix, id) {
			return
		}
		rest, ok := strings.CutPrefix(id, prefix+"_")
		if !ok || rest == "" || len(rest) > 63-len(prefix)-1 || strings.Trim(rest, alphabet) != "" {
			t.Fatalf("Valid(%q, %q) = true", prefix, id)
		}
	})
}
