package glossary

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/tooling/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// now is the time of the changes the tests' managers make.
var now = time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)

// newManager returns a manager of a new namespace that holds one organization, and its id.
func newManager(t *testing.T) (*Manager, string) {
	t.Helper()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "glossary")
	o, err := orgs.Create(t.Context(), c, ns, "Grace Chapel", nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Manager{Client: c, Namespace: ns, Clock: clocktesting.NewFakePassiveClock(now)}, o.Spec.ID
}

// addOrg adds another organization to m's namespace and returns its id.
func addOrg(t *testing.T, m *Manager) string {
	t.Helper()
	o, err := orgs.Create(t.Context(), m.Client, m.Namespace, "Bethel", nil)
	if err != nil {
		t.Fatal(err)
	}
	return o.Spec.ID
}

var okonkwo = Input{Term: "Pastor Okonkwo", Forms: []string{"pastor okonquo", "pastor oconquo"}, SoundsLike: true, Auto: true, Category: "name"}

func TestEveryMethodRefusesAnEmptyOrganizationBeforeReadingAnything(t *testing.T) {
	// No client: a method that read anything would panic.
	m := &Manager{Namespace: "tcs-system"}
	c := NewCompiler(nil, "tcs-system", 0)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Get", func() error { _, err := m.Get(ctx, ""); return err }},
		{"Entry", func() error { _, _, err := m.Entry(ctx, "", "gle_a"); return err }},
		{"List", func() error { _, err := m.List(ctx, "", ListOptions{}); return err }},
		{"Add", func() error { _, _, err := m.Add(ctx, "", "a@x", okonkwo, ""); return err }},
		{"Update", func() error { _, _, err := m.Update(ctx, "", "a@x", "gle_a", okonkwo, ""); return err }},
		{"Delete", func() error { _, err := m.Delete(ctx, "", "gle_a", ""); return err }},
		{"Replace", func() error { _, err := m.Replace(ctx, "", "a@x", []Input{okonkwo}, ""); return err }},
		{"Import", func() error { _, err := m.Import(ctx, "", "a@x", strings.NewReader(CSVHeader+"\n"), ""); return err }},
		{"Export", func() error { return m.Export(ctx, "", &strings.Builder{}) }},
		{"Compiled", func() error { _, err := c.Compiled(ctx, ""); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, ErrNoOrganization) {
				t.Fatalf("%s with no organization = %v, want ErrNoOrganization", tc.name, err)
			}
		})
	}
}

func TestEveryMethodRefusesAMalformedOrganizationBeforeReadingAnything(t *testing.T) {
	// No client: a method that read anything would panic. "org-x" would name org_x's object.
	m := &Manager{Namespace: "tcs-system"}
	c := NewCompiler(nil, "tcs-system", 0)
	ctx := context.Background()
	for _, org := range []string{"org-x", "ORG_X", "key_x", "org_"} {
		for name, call := range map[string]func() error{
			"Get":      func() error { _, err := m.Get(ctx, org); return err },
			"Add":      func() error { _, _, err := m.Add(ctx, org, "a@x", okonkwo, ""); return err },
			"Delete":   func() error { _, err := m.Delete(ctx, org, "gle_a", ""); return err },
			"Compiled": func() error { _, err := c.Compiled(ctx, org); return err },
		} {
			if err := call(); !errors.Is(err, ErrNoOrganization) || !strings.Contains(err.Error(), "not an organization id") {
				t.Errorf("%s(%q) = %v, want it refused as not an organization id", name, org, err)
			}
		}
	}
}

func TestAnOrganizationWithoutAGlossaryHasAnEmptyOne(t *testing.T) {
	m, org := newManager(t)
	g, err := m.Get(t.Context(), org)
	if err != nil || g.Organization != org || len(g.Entries) != 0 || g.Version != "" {
		t.Fatalf("Get = %+v, %v; want an empty glossary of version \"\"", g, err)
	}
	p, err := m.List(t.Context(), org, ListOptions{})
	if err != nil || len(p.Entries) != 0 || p.HasMore {
		t.Fatalf("List = %+v, %v", p, err)
	}
}

func TestEntriesAreAddedReadUpdatedAndDeleted(t *testing.T) {
	m, org := newManager(t)
	ctx := t.Context()
	e, v1, err := m.Add(ctx, org, "ruth@grace.example", Input{Term: " Pastor Okonkwo ", Forms: []string{" pastor okonquo", "pastor oconquo "}, SoundsLike: true, Auto: true, Category: "name"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !ids.Valid(IDPrefix, e.ID) || e.Term != "Pastor Okonkwo" || !slices.Equal(e.Forms, okonkwo.Forms) || !e.SoundsLike || !e.Auto ||
		e.Category != "name" || e.UpdatedBy != "ruth@grace.example" || e.UpdatedAt == nil || !e.UpdatedAt.Time.Equal(now) || v1 == "" {
		t.Fatalf("Add = %+v, version %q; want the entry with spaces trimmed, its id, who and when", e, v1)
	}
	obj := &tcsv1.Glossary{}
	if err := m.Client.Get(ctx, types.NamespacedName{Namespace: m.Namespace, Name: ObjectName(org)}, obj); err != nil {
		t.Fatal(err)
	}
	if obj.Labels[tcsv1.LabelOrganization] != org || obj.Spec.Organization != org || obj.Status.Entries != 1 ||
		len(obj.OwnerReferences) != 1 || obj.OwnerReferences[0].Kind != "Organization" || obj.OwnerReferences[0].Name != orgs.ObjectName(org) {
		t.Fatalf("the Glossary object is %+v", obj)
	}

	bethel, v2, err := m.Add(ctx, org, "ruth@grace.example", Input{Term: "Bethel Tabernacle", Forms: []string{"beth el tabernacle"}}, v1)
	if err != nil || v2 == v1 {
		t.Fatalf("Add with the current version = %+v, %q, %v", bethel, v2, err)
	}
	got, v, err := m.Entry(ctx, org, e.ID)
	if err != nil || got.Term != "Pastor Okonkwo" || v != v2 {
		t.Fatalf("Entry = %+v, %q, %v", got, v, err)
	}

	m.Clock = clocktesting.NewFakePassiveClock(now.Add(time.Hour))
	up, v3, err := m.Update(ctx, org, "sam@grace.example", e.ID, Input{Term: "Pastor Okonkwo", Forms: []string{"pastor okonquo"}, Category: "name"}, v2)
	if err != nil || up.ID != e.ID || len(up.Forms) != 1 || up.Auto || up.UpdatedBy != "sam@grace.example" || !up.UpdatedAt.Time.Equal(now.Add(time.Hour)) || v3 == v2 {
		t.Fatalf("Update = %+v, %q, %v", up, v3, err)
	}
	g, err := m.Get(ctx, org)
	if err != nil || len(g.Entries) != 2 || g.Entries[0].ID != e.ID || g.Entries[1].ID != bethel.ID || g.Version != v3 {
		t.Fatalf("Get = %+v, %v; want both entries in the order they were added", g, err)
	}
	// Nothing changed: who and when stay.
	same, _, err := m.Update(ctx, org, "someone@else.example", bethel.ID, InputOf(*bethel), "")
	if err != nil || same.UpdatedBy != "ruth@grace.example" || !same.UpdatedAt.Time.Equal(now) {
		t.Fatalf("Update without a change = %+v, %v; want who and when kept", same, err)
	}

	v4, err := m.Delete(ctx, org, e.ID, "")
	if err != nil || v4 == "" {
		t.Fatalf("Delete = %q, %v", v4, err)
	}
	if _, _, err := m.Entry(ctx, org, e.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Entry of a deleted entry = %v, want ErrNotFound", err)
	}
	if _, err := m.Delete(ctx, org, e.ID, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete of a deleted entry = %v, want ErrNotFound", err)
	}
	if _, _, err := m.Update(ctx, org, "a@x", e.ID, okonkwo, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Update of a deleted entry = %v, want ErrNotFound", err)
	}
}

func TestAGlossaryIsOnlyItsOrganizations(t *testing.T) {
	m, org := newManager(t)
	other := addOrg(t, m)
	ctx := t.Context()
	e, _, err := m.Add(ctx, org, "a@x", okonkwo, "")
	if err != nil {
		t.Fatal(err)
	}
	if g, err := m.Get(ctx, other); err != nil || len(g.Entries) != 0 {
		t.Fatalf("Get of another organization = %+v, %v; want it empty", g, err)
	}
	if _, _, err := m.Entry(ctx, other, e.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Entry through another organization = %v, want ErrNotFound", err)
	}
	if _, _, err := m.Update(ctx, other, "a@x", e.ID, okonkwo, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Update through another organization = %v, want ErrNotFound", err)
	}
	if _, err := m.Delete(ctx, other, e.ID, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete through another organization = %v, want ErrNotFound", err)
	}
	// The same term is no clash in another organization's glossary.
	if _, _, err := m.Add(ctx, other, "a@x", okonkwo, ""); err != nil {
		t.Fatalf("Add of the same term to another organization: %v", err)
	}
	if g, err := m.Get(ctx, org); err != nil || len(g.Entries) != 1 {
		t.Fatalf("Get = %+v, %v; want its one entry", g, err)
	}
	if _, _, err := m.Add(ctx, "org_nosuch", "a@x", okonkwo, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Add to an organization that does not exist = %v, want ErrNotFound", err)
	}
}

func TestListPagesThroughTheEntriesInTheirOrder(t *testing.T) {
	m, org := newManager(t)
	var ins []Input
	for i := range 5 {
		ins = append(ins, Input{Term: fmt.Sprintf("Zorbanath %c", 'a'+i)})
	}
	g, err := m.Replace(t.Context(), org, "a@x", ins, "")
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	after := ""
	for pages := 0; ; pages++ {
		p, err := m.List(t.Context(), org, ListOptions{After: after, Limit: 2})
		if err != nil || p.Version != g.Version || pages > 3 {
			t.Fatalf("List after %q = %+v, %v", after, p, err)
		}
		for _, e := range p.Entries {
			seen = append(seen, e.Term)
		}
		if !p.HasMore {
			break
		}
		after = p.Entries[len(p.Entries)-1].ID
	}
	want := []string{"Zorbanath a", "Zorbanath b", "Zorbanath c", "Zorbanath d", "Zorbanath e"}
	if !slices.Equal(seen, want) {
		t.Fatalf("pages held %v, want %v", seen, want)
	}
	for _, opts := range []ListOptions{{Limit: -1}, {Limit: MaxPageSize + 1}, {After: "gle_nosuch"}} {
		var fe *FieldError
		if _, err := m.List(t.Context(), org, opts); !errors.As(err, &fe) {
			t.Errorf("List(%+v) = %v, want a FieldError", opts, err)
		}
	}
}

func TestWritesAreRefusedAsTheEngineRefusesThem(t *testing.T) {
	m, org := newManager(t)
	ctx := t.Context()
	first, _, err := m.Add(ctx, org, "a@x", okonkwo, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		in    Input
		field string
		msg   string
	}{
		{"an empty term", Input{Term: "  "}, "term", "1 to 100 bytes"},
		{"a term too long", Input{Term: strings.Repeat("a", 101)}, "term", "1 to 100 bytes"},
		{"a term without a letter", Input{Term: "..."}, "term", "letter or a digit"},
		{"too many forms", Input{Term: "Zorbanath", Forms: strings.Split(strings.Repeat("x|", 21)[:41], "|")}, "forms", "at most 20 forms"},
		{"an empty form", Input{Term: "Zorbanath", Forms: []string{""}}, "forms[0]", "1 to 100 bytes"},
		{"a form with the CSV separator", Input{Term: "Zorbanath", Forms: []string{"zor|banath"}}, "forms[0]", "must not hold |"},
		{"a category of the engine", Input{Term: "Zorbanath", Category: "bible"}, "category", "category of the engine"},
		{"a malformed category", Input{Term: "Zorbanath", Category: "Names"}, "category", "must match"},
		{"the words of another entry's term", Input{Term: "pastor okonkwo"}, "term", "the term of entry " + first.ID},
		{"a form of another entry", Input{Term: "Zorbanath", Forms: []string{"Pastor Oconquo"}}, "forms[0]", "the forms[1] of entry " + first.ID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := m.Add(ctx, org, "a@x", tc.in, "")
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Message, tc.msg) {
				t.Fatalf("Add(%+v) = %v, want a FieldError of %s mentioning %q", tc.in, err, tc.field, tc.msg)
			}
			if strings.Contains(tc.name, "another entry") {
				return // the entry's own words
			}
			if _, _, err := m.Update(ctx, org, "a@x", first.ID, tc.in, ""); !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("Update(%+v) = %v, want a FieldError of %s", tc.in, err, tc.field)
			}
		})
	}
	if g, err := m.Get(ctx, org); err != nil || len(g.Entries) != 1 || g.Entries[0].Term != okonkwo.Term {
		t.Fatalf("after refused writes the glossary is %+v, %v", g, err)
	}
}

func TestAGlossaryIsBoundedInEntriesAndSize(t *testing.T) {
	var entries []tcsv1.GlossaryEntry
	for i := range tcsv1.MaxGlossaryEntries {
		e := tcsv1.GlossaryEntry{ID: fmt.Sprintf("gle_%d", i), Term: fmt.Sprintf("Zorbanath%d", i)}
		for k := range 20 {
			e.Forms = append(e.Forms, fmt.Sprintf("zq%dx%d %s", i, k, strings.Repeat("w", 20)))
		}
		entries = append(entries, e)
	}
	err := Validate(entries)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "entries" || !strings.Contains(fe.Message, "at most 524288") {
		t.Fatalf("Validate of %d entries of 20 forms = %v, want the size bound", len(entries), err)
	}
	if err := Validate(entries[:100]); err != nil {
		t.Fatalf("Validate of 100 such entries: %v", err)
	}
	more := append(entries, tcsv1.GlossaryEntry{ID: "gle_x", Term: "Zorbanath"})
	if err := Validate(more); !errors.As(err, &fe) || fe.Field != "entries" || !strings.Contains(fe.Message, "at most 1000 entries") {
		t.Fatalf("Validate of 1,001 entries = %v", err)
	}
	m, org := newManager(t)
	ins := make([]Input, tcsv1.MaxGlossaryEntries+1)
	if _, err := m.Replace(t.Context(), org, "a@x", ins, ""); !errors.As(err, &fe) || fe.Field != "entries" {
		t.Fatalf("Replace with 1,001 entries = %v, want a FieldError of entries", err)
	}
}

func TestAWriteAtAnOldVersionIsAConflict(t *testing.T) {
	m, org := newManager(t)
	ctx := t.Context()
	e, v1, err := m.Add(ctx, org, "a@x", okonkwo, "")
	if err != nil {
		t.Fatal(err)
	}
	_, v2, err := m.Add(ctx, org, "b@x", Input{Term: "Bethel Tabernacle"}, v1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Add", func() error { _, _, err := m.Add(ctx, org, "a@x", Input{Term: "Zorbanath"}, v1); return err }},
		{"Update", func() error { _, _, err := m.Update(ctx, org, "a@x", e.ID, Input{Term: "Zorbanath"}, v1); return err }},
		{"Delete", func() error { _, err := m.Delete(ctx, org, e.ID, v1); return err }},
		{"Replace", func() error { _, err := m.Replace(ctx, org, "a@x", nil, v1); return err }},
		{"Import", func() error { _, err := m.Import(ctx, org, "a@x", strings.NewReader(CSVHeader+"\n"), v1); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var ce *ConflictError
			if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) || ce.Version != v1 || ce.Current != v2 {
				t.Fatalf("%s at version %s = %v, want a ConflictError naming %s and %s", tc.name, v1, err, v1, v2)
			}
		})
	}
	other := addOrg(t, m)
	if _, _, err := m.Add(ctx, other, "a@x", okonkwo, "1"); !errors.Is(err, ErrConflict) {
		t.Fatalf("Add to a glossary not yet made, at a version = %v, want ErrConflict", err)
	}
	if g, err := m.Get(ctx, org); err != nil || len(g.Entries) != 2 || g.Version != v2 {
		t.Fatalf("after the conflicts the glossary is %+v, %v", g, err)
	}
}

func TestConcurrentWritersWithoutAVersionAllLand(t *testing.T) {
	m, org := newManager(t)
	const writers = 4
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			_, _, errs[i] = m.Add(t.Context(), org, "a@x", Input{Term: fmt.Sprintf("Zorbanath %c", 'a'+i)}, "")
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	g, err := m.Get(t.Context(), org)
	if err != nil || len(g.Entries) != writers {
		t.Fatalf("after %d concurrent Adds the glossary is %+v, %v", writers, g, err)
	}
}

func TestReplaceKeepsTheIdsOfTheTermsItKeeps(t *testing.T) {
	m, org := newManager(t)
	ctx := t.Context()
	g1, err := m.Replace(ctx, org, "a@x", []Input{okonkwo, {Term: "Bethel Tabernacle"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	m.Clock = clocktesting.NewFakePassiveClock(now.Add(time.Hour))
	g2, err := m.Replace(ctx, org, "b@x", []Input{{Term: "Bethel Tabernacle", Category: "church"}, {Term: "Zorbanath"}, okonkwo}, g1.Version)
	if err != nil {
		t.Fatal(err)
	}
	byTerm := func(g *Glossary, term string) tcsv1.GlossaryEntry {
		i := slices.IndexFunc(g.Entries, func(e tcsv1.GlossaryEntry) bool { return e.Term == term })
		if i < 0 {
			t.Fatalf("no %q in %+v", term, g.Entries)
		}
		return g.Entries[i]
	}
	if a, b := byTerm(g1, okonkwo.Term), byTerm(g2, okonkwo.Term); a.ID != b.ID || b.UpdatedBy != "a@x" || !b.UpdatedAt.Equal(a.UpdatedAt) {
		t.Errorf("an entry kept as it was: %+v, then %+v; want its id, who and when kept", a, b)
	}
	if a, b := byTerm(g1, "Bethel Tabernacle"), byTerm(g2, "Bethel Tabernacle"); a.ID != b.ID || b.UpdatedBy != "b@x" || b.Category != "church" {
		t.Errorf("an entry changed: %+v, then %+v; want its id kept, who and when new", a, b)
	}
	if g2.Entries[1].Term != "Zorbanath" || !ids.Valid(IDPrefix, g2.Entries[1].ID) || len(g2.Entries) != 3 {
		t.Errorf("the entries are %+v, want those given in their order", g2.Entries)
	}
	g3, err := m.Replace(ctx, org, "b@x", nil, "")
	if err != nil || len(g3.Entries) != 0 {
		t.Fatalf("Replace with none = %+v, %v", g3, err)
	}
}

func TestImportReadsWhatExportWrote(t *testing.T) {
	m, org := newManager(t)
	ctx := t.Context()
	ins := []Input{
		okonkwo,
		{Term: "'Tis So Sweet", Forms: []string{"tis so sweet"}, Category: "hymn"},
		{Term: "=Zorbanath", Forms: []string{"+zorba", "zor, \"banath\"\nnath"}, Auto: true},
		{Term: "@Grace Kids", Forms: []string{"-grace kidz"}},
		{Term: "Ngozi Ọkafọ", Forms: []string{"ngozi okafo"}, SoundsLike: true, Category: "name"},
	}
	g, err := m.Replace(ctx, org, "a@x", ins, "")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := m.Export(ctx, org, &out); err != nil {
		t.Fatal(err)
	}
	exported := out.String()
	for _, want := range []string{CSVHeader + "\n", "'=Zorbanath,", "'+zorba|", "'@Grace Kids,'-grace kidz,", "'Tis So Sweet,tis so sweet,false,false,hymn\n"} {
		if !strings.Contains(exported, want) {
			t.Errorf("the export lacks %q:\n%s", want, exported)
		}
	}
	other := addOrg(t, m)
	g2, err := m.Import(ctx, other, "b@x", strings.NewReader(exported), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(g2.Entries) != len(g.Entries) {
		t.Fatalf("imported %d entries, exported %d", len(g2.Entries), len(g.Entries))
	}
	for i := range g.Entries {
		if a, b := InputOf(g.Entries[i]), InputOf(g2.Entries[i]); !a.same(g2.Entries[i]) {
			t.Errorf("entry %d exported as %+v, imported as %+v", i, a, b)
		}
	}
	// Importing the export again changes nothing, not even who and when.
	g3, err := m.Import(ctx, org, "c@x", strings.NewReader(exported), g.Version)
	if err != nil {
		t.Fatal(err)
	}
	for i := range g.Entries {
		if a, b := g.Entries[i], g3.Entries[i]; a.ID != b.ID || b.UpdatedBy != "a@x" {
			t.Errorf("entry %d was %+v, is %+v after importing its export", i, a, b)
		}
	}
}

func TestImportNamesTheLineAndColumnOfAnEntryTheEngineRefuses(t *testing.T) {
	m, org := newManager(t)
	for _, tc := range []struct {
		name string
		csv  string
		want CSVError
	}{
		{"a term given twice", CSVHeader + "\nPastor Okonkwo,,,,\nBethel,,,,\npastor okonkwo,,,,\n",
			CSVError{Line: 4, Column: 1, Name: "term", Message: "the same words as the term on line 2"}},
		{"a bad form after a cell of two lines", CSVHeader + "\nBethel,\"beth el\ntabernacle\",true,,\nZorbanath,zorba|,,,\n",
			CSVError{Line: 4, Column: 2, Name: "forms", Message: "form 2: must be 1 to 100 bytes long, got 0"}},
		{"a category of the engine", CSVHeader + "\nZorbanath,,,,place\n",
			CSVError{Line: 2, Column: 5, Name: "category", Message: `"place" is a category of the engine`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.Import(t.Context(), org, "a@x", strings.NewReader(tc.csv), "")
			var ce *CSVError
			if !errors.As(err, &ce) || ce.Line != tc.want.Line || ce.Column != tc.want.Column || ce.Name != tc.want.Name || ce.Message != tc.want.Message {
				t.Fatalf("Import = %v, want %v", err, &tc.want)
			}
		})
	}
	if g, err := m.Get(t.Context(), org); err != nil || len(g.Entries) != 0 {
		t.Fatalf("after refused imports the glossary is %+v, %v", g, err)
	}
}

func TestACompiledGlossaryIsCompiledOncePerVersion(t *testing.T) {
	m, org := newManager(t)
	ctx := t.Context()
	c := NewCompiler(m.Client, m.Namespace, 2)
	if g, err := c.Compiled(ctx, org); g != nil || err != nil {
		t.Fatalf("Compiled without a glossary = %v, %v; want nil", g, err)
	}
	if _, _, err := m.Add(ctx, org, "a@x", okonkwo, ""); err != nil {
		t.Fatal(err)
	}
	g1, err := c.Compiled(ctx, org)
	if err != nil || g1 == nil || g1.Len() != 1 {
		t.Fatalf("Compiled = %v, %v; want one entry", g1, err)
	}
	if again, err := c.Compiled(ctx, org); again != g1 || err != nil {
		t.Fatalf("Compiled of the same version = %p, %v; want the one compiled before (%p)", again, err, g1)
	}
	if _, _, err := m.Add(ctx, org, "a@x", Input{Term: "Bethel Tabernacle"}, ""); err != nil {
		t.Fatal(err)
	}
	g2, err := c.Compiled(ctx, org)
	if err != nil || g2 == g1 || g2.Len() != 2 {
		t.Fatalf("Compiled after a change = %v, %v; want the new version", g2, err)
	}
	// The cache is bounded: a third organization drops the least recently used.
	for range 2 {
		o := addOrg(t, m)
		if _, _, err := m.Add(ctx, o, "a@x", okonkwo, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compiled(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() != 2 {
		t.Fatalf("the compiler keeps %d glossaries, want at most 2", c.Len())
	}
	if again, err := c.Compiled(ctx, org); err != nil || again == g2 || again.Len() != 2 {
		t.Fatalf("Compiled of a dropped glossary = %p, %v; want it compiled again", again, err)
	}
	// An organization's empty glossary is none.
	if _, err := m.Replace(ctx, org, "a@x", nil, ""); err != nil {
		t.Fatal(err)
	}
	if g, err := c.Compiled(ctx, org); g != nil || err != nil {
		t.Fatalf("Compiled of an empty glossary = %v, %v; want nil", g, err)
	}
}

func TestAStoredGlossaryTheEngineRefusesIsInvalid(t *testing.T) {
	m, org := newManager(t)
	// Written around the service, as kubectl would: two entries of the same words.
	g := &tcsv1.Glossary{
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName(org), Namespace: m.Namespace},
		Spec: tcsv1.GlossarySpec{Organization: org, Entries: []tcsv1.GlossaryEntry{
			{ID: "gle_a", Term: "Zorbanath"}, {ID: "gle_b", Term: "zorbanath"},
		}},
	}
	if err := m.Client.Create(t.Context(), g); err != nil {
		t.Fatal(err)
	}
	_, err := NewCompiler(m.Client, m.Namespace, 0).Compiled(t.Context(), org)
	var ie *InvalidError
	if !errors.As(err, &ie) || ie.Organization != org || !strings.Contains(err.Error(), "entries[1].term") {
		t.Fatalf("Compiled = %v, want an InvalidError naming entries[1].term", err)
	}
}

func TestTheResourceRefusesWhatItsMarkersBound(t *testing.T) {
	m, org := newManager(t)
	for _, tc := range []struct {
		name  string
		entry tcsv1.GlossaryEntry
		want  string
	}{
		{"an id of another kind", tcsv1.GlossaryEntry{ID: "we_a", Term: "Zorbanath"}, "spec.entries[0].id"},
		{"an empty term", tcsv1.GlossaryEntry{ID: "gle_a"}, "spec.entries[0].term"},
		{"a term too long", tcsv1.GlossaryEntry{ID: "gle_a", Term: strings.Repeat("a", 101)}, "spec.entries[0].term"},
		{"too many forms", tcsv1.GlossaryEntry{ID: "gle_a", Term: "Zorbanath", Forms: make([]string, 21)}, "spec.entries[0].forms"},
		{"a malformed category", tcsv1.GlossaryEntry{ID: "gle_a", Term: "Zorbanath", Category: "Names"}, "spec.entries[0].category"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &tcsv1.Glossary{
				ObjectMeta: metav1.ObjectMeta{Name: ObjectName(org), Namespace: m.Namespace},
				Spec:       tcsv1.GlossarySpec{Organization: org, Entries: []tcsv1.GlossaryEntry{tc.entry}},
			}
			if err := m.Client.Create(t.Context(), g); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Create = %v, want an error naming %s", err, tc.want)
			}
		})
	}
}
