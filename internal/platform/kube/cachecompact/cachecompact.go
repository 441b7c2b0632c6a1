// Package cachecompact shrinks the Transcripts the service's informer cache holds, without
// losing a field: every transcript in the cluster is cached, so each byte saved on one is saved
// on every live transcript.
//
// A decoded Transcript holds its own copy of every string, although most of them are the same
// in every transcript (API version, namespace, finalizers, organization, phase, condition types,
// reasons and messages, job types and states, event types), and its own maps, although the
// labels of all transcripts of one organization and source type are the same, and the change
// counts by category of many transcripts too. The transform of a Compactor makes cached
// transcripts share one copy of each.
//
// Cached objects are never written to: the cache hands out deep copies, and the one reader that
// skips the copy (the API's list) only reads. A shared map or string is therefore never seen
// to change.
package cachecompact

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unique"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// maxSharedMaps bounds the maps of one kind a Compactor remembers; past it, it starts afresh
// (the maps it handed out stay with their objects).
const maxSharedMaps = 4096

// Compactor makes the objects of one cache share their repeated strings and label sets.
type Compactor struct {
	strip      toolscache.TransformFunc
	mu         sync.Mutex
	labels     map[string]map[string]string // canonical form → the shared map
	byCategory map[string]map[string]int
}

// New returns a Compactor that has seen nothing yet.
func New() *Compactor {
	return &Compactor{strip: cache.TransformStripManagedFields(), labels: map[string]map[string]string{}, byCategory: map[string]map[string]int{}}
}

// Transform is a cache transform (cache.TransformFunc): it drops the managedFields of every
// object, which no reader uses, and compacts Transcripts.
func (c *Compactor) Transform(obj any) (any, error) {
	obj, err := c.strip(obj)
	if err != nil {
		return nil, err
	}
	if t, ok := obj.(*tcsv1.Transcript); ok {
		c.Transcript(t)
	}
	return obj, nil
}

// Transcript makes t share its repeated strings and its labels with the other transcripts c
// compacted. It changes no value.
func (c *Compactor) Transcript(t *tcsv1.Transcript) {
	share(&t.APIVersion)
	share(&t.Kind)
	share(&t.Namespace)
	for i := range t.Finalizers {
		share(&t.Finalizers[i])
	}
	t.Labels = c.labelSet(t.Labels)

	s := &t.Spec
	share(&s.Organization)
	share((*string)(&s.Source.Type))
	share(&s.Source.Format)
	share(&s.Options.Language)

	st := &t.Status
	share((*string)(&st.Phase))
	share((*string)(&st.AIPassStatus))
	share(&st.Format)
	if cs := st.ChangesSummary; cs != nil {
		cs.ByCategory = c.counts(cs.ByCategory)
	}
	if e := st.Error; e != nil {
		share(&e.Type)
	}
	if a := st.AIPass; a != nil {
		share(&a.Provider)
		share(&a.Model)
		if a.Error != nil {
			share(&a.Error.Type)
		}
	}
	for i := range st.Jobs {
		j := &st.Jobs[i]
		share(&j.Type)
		share((*string)(&j.State))
	}
	for i := range st.EmittedEvents {
		share(&st.EmittedEvents[i].Type)
	}
	for i := range st.Conditions {
		cd := &st.Conditions[i]
		share(&cd.Type)
		share((*string)(&cd.Status))
		share(&cd.Reason)
		// The messages say what happened in words that repeat across transcripts.
		share(&cd.Message)
	}
}

// labelSet returns a map equal to l, the same map for every equal l.
func (c *Compactor) labelSet(l map[string]string) map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return shareMap(c.labels, l, func(v string) string { return v })
}

// counts returns a map equal to m, the same map for every equal m.
func (c *Compactor) counts(m map[string]int) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return shareMap(c.byCategory, m, strconv.Itoa)
}

// shareMap returns from known the map equal to m, remembering m (with shared keys) when none
// is; format spells a value.
func shareMap[V any](known map[string]map[string]V, m map[string]V, format func(V) string) map[string]V {
	if len(m) == 0 {
		return m
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(format(m[k]))
		b.WriteByte(0)
	}
	canon := b.String()
	if shared, ok := known[canon]; ok {
		return shared
	}
	if len(known) >= maxSharedMaps {
		clear(known)
	}
	shared := make(map[string]V, len(m))
	for k, v := range m {
		shared[unique.Make(k).Value()] = v
	}
	known[canon] = shared
	return shared
}

// share replaces *s with the one copy of its value every caller gets.
func share(s *string) {
	if *s != "" {
		*s = unique.Make(*s).Value()
	}
}
