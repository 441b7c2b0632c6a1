package controllers

import (
	"bufio"
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
)

// apiWrites returns the writes (create, update, patch, delete) the control plane's
// kube-apiserver has served so far, by resource (its status included), as its
// apiserver_request_total metric counts them: the cost of a change where it is paid.
func apiWrites(t testing.TB) map[string]int {
	t.Helper()
	return apiRequests(t, "POST", "PUT", "PATCH", "DELETE", "APPLY")
}

// apiGets returns the GETs of one object the control plane's kube-apiserver has served so
// far, by resource.
func apiGets(t testing.TB) map[string]int {
	t.Helper()
	return apiRequests(t, "GET")
}

// apiRequests returns the requests with one of verbs the control plane's kube-apiserver has
// served so far, by resource, as its apiserver_request_total metric counts them.
func apiRequests(t testing.TB, verbs ...string) map[string]int {
	t.Helper()
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatalf("reading the metrics of kube-apiserver: %v", err)
	}
	writes := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, "apiserver_request_total{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		verb, resource := metricLabel(labels, "verb"), metricLabel(labels, "resource")
		if !slices.Contains(verbs, verb) {
			continue
		}
		n, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("the metric line %q: %v", line, err)
		}
		writes[resource] += int(n)
	}
	return writes
}

// metricLabel returns the value of label name in a Prometheus label set.
func metricLabel(labels, name string) string {
	_, rest, ok := strings.Cut(","+labels, ","+name+`="`)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// writesSince returns the writes by resource since before (an apiWrites).
func writesSince(t testing.TB, before map[string]int) map[string]int {
	t.Helper()
	return since(before, apiWrites(t))
}

// since returns the requests by resource of now that came after before.
func since(before, now map[string]int) map[string]int {
	diff := map[string]int{}
	for r, n := range now {
		if d := n - before[r]; d != 0 {
			diff[r] = d
		}
	}
	return diff
}
