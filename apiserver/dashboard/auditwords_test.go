package dashboard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// parseDir returns the files of the package in dir, without its tests.
func parseDir(t *testing.T, dir string) (*token.FileSet, []*ast.File) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

// TestEveryAuditActionHasWords reads the constants of package audit from its source, so that
// an action added there without words in auditWords fails here, and a sentence for an action
// that is not a constant (a typo) fails too.
func TestEveryAuditActionHasWords(t *testing.T) {
	_, files := parseDir(t, filepath.Join(testenv.Root(), "internal", "domain", "audit"))
	words := auditWords()
	constants := map[audit.Action]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			if id, ok := spec.Type.(*ast.Ident); !ok || id.Name != "Action" {
				return true
			}
			for i, name := range spec.Names {
				lit, ok := spec.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("action %s is not a string literal", name.Name)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil || v != name.Name {
					t.Errorf("action %s is %s: an action's value is its name", name.Name, lit.Value)
				}
				constants[audit.Action(v)] = true
				s, ok := words[audit.Action(v)]
				switch {
				case !ok:
					t.Errorf("action %s has no words in auditWords: staff would read a general sentence", v)
				case s.Named == "" || s.Plain == "" || !strings.Contains(s.Named+s.Plain, "{who}") && !strings.Contains(s.Named, "{1}"):
					t.Errorf("the words of %s, %+v, do not say who did it or to what", v, s)
				case placeholders(s.Plain) > 0:
					t.Errorf("the plain words of %s name things: %q", v, s.Plain)
				}
			}
			return true
		})
	}
	if len(constants) < 25 {
		t.Fatalf("found %d actions in package audit: the test does not read its constants", len(constants))
	}
	for a := range words {
		if !constants[a] {
			t.Errorf("auditWords has %s, which is no action of package audit", a)
		}
	}
}

// TestAuditIsRecordedWithActionConstants fails for a call that records an audit entry with an
// action written out as a string, which TestEveryAuditActionHasWords would not see.
func TestAuditIsRecordedWithActionConstants(t *testing.T) {
	// The functions that record an entry and the index of their action argument.
	recorders := map[string]int{"auditf": 3, "auditBefore": 3, "auditEntry": 2, "auditAll": 2, "glossaryWritten": 3, "auditGlossary": 3}
	calls := 0
	for _, dir := range []string{".", ".."} {
		fset, files := parseDir(t, dir)
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				i, ok := recorders[sel.Sel.Name]
				if !ok || len(call.Args) <= i {
					return true
				}
				calls++
				if lit, ok := call.Args[i].(*ast.BasicLit); ok {
					t.Errorf("%s: %s records action %s written out: use a constant of package audit", fset.Position(call.Pos()), sel.Sel.Name, lit.Value)
				}
				return true
			})
		}
	}
	if calls < 25 {
		t.Fatalf("found %d calls recording audit entries: the test does not read them", calls)
	}
}

// TestAuditEntriesAreSaidInStaffWords shows the sentences of the audit page.
func TestAuditEntriesAreSaidInStaffWords(t *testing.T) {
	for _, c := range []struct {
		name  string
		entry results.AuditEntry
		want  string
	}{
		{"a key is named by its label", results.AuditEntry{Actor: "ana@example.org", Action: "APIKeyCreated", Message: `ana@example.org created API key key_1 ("Website")`},
			"ana@example.org created the API key “Website”."},
		{"an entry recorded before names is said without them", results.AuditEntry{Actor: "ana@example.org", Action: "APIKeyRevoked", Message: "ana@example.org revoked API key key_1"},
			"ana@example.org revoked an API key."},
		{"an empty name is not said", results.AuditEntry{Actor: "ana@example.org", Action: "APIKeyRevoked", Message: `ana@example.org revoked API key key_1 ("")`},
			"ana@example.org revoked an API key."},
		{"two names in order", results.AuditEntry{Actor: "ana@example.org", Action: "MemberRoleChanged", Message: `ana@example.org made "bo@example.org" "admin"`},
			"ana@example.org made bo@example.org admin."},
		{"a quote inside a name", results.AuditEntry{Actor: "ana@example.org", Action: "TranscriptAdded", Message: `ana@example.org added transcript tr_1 (paste, "The \"Good\" Shepherd")`},
			"ana@example.org added the transcript “The \"Good\" Shepherd”."},
		{"a program's write through the API", results.AuditEntry{Actor: "key_abc", Action: "GlossaryEntryAdded", Message: `API key key_abc added "Capernaum" to the glossary`},
			"A program using an API key added “Capernaum” to the glossary."},
		{"someone asked for a reset", results.AuditEntry{Actor: "bo@example.org", Action: "PasswordResetRequested", Message: "a password reset link was sent to bo@example.org"},
			"A link to set a new password was sent to bo@example.org."},
		{"an action the table does not know is not named", results.AuditEntry{Actor: "ana@example.org", Action: "SomethingNew", Message: "ana did it"},
			"ana@example.org did something the dashboard has no words for."},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := auditSays(&c.entry); got != c.want {
				t.Errorf("auditSays = %q, want %q", got, c.want)
			}
		})
	}
}
