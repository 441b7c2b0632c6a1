// Package glossary keeps the glossaries of organizations (their own words, which the
// deterministic pass writes their way) as Glossary resources: the one set of rules that the
// API, `tcs admin glossary` and the dashboard apply, and the compiled glossaries the pass reads.
package glossary

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/text/correction"
)

// IDPrefix is the prefix of the ids of glossary entries (gle_…).
const IDPrefix = "gle"

// The bounds of a page of entries.
const (
	DefaultPageSize = 100
	MaxPageSize     = tcsv1.MaxGlossaryEntries
)

// ErrNoOrganization is returned by every method for an empty or malformed organization, before
// anything is read. It is orgs.ErrNoOrganization.
var ErrNoOrganization = orgs.ErrNoOrganization

// ErrNotFound is returned for an entry that does not exist in the organization's glossary, and
// for an organization that does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict is the error every *ConflictError wraps.
var ErrConflict = errors.New("the glossary was changed by someone else")

// ConflictError is a write refused because the glossary is no longer at the version the
// caller read: with an If-Match version (Version set) the API answers 412, and 409 when
// concurrent writers kept the write from succeeding after its retries.
type ConflictError struct {
	// Version is the version the caller asked for; empty when it asked for none.
	Version string
	// Current is the glossary's version now, as far as it was read; empty when it has none.
	Current string
}

func (e *ConflictError) Error() string {
	if e.Version == "" {
		return "the glossary was changed by someone else at the same time; read it and try again"
	}
	return fmt.Sprintf("the glossary is at version %q, not %q: read it again and reapply the change", e.Current, e.Version)
}

// Unwrap returns ErrConflict.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// FieldError is input refused before anything changed. Field names it as the API does: "term",
// "forms[1]" for one entry, "entries[3].term" for a whole glossary.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// checkOrg refuses an empty or malformed organization (orgs.CheckOrganization).
func checkOrg(org string) error { return orgs.CheckOrganization(org) }

// ObjectName returns the name of the Glossary of organization org (org_x → org-x).
func ObjectName(org string) string { return orgs.ObjectName(org) }

// Input is what a caller gives for an entry; the service adds its id and who changed it when.
type Input struct {
	// Term is the right spelling; surrounding spaces are dropped.
	Term string
	// Forms are wrong forms seen for Term; the spaces around each are dropped.
	Forms []string
	// SoundsLike also suggests words that sound like Term's.
	SoundsLike bool
	// Auto applies the changes of the forms automatically.
	Auto bool
	// Category is the category of the entry's changes; empty means "glossary".
	Category string
}

// normalize returns in with the spaces around its term and forms dropped, and no empty list.
func (in Input) normalize() Input {
	in.Term = strings.TrimSpace(in.Term)
	forms := make([]string, len(in.Forms))
	for i, f := range in.Forms {
		forms[i] = strings.TrimSpace(f)
	}
	in.Forms = forms
	if len(in.Forms) == 0 {
		in.Forms = nil
	}
	return in
}

// InputOf returns the fields of e a caller gives.
func InputOf(e tcsv1.GlossaryEntry) Input {
	return Input{Term: e.Term, Forms: slices.Clone(e.Forms), SoundsLike: e.SoundsLike, Auto: e.Auto, Category: e.Category}
}

// same reports whether e holds the fields of in.
func (in Input) same(e tcsv1.GlossaryEntry) bool {
	return in.Term == e.Term && slices.Equal(in.Forms, e.Forms) && in.SoundsLike == e.SoundsLike &&
		in.Auto == e.Auto && in.Category == e.Category
}

// set writes the fields of in into e, changed by actor at now.
func (in Input) set(e *tcsv1.GlossaryEntry, actor string, now time.Time) {
	e.Term, e.Forms, e.SoundsLike, e.Auto, e.Category = in.Term, in.Forms, in.SoundsLike, in.Auto, in.Category
	t := metav1.NewTime(now.Truncate(time.Second))
	e.UpdatedBy, e.UpdatedAt = clipActor(actor), &t
}

// clipActor cuts actor to tcsv1.MaxGlossaryActorLength bytes on a rune boundary.
func clipActor(actor string) string {
	if len(actor) <= tcsv1.MaxGlossaryActorLength {
		return actor
	}
	cut := tcsv1.MaxGlossaryActorLength
	for cut > 0 && !utf8.RuneStart(actor[cut]) {
		cut--
	}
	return actor[:cut]
}

// EngineEntries returns entries as the deterministic pass reads them.
func EngineEntries(entries []tcsv1.GlossaryEntry) []correction.GlossaryEntry {
	out := make([]correction.GlossaryEntry, len(entries))
	for i, e := range entries {
		out[i] = correction.GlossaryEntry{Term: e.Term, Forms: e.Forms, SoundsLike: e.SoundsLike, Auto: e.Auto, Category: e.Category}
	}
	return out
}

// Validate checks entries as a whole, as every write does: the engine's rules
// (correction.NewGlossary), no "|" in a form (it parts the forms of a CSV cell), and at most
// tcsv1.MaxGlossaryBytes serialized. Its error is a *FieldError naming "entries[i]…".
func Validate(entries []tcsv1.GlossaryEntry) error {
	if len(entries) > tcsv1.MaxGlossaryEntries {
		return &FieldError{Field: "entries", Message: fmt.Sprintf("a glossary holds at most %d entries, got %d", tcsv1.MaxGlossaryEntries, len(entries))}
	}
	for i, e := range entries {
		for k, f := range e.Forms {
			if strings.Contains(f, formSeparator) {
				return &FieldError{Field: fmt.Sprintf("entries[%d].forms[%d]", i, k), Message: "must not hold " + formSeparator + ", which parts the forms of the CSV format"}
			}
		}
	}
	if _, err := correction.NewGlossary(EngineEntries(entries)); err != nil {
		var fe *correction.FieldError
		if errors.As(err, &fe) {
			return &FieldError{Field: fe.Field, Message: fe.Reason}
		}
		return fmt.Errorf("compiling the glossary: %w", err)
	}
	data, err := json.Marshal(entries)
	if err != nil {
		return fmt.Errorf("measuring the glossary: %w", err)
	}
	if len(data) > tcsv1.MaxGlossaryBytes {
		return &FieldError{Field: "entries", Message: fmt.Sprintf("the glossary would take %d bytes; at most %d (%d KiB) are kept: remove entries or forms",
			len(data), tcsv1.MaxGlossaryBytes, tcsv1.MaxGlossaryBytes>>10)}
	}
	return nil
}

// Glossary is an organization's glossary as the service reads it.
type Glossary struct {
	Organization string
	// Entries are the entries in the order they were added.
	Entries []tcsv1.GlossaryEntry
	// Version is the version of the glossary a write's ifMatch names (its resourceVersion);
	// empty when the organization has none yet.
	Version string
}

// Manager reads and writes the glossaries of one namespace.
type Manager struct {
	// Client reads and writes the Glossary objects and reads Organizations.
	Client client.Client
	// Reader, when set, is what the Glossary objects and Organizations are read from instead
	// of Client: the API server itself, so that a write's version check and what is shown right
	// after it see the glossary as it is rather than as a cache has it.
	Reader client.Reader
	// Namespace holds the glossaries.
	Namespace string
	// Clock is what the times of changes are read from; nil means the real clock.
	Clock clock.PassiveClock
}

// reader is what m reads from: Reader, or Client without one.
func (m *Manager) reader() client.Reader {
	if m.Reader != nil {
		return m.Reader
	}
	return m.Client
}

func (m *Manager) now() time.Time {
	if m.Clock == nil {
		return time.Now()
	}
	return m.Clock.Now()
}

// read returns the Glossary object of org, and false when there is none.
func (m *Manager) read(ctx context.Context, org string) (*tcsv1.Glossary, bool, error) {
	g := &tcsv1.Glossary{}
	err := m.reader().Get(ctx, types.NamespacedName{Namespace: m.Namespace, Name: ObjectName(org)}, g)
	switch {
	case apierrors.IsNotFound(err):
		return &tcsv1.Glossary{}, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("reading the glossary of %s: %w", org, err)
	case g.Spec.Organization != org:
		// A name shared by two ids cannot happen with ids.New; never show another's.
		return nil, false, fmt.Errorf("glossary %s belongs to %s, not %s", g.Name, g.Spec.Organization, org)
	}
	return g, true, nil
}

func view(org string, g *tcsv1.Glossary) *Glossary {
	return &Glossary{Organization: org, Entries: g.Spec.Entries, Version: g.ResourceVersion}
}

// Get returns the glossary of org; an organization without one has an empty one of version "".
func (m *Manager) Get(ctx context.Context, org string) (*Glossary, error) {
	if err := checkOrg(org); err != nil {
		return nil, err
	}
	g, _, err := m.read(ctx, org)
	if err != nil {
		return nil, err
	}
	return view(org, g), nil
}

// Entry returns entry id of org's glossary and the glossary's version.
func (m *Manager) Entry(ctx context.Context, org, id string) (*tcsv1.GlossaryEntry, string, error) {
	if err := checkOrg(org); err != nil {
		return nil, "", err
	}
	g, _, err := m.read(ctx, org)
	if err != nil {
		return nil, "", err
	}
	i := indexOf(g.Spec.Entries, id)
	if i < 0 {
		return nil, "", fmt.Errorf("glossary entry %s: %w", id, ErrNotFound)
	}
	return &g.Spec.Entries[i], g.ResourceVersion, nil
}

// ListOptions select a page of entries, in the glossary's order.
type ListOptions struct {
	// After, when set, starts the page after the entry of this id.
	After string
	// Limit is the page size, from 1 to MaxPageSize; 0 means DefaultPageSize.
	Limit int
}

// Page is one page of a glossary's entries.
type Page struct {
	Entries []tcsv1.GlossaryEntry
	HasMore bool
	// Version is the glossary's version.
	Version string
}

// List returns a page of the entries of org's glossary.
func (m *Manager) List(ctx context.Context, org string, opts ListOptions) (*Page, error) {
	if err := checkOrg(org); err != nil {
		return nil, err
	}
	switch {
	case opts.Limit == 0:
		opts.Limit = DefaultPageSize
	case opts.Limit < 0 || opts.Limit > MaxPageSize:
		return nil, &FieldError{Field: "limit", Message: fmt.Sprintf("must be from 1 to %d, got %d", MaxPageSize, opts.Limit)}
	}
	g, _, err := m.read(ctx, org)
	if err != nil {
		return nil, err
	}
	entries := g.Spec.Entries
	if opts.After != "" {
		i := indexOf(entries, opts.After)
		if i < 0 {
			return nil, &FieldError{Field: "after", Message: fmt.Sprintf("no entry %s in the glossary", opts.After)}
		}
		entries = entries[i+1:]
	}
	p := &Page{Version: g.ResourceVersion, HasMore: len(entries) > opts.Limit}
	p.Entries = entries[:min(len(entries), opts.Limit)]
	return p, nil
}

// Add adds an entry to org's glossary, changed by actor, and returns it with the glossary's
// new version. A non-empty ifMatch is the version the caller read: a glossary changed since
// is a *ConflictError.
func (m *Manager) Add(ctx context.Context, org, actor string, in Input, ifMatch string) (*tcsv1.GlossaryEntry, string, error) {
	if err := checkOrg(org); err != nil {
		return nil, "", err
	}
	in = in.normalize()
	var id string
	g, err := m.write(ctx, org, ifMatch, func(entries []tcsv1.GlossaryEntry, now time.Time) ([]tcsv1.GlossaryEntry, error) {
		id = ids.New(IDPrefix)
		e := tcsv1.GlossaryEntry{ID: id}
		in.set(&e, actor, now)
		entries = append(entries, e)
		return entries, entryError(Validate(entries), entries, len(entries)-1)
	})
	if err != nil {
		return nil, "", err
	}
	return &g.Entries[indexOf(g.Entries, id)], g.Version, nil
}

// Update replaces the fields of entry id of org's glossary, changed by actor, and returns it
// with the glossary's new version; ifMatch as for Add.
func (m *Manager) Update(ctx context.Context, org, actor, id string, in Input, ifMatch string) (*tcsv1.GlossaryEntry, string, error) {
	if err := checkOrg(org); err != nil {
		return nil, "", err
	}
	in = in.normalize()
	g, err := m.write(ctx, org, ifMatch, func(entries []tcsv1.GlossaryEntry, now time.Time) ([]tcsv1.GlossaryEntry, error) {
		i := indexOf(entries, id)
		if i < 0 {
			return nil, fmt.Errorf("glossary entry %s: %w", id, ErrNotFound)
		}
		if !in.same(entries[i]) {
			in.set(&entries[i], actor, now)
		}
		return entries, entryError(Validate(entries), entries, i)
	})
	if err != nil {
		return nil, "", err
	}
	return &g.Entries[indexOf(g.Entries, id)], g.Version, nil
}

// Delete removes entry id from org's glossary and returns the glossary's new version; ifMatch
// as for Add.
func (m *Manager) Delete(ctx context.Context, org, id, ifMatch string) (string, error) {
	if err := checkOrg(org); err != nil {
		return "", err
	}
	g, err := m.write(ctx, org, ifMatch, func(entries []tcsv1.GlossaryEntry, _ time.Time) ([]tcsv1.GlossaryEntry, error) {
		i := indexOf(entries, id)
		if i < 0 {
			return nil, fmt.Errorf("glossary entry %s: %w", id, ErrNotFound)
		}
		return slices.Delete(entries, i, i+1), nil
	})
	if err != nil {
		return "", err
	}
	return g.Version, nil
}

// Replace makes ins the entries of org's glossary, in their order, changed by actor; ifMatch
// as for Add. An entry whose term an entry of the glossary has keeps that entry's id, and who
// changed it when if its fields are the same. Its *FieldError names "entries[i]…", i the
// index in ins.
func (m *Manager) Replace(ctx context.Context, org, actor string, ins []Input, ifMatch string) (*Glossary, error) {
	if err := checkOrg(org); err != nil {
		return nil, err
	}
	if len(ins) > tcsv1.MaxGlossaryEntries {
		return nil, &FieldError{Field: "entries", Message: fmt.Sprintf("a glossary holds at most %d entries, got %d", tcsv1.MaxGlossaryEntries, len(ins))}
	}
	norm := make([]Input, len(ins))
	for i, in := range ins {
		norm[i] = in.normalize()
	}
	return m.write(ctx, org, ifMatch, func(old []tcsv1.GlossaryEntry, now time.Time) ([]tcsv1.GlossaryEntry, error) {
		byTerm := make(map[string]tcsv1.GlossaryEntry, len(old))
		for _, e := range old {
			byTerm[e.Term] = e
		}
		entries := make([]tcsv1.GlossaryEntry, len(norm))
		for i, in := range norm {
			e, ok := byTerm[in.Term]
			delete(byTerm, in.Term) // a term given twice gets a new id, and the engine's error
			if !ok {
				e = tcsv1.GlossaryEntry{ID: ids.New(IDPrefix)}
			}
			if !ok || !in.same(e) {
				in.set(&e, actor, now)
			}
			entries[i] = e
		}
		return entries, Validate(entries)
	})
}

// indexOf returns the index of entry id in entries, or -1.
func indexOf(entries []tcsv1.GlossaryEntry, id string) int {
	return slices.IndexFunc(entries, func(e tcsv1.GlossaryEntry) bool { return e.ID == id })
}

// entryField matches a field of an entry in a message: entries[2].forms[1].
var entryField = regexp.MustCompile(`entries\[(\d+)\](?:\.([a-z_]+(?:\[\d+\])?))?`)

// entryError rewrites a *FieldError of Validate for a write of entry i of entries alone: its
// fields lose their "entries[i]." and other entries are named by id and term.
func entryError(err error, entries []tcsv1.GlossaryEntry, i int) error {
	var fe *FieldError
	if !errors.As(err, &fe) {
		return err
	}
	field := strings.TrimPrefix(fe.Field, fmt.Sprintf("entries[%d].", i))
	msg := entryField.ReplaceAllStringFunc(fe.Message, func(s string) string {
		m := entryField.FindStringSubmatch(s)
		n, err := strconv.Atoi(m[1])
		switch {
		case err != nil || n >= len(entries):
			return s
		case n == i && m[2] != "":
			return m[2]
		case m[2] != "":
			return fmt.Sprintf("the %s of entry %s (%q)", m[2], entries[n].ID, entries[n].Term)
		}
		return fmt.Sprintf("entry %s (%q)", entries[n].ID, entries[n].Term)
	})
	return &FieldError{Field: field, Message: msg}
}

// write applies mutate to the entries of org's glossary (a copy of them) and writes the
// result, creating the glossary on its first write, with optimistic concurrency: with ifMatch
// the glossary must be at that version, without it the write is retried on a conflict.
func (m *Manager) write(ctx context.Context, org, ifMatch string, mutate func([]tcsv1.GlossaryEntry, time.Time) ([]tcsv1.GlossaryEntry, error)) (*Glossary, error) {
	var out *tcsv1.Glossary
	var current string
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		g, exists, err := m.read(ctx, org)
		if err != nil {
			return err
		}
		current = g.ResourceVersion
		if ifMatch != "" && ifMatch != current {
			return &ConflictError{Version: ifMatch, Current: current}
		}
		entries, err := mutate(g.DeepCopy().Spec.Entries, m.now())
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			entries = nil
		}
		g.Spec.Organization, g.Spec.Entries, g.Status.Entries = org, entries, len(entries)
		if exists {
			if err := m.Client.Update(ctx, g); err != nil {
				return fmt.Errorf("writing the glossary of %s: %w", org, err)
			}
			out = g
			return nil
		}
		if err := m.prepare(ctx, org, g); err != nil {
			return err
		}
		switch err := m.Client.Create(ctx, g); {
		case apierrors.IsAlreadyExists(err):
			// Another writer created it first: read it and apply the change again.
			return apierrors.NewConflict(tcsv1.GroupVersion.WithResource("glossaries").GroupResource(), g.Name, err)
		case err != nil:
			return fmt.Errorf("creating the glossary of %s: %w", org, err)
		}
		out = g
		return nil
	})
	if apierrors.IsConflict(err) {
		return nil, &ConflictError{Version: ifMatch, Current: current}
	}
	if err != nil {
		return nil, err
	}
	return view(org, out), nil
}

// prepare names the new glossary g of org, labels it, and makes org's Organization its owner,
// so that it goes with the organization.
func (m *Manager) prepare(ctx context.Context, org string, g *tcsv1.Glossary) error {
	o := &tcsv1.Organization{}
	if err := m.reader().Get(ctx, types.NamespacedName{Namespace: m.Namespace, Name: orgs.ObjectName(org)}, o); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("organization %s in namespace %s: %w", org, m.Namespace, ErrNotFound)
		}
		return fmt.Errorf("looking up organization %s: %w", org, err)
	}
	g.Name, g.Namespace = ObjectName(org), m.Namespace
	g.Labels = map[string]string{tcsv1.LabelOrganization: org}
	g.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: tcsv1.GroupVersion.String(), Kind: "Organization", Name: o.Name, UID: o.UID,
	}}
	return nil
}
