package glossary

import (
	"container/list"
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/text/correction"
)

// DefaultCompiledSize is the number of compiled glossaries a Compiler keeps by default.
const DefaultCompiledSize = 256

// InvalidError is a stored glossary the engine refuses (one written around the service, with
// kubectl): the pass cannot run with it until it is fixed.
type InvalidError struct {
	Organization string
	Err          error
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("the glossary of %s is invalid (fix it with `tcs admin glossary` or the API): %v", e.Organization, e.Err)
}

func (e *InvalidError) Unwrap() error { return e.Err }

// Compiler gives the deterministic pass the compiled glossaries of organizations. It reads
// them from Reader (the informer cache, which a watch keeps current, so that a change takes
// effect for the next pass on every replica) and compiles each version of a glossary once,
// keeping the most recently used. It is safe for concurrent use.
type Compiler struct {
	reader    client.Reader
	namespace string
	size      int

	mu    sync.Mutex
	lru   *list.List               // of *compiled, most recently used first
	byOrg map[string]*list.Element // by organization
}

// compiled is one version of an organization's glossary, compiled.
type compiled struct {
	org, version string
	g            *correction.Glossary
	err          error
}

// NewCompiler returns a Compiler of the glossaries in namespace that reader reads, keeping
// size of them compiled (DefaultCompiledSize when size is 0 or less).
func NewCompiler(reader client.Reader, namespace string, size int) *Compiler {
	if size <= 0 {
		size = DefaultCompiledSize
	}
	return &Compiler{reader: reader, namespace: namespace, size: size, lru: list.New(), byOrg: map[string]*list.Element{}}
}

// Compiled returns the compiled glossary of org, nil when it has none or an empty one. A
// stored glossary the engine refuses is an *InvalidError.
func (c *Compiler) Compiled(ctx context.Context, org string) (*correction.Glossary, error) {
	if err := checkOrg(org); err != nil {
		return nil, err
	}
	g := &tcsv1.Glossary{}
	err := c.reader.Get(ctx, types.NamespacedName{Namespace: c.namespace, Name: ObjectName(org)}, g)
	switch {
	case apierrors.IsNotFound(err):
		c.forget(org)
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the glossary of %s: %w", org, err)
	case g.Spec.Organization != org:
		return nil, fmt.Errorf("glossary %s belongs to %s, not %s", g.Name, g.Spec.Organization, org)
	case len(g.Spec.Entries) == 0:
		c.forget(org)
		return nil, nil
	}
	if cg, ok := c.lookup(org, g.ResourceVersion); ok {
		return cg.g, cg.err
	}
	// Compiled outside the lock: two passes may compile one version at once, and the last
	// one kept wins, which is the same glossary.
	cg := &compiled{org: org, version: g.ResourceVersion}
	cg.g, cg.err = correction.NewGlossary(EngineEntries(g.Spec.Entries))
	if cg.err != nil {
		cg.g, cg.err = nil, &InvalidError{Organization: org, Err: cg.err}
	}
	c.store(cg)
	return cg.g, cg.err
}

// lookup returns the compiled version of org's glossary and marks it used.
func (c *Compiler) lookup(org, version string) (*compiled, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byOrg[org]
	if !ok || el.Value.(*compiled).version != version {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*compiled), true
}

// store keeps cg in place of any other version of its organization's glossary, and drops the
// least recently used beyond the size.
func (c *Compiler) store(cg *compiled) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byOrg[cg.org]; ok {
		el.Value = cg
		c.lru.MoveToFront(el)
		return
	}
	c.byOrg[cg.org] = c.lru.PushFront(cg)
	for c.lru.Len() > c.size {
		last := c.lru.Back()
		c.lru.Remove(last)
		delete(c.byOrg, last.Value.(*compiled).org)
	}
}

// forget drops org's compiled glossary.
func (c *Compiler) forget(org string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byOrg[org]; ok {
		c.lru.Remove(el)
		delete(c.byOrg, org)
	}
}

// Len returns the number of compiled glossaries kept.
func (c *Compiler) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
