package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/kube/scheme"
)

func TestAdminGlossaryAddsListsRemovesImportsAndExports(t *testing.T) {
	a := newAdminCLI(t)
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	o, err := orgs.Create(t.Context(), c, a.namespace, "Grace Chapel", nil)
	if err != nil {
		t.Fatal(err)
	}
	org := o.Spec.ID

	id := strings.TrimSpace(a.mustRun(t, "glossary", "add", "--org", org, "--term", "Pastor Okonkwo",
		"--form", "pastor okonquo", "--form", "pastor oconquo", "--sounds-like", "--auto", "--category", "name"))
	if !ids.Valid(glossary.IDPrefix, id) {
		t.Fatalf("glossary add printed %q, want an entry id", id)
	}
	list := a.mustRun(t, "glossary", "list", "--org", org)
	if !strings.Contains(list, id) || !strings.Contains(list, "pastor okonquo|pastor oconquo") || !strings.Contains(list, "tcs admin") {
		t.Fatalf("glossary list printed\n%s", list)
	}
	a.mustFail(t, "--category: ", "glossary", "add", "--org", org, "--term", "Bethel", "--category", "bible")
	a.mustFail(t, "--form: ", "glossary", "add", "--org", org, "--term", "Bethel", "--form", "pastor okonquo")
	a.mustFail(t, "not an organization id", "glossary", "list", "--org", "grace")

	want := glossary.CSVHeader + "\nPastor Okonkwo,pastor okonquo|pastor oconquo,true,true,name\n"
	if got := a.mustRun(t, "glossary", "export", "--org", org); got != want {
		t.Fatalf("glossary export printed %q, want %q", got, want)
	}

	file := filepath.Join(t.TempDir(), "glossary.csv")
	csv := want + "=Bethel Tabernacle,beth el tabernacle,false,true,church\n"
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := a.mustRun(t, "glossary", "import", "--org", org, file); !strings.Contains(out, "imported 2 entries") {
		t.Fatalf("glossary import printed %q", out)
	}
	exported := a.mustRun(t, "glossary", "export", "--org", org)
	if exported != glossary.CSVHeader+"\nPastor Okonkwo,pastor okonquo|pastor oconquo,true,true,name\n'=Bethel Tabernacle,beth el tabernacle,false,true,church\n" {
		t.Fatalf("glossary export after the import printed %q, want the formula escaped", exported)
	}
	if list := a.mustRun(t, "glossary", "list", "--org", org); !strings.Contains(list, id) {
		t.Fatalf("the imported entry of the same term lost its id %s:\n%s", id, list)
	}

	if err := os.WriteFile(file, []byte(glossary.CSVHeader+"\nBethel,,maybe,,\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a.mustFail(t, "line 2, column 3 (sounds_like)", "glossary", "import", "--org", org, file)

	a.mustRun(t, "glossary", "remove", "--org", org, id)
	if got := a.mustRun(t, "glossary", "export", "--org", org); strings.Contains(got, "Okonkwo") {
		t.Fatalf("after remove, export printed %q", got)
	}
	a.mustFail(t, "not found", "glossary", "remove", "--org", org, id)
}
