// Package apicount reads how many requests a kube-apiserver has served, by verb and resource,
// from its apiserver_request_total metric: the cost of a change counted where it is paid.
package apicount

import (
	"bytes"
	"context"
	"fmt"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Key names the requests of one verb to one resource of one group; Subresource is "" for
// the resource itself.
type Key struct {
	Group, Resource, Subresource, Verb string
}

// String is "resource[/subresource] VERB".
func (k Key) String() string {
	s := k.Resource
	if k.Subresource != "" {
		s += "/" + k.Subresource
	}
	return s + " " + k.Verb
}

// Counts are the requests served so far, by Key.
type Counts map[Key]int64

// Writes are the verbs that change objects.
var Writes = []string{"POST", "PUT", "PATCH", "DELETE", "DELETECOLLECTION", "APPLY"}

// Read returns the requests the kube-apiserver of cfg has served so far.
func Read(ctx context.Context, cfg *rest.Config) (Counts, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("a client of kube-apiserver: %w", err)
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the metrics of kube-apiserver: %w", err)
	}
	return Parse(raw)
}

// Parse returns the apiserver_request_total counts of a metrics text.
func Parse(text []byte) (Counts, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("parsing the metrics of kube-apiserver: %w", err)
	}
	out := Counts{}
	f, ok := families["apiserver_request_total"]
	if !ok {
		return out, nil
	}
	for _, m := range f.GetMetric() {
		k := Key{}
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "group":
				k.Group = l.GetValue()
			case "resource":
				k.Resource = l.GetValue()
			case "subresource":
				k.Subresource = l.GetValue()
			case "verb":
				k.Verb = l.GetValue()
			}
		}
		out[k] += int64(m.GetCounter().GetValue())
	}
	return out, nil
}

// Since returns the requests of c served after before was read, leaving out those with none.
func (c Counts) Since(before Counts) Counts {
	out := Counts{}
	for k, v := range c {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// ByResource sums the requests with one of verbs by resource, its subresources included.
func (c Counts) ByResource(verbs ...string) map[string]int64 {
	out := map[string]int64{}
	for k, v := range c {
		for _, verb := range verbs {
			if k.Verb == verb {
				out[k.Resource] += v
			}
		}
	}
	return out
}
