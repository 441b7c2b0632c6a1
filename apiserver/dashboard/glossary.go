package dashboard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/text/correction"
)

// glossaryImportPath is the path, below an organization, of the form that imports a CSV file.
const glossaryImportPath = "/glossary/import"

// maxGlossaryImportBody bounds the body of the import form: the largest CSV file the glossary
// service reads and the form's other fields.
const maxGlossaryImportBody = glossary.MaxCSVBytes + maxForm

// glossaryData is the glossary page's.
type glossaryData struct {
	Entries []tcsv1.GlossaryEntry
	// Version is the version of the glossary the page shows, which its forms send back so that
	// a change made by someone else in between is refused rather than overwritten.
	Version string
	// Edit is the entry being edited; Delete the entry whose deletion is to be confirmed.
	Edit, Delete *tcsv1.GlossaryEntry
	// Categories are the categories the glossary uses, offered when adding an entry.
	Categories []string
}

// glossaries returns the glossary service the API and `tcs admin glossary` use too.
func (d *Dashboard) glossaries() *glossary.Manager {
	return &glossary.Manager{Client: d.o.Client, Reader: d.o.Reader, Namespace: d.o.Namespace, Clock: d.o.Clock}
}

func (d *Dashboard) glossaryPage(w http.ResponseWriter, r *http.Request, v *view, status int, data *glossaryData) {
	g, err := d.glossaries().Get(r.Context(), v.Org.OrganizationID)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data.Entries, data.Version = g.Entries, g.Version
	q := r.URL.Query()
	for i := range g.Entries {
		e := &g.Entries[i]
		if r.Method == http.MethodGet && v.Can("admin") {
			if q.Get("edit") == e.ID {
				data.Edit = e
			}
			if q.Get("delete") == e.ID {
				data.Delete = e
			}
		}
		c := e.Category
		if c == "" {
			c = correction.CategoryGlossary
		}
		if !slices.Contains(data.Categories, c) {
			data.Categories = append(data.Categories, c)
		}
	}
	for _, c := range []string{"name", "church", "ministry", "hymn", "local"} {
		if !slices.Contains(data.Categories, c) {
			data.Categories = append(data.Categories, c)
		}
	}
	v.Title, v.Data = "Glossary", data
	d.render(w, r, status, "glossary", v)
}

func (d *Dashboard) glossaryList(w http.ResponseWriter, r *http.Request, v *view) {
	d.glossaryPage(w, r, v, http.StatusOK, &glossaryData{})
}

// glossaryInput reads an entry from the glossary's form: the wrong forms one a line.
func glossaryInput(r *http.Request) glossary.Input {
	in := glossary.Input{
		Term:       r.PostFormValue("term"),
		SoundsLike: r.PostFormValue("sounds_like") == "on",
		Auto:       r.PostFormValue("apply") == "auto",
		Category:   strings.TrimSpace(r.PostFormValue("category")),
	}
	for _, f := range strings.Split(strings.ReplaceAll(r.PostFormValue("forms"), "\r\n", "\n"), "\n") {
		if f = strings.TrimSpace(f); f != "" {
			in.Forms = append(in.Forms, f)
		}
	}
	if in.Category == correction.CategoryGlossary {
		in.Category = ""
	}
	return in
}

// glossaryRefused shows the page again with the form's values and what is wrong with them, or
// answers as for any error; it reports whether err was one the member can fix.
func (d *Dashboard) glossaryRefused(w http.ResponseWriter, r *http.Request, v *view, err error, data *glossaryData) bool {
	field, msg, ok := glossaryWords(err)
	if !ok {
		return false
	}
	v.Errors, v.Form = map[string]string{field: msg}, r.PostForm
	d.glossaryPage(w, r, v, http.StatusBadRequest, data)
	return true
}

func (d *Dashboard) addGlossaryEntry(w http.ResponseWriter, r *http.Request, v *view) {
	in := glossaryInput(r)
	e, _, err := d.glossaries().Add(r.Context(), v.Org.OrganizationID, v.Session.Email, in, r.PostFormValue("version"))
	if err != nil {
		if !d.glossaryRefused(w, r, v, err, &glossaryData{}) {
			d.serverError(w, r, err)
		}
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.GlossaryEntryAdded, "%s added glossary entry %s (%q)", v.Session.Email, e.ID, e.Term)
	d.redirect(w, r, v, "/glossary#"+e.ID, fmt.Sprintf("“%s” is added to the glossary: transcripts added from now on are corrected with it.", e.Term))
}

func (d *Dashboard) editGlossaryEntry(w http.ResponseWriter, r *http.Request, v *view) {
	id := mux.Vars(r)["id"]
	in := glossaryInput(r)
	e, _, err := d.glossaries().Update(r.Context(), v.Org.OrganizationID, v.Session.Email, id, in, r.PostFormValue("version"))
	if errors.Is(err, glossary.ErrNotFound) {
		d.notFound(w, r, v)
		return
	}
	if err != nil {
		old, _, gerr := d.glossaries().Entry(r.Context(), v.Org.OrganizationID, id)
		if gerr != nil || !d.glossaryRefused(w, r, v, err, &glossaryData{Edit: old}) {
			d.serverError(w, r, err)
		}
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.GlossaryEntryChanged, "%s changed glossary entry %s (%q)", v.Session.Email, e.ID, e.Term)
	d.redirect(w, r, v, "/glossary#"+e.ID, fmt.Sprintf("“%s” is saved.", e.Term))
}

func (d *Dashboard) deleteGlossaryEntry(w http.ResponseWriter, r *http.Request, v *view) {
	id := mux.Vars(r)["id"]
	old, _, err := d.glossaries().Entry(r.Context(), v.Org.OrganizationID, id)
	if errors.Is(err, glossary.ErrNotFound) {
		d.notFound(w, r, v)
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if _, err := d.glossaries().Delete(r.Context(), v.Org.OrganizationID, id, r.PostFormValue("version")); err != nil {
		switch {
		case errors.Is(err, glossary.ErrNotFound):
			d.notFound(w, r, v)
		case !d.glossaryRefused(w, r, v, err, &glossaryData{}):
			d.serverError(w, r, err)
		}
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.GlossaryEntryDeleted, "%s deleted glossary entry %s (%q)", v.Session.Email, id, old.Term)
	d.redirect(w, r, v, "/glossary", fmt.Sprintf("“%s” is deleted from the glossary.", old.Term))
}

func (d *Dashboard) importGlossary(w http.ResponseWriter, r *http.Request, v *view) {
	refuse := func(msg string) {
		v.Errors = map[string]string{"file": msg}
		d.glossaryPage(w, r, v, http.StatusBadRequest, &glossaryData{})
	}
	f, _, err := r.FormFile("file")
	switch {
	case errors.Is(err, http.ErrMissingFile):
		refuse("Choose a CSV file to import.")
		return
	case err != nil:
		refuse(fmt.Sprintf("The file could not be read; choose it again (at most %d MiB).", glossary.MaxCSVBytes>>20))
		return
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, glossary.MaxCSVBytes+1))
	switch {
	case err != nil:
		refuse("The file could not be read; choose it again.")
		return
	case len(data) > glossary.MaxCSVBytes:
		refuse(fmt.Sprintf("The file is larger than %d MiB, the most a glossary file can be.", glossary.MaxCSVBytes>>20))
		return
	}
	g, err := d.glossaries().Import(r.Context(), v.Org.OrganizationID, v.Session.Email, bytes.NewReader(data), r.PostFormValue("version"))
	if err != nil {
		if _, msg, ok := glossaryWords(err); ok {
			refuse(msg)
			return
		}
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.GlossaryImported, "%s imported a glossary of %d entries", v.Session.Email, len(g.Entries))
	d.redirect(w, r, v, "/glossary", fmt.Sprintf("The file is imported: the glossary now holds its %d %s.", len(g.Entries), plural(len(g.Entries), "entry", "entries")))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// exportGlossary downloads the organization's glossary as a CSV file that imports back to it.
func (d *Dashboard) exportGlossary(w http.ResponseWriter, r *http.Request, v *view) {
	var buf bytes.Buffer
	if err := d.glossaries().Export(r.Context(), v.Org.OrganizationID, &buf); err != nil {
		d.serverError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "glossary-" + v.Org.OrganizationID + ".csv"}))
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// The wording of the glossary service's messages, in the words of the page.
var (
	glossaryLength   = regexp.MustCompile(`must be 1 to (\d+) bytes long, got (\d+)`)
	glossaryCategory = regexp.MustCompile(`must match \^\[a-z\]\S*, got ("[^"]*")`)
	glossaryEngine   = regexp.MustCompile(`("[^"]*") is a category of the engine`)
	glossarySame     = regexp.MustCompile(`the same words as (.*)`)
	glossaryEntryRef = regexp.MustCompile(`(?:the (term|forms\[\d+\]) of )?entry gle_\w+ \(("[^"]*")\)`)
	glossaryFieldRef = regexp.MustCompile(`^(entries\[\d+\]\.)?(term|forms(\[\d+\])?|category|sounds_like|auto|entries)$`)
)

// glossaryWords returns the form field an error of the glossary service is about and what to
// tell the member of it; false for an error that is not theirs to fix.
func glossaryWords(err error) (field, msg string, ok bool) {
	var (
		fe *glossary.FieldError
		ce *glossary.CSVError
		cf *glossary.ConflictError
	)
	switch {
	case errors.As(err, &ce):
		where := fmt.Sprintf("Line %d", ce.Line)
		if ce.Column > 0 {
			where += fmt.Sprintf(", column %d", ce.Column)
			if ce.Name != "" {
				where += " (" + columnWords(ce.Name) + ")"
			}
		}
		return "file", where + ": " + messageWords(ce.Message) + ". Fix the file and import it again; nothing was changed.", true
	case errors.As(err, &fe):
		m := glossaryFieldRef.FindStringSubmatch(fe.Field)
		name := "term"
		if m != nil && m[2] != "entries" && m[2] != "sounds_like" && m[2] != "auto" {
			name = strings.TrimSuffix(m[2], m[3])
		}
		return name, upperFirst(columnWords(name)) + ": " + messageWords(fe.Message) + ".", true
	case errors.As(err, &cf):
		return "version", "Someone else changed the glossary while you were at it, so nothing was changed. Look at it as it is now and make your change again.", true
	}
	return "", "", false
}

// columnWords names a field of an entry as the page does.
func columnWords(name string) string {
	switch {
	case name == "term":
		return "the term"
	case strings.HasPrefix(name, "forms"):
		return "the wrong forms"
	case name == "category":
		return "the category"
	case name == "sounds_like":
		return "sounds alike"
	case name == "auto":
		return "change automatically"
	}
	return name
}

// messageWords rewrites a message of the glossary service in the words of the page.
func messageWords(msg string) string {
	msg = glossaryEntryRef.ReplaceAllStringFunc(msg, func(s string) string {
		m := glossaryEntryRef.FindStringSubmatch(s)
		return "the entry " + m[2]
	})
	if m := glossaryLength.FindStringSubmatch(msg); m != nil {
		if m[2] == "0" {
			return "is empty; write it"
		}
		return "is too long; at most " + m[1] + " letters"
	}
	if m := glossaryCategory.FindStringSubmatch(msg); m != nil {
		return m[1] + " is not a category: write one word in small letters, such as name or church (digits and _ may follow)"
	}
	if m := glossaryEngine.FindStringSubmatch(msg); m != nil {
		return m[1] + " is a kind of word tcs corrects itself; choose another category, such as name or church"
	}
	if m := glossarySame.FindStringSubmatch(msg); m != nil {
		return "has the same words as " + m[1] + " already in the glossary; change that entry instead"
	}
	return msg
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
