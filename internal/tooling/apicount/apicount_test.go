package apicount

import (
	"maps"
	"testing"
)

const sample = `# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="tcs.dev",resource="transcripts",scope="resource",subresource="",verb="POST",version="v1alpha1"} 7
apiserver_request_total{code="409",component="apiserver",dry_run="",group="tcs.dev",resource="transcripts",scope="resource",subresource="",verb="POST",version="v1alpha1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="tcs.dev",resource="transcripts",scope="resource",subresource="status",verb="PATCH",version="v1alpha1"} 5
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="secrets",scope="resource",subresource="",verb="GET",version="v1"} 3
# HELP etcd_requests_total other
# TYPE etcd_requests_total counter
etcd_requests_total{operation="get"} 99
`

func TestParseCountsRequestsByVerbAndResource(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := Counts{
		{Group: "tcs.dev", Resource: "transcripts", Verb: "POST"}:                         9,
		{Group: "tcs.dev", Resource: "transcripts", Subresource: "status", Verb: "PATCH"}: 5,
		{Resource: "secrets", Verb: "GET"}:                                                3,
	}
	if !maps.Equal(c, want) {
		t.Fatalf("Parse = %v, want %v", c, want)
	}
	for _, tc := range []struct {
		name  string
		verbs []string
		want  map[string]int64
	}{
		{"writes, a status included", Writes, map[string]int64{"transcripts": 14}},
		{"reads", []string{"GET"}, map[string]int64{"secrets": 3}},
		{"no verb", nil, map[string]int64{}},
	} {
		if got := c.ByResource(tc.verbs...); !maps.Equal(got, tc.want) {
			t.Errorf("%s: ByResource = %v, want %v", tc.name, got, tc.want)
		}
	}
	later := maps.Clone(c)
	later[Key{Resource: "secrets", Verb: "GET"}] = 4
	if got, want := later.Since(c), (Counts{{Resource: "secrets", Verb: "GET"}: 1}); !maps.Equal(got, want) {
		t.Errorf("Since = %v, want %v", got, want)
	}
	if got := (Key{Resource: "transcripts", Subresource: "status", Verb: "PATCH"}).String(); got != "transcripts/status PATCH" {
		t.Errorf("String = %q", got)
	}
}

func TestParseRefusesWhatIsNoMetricsText(t *testing.T) {
	if _, err := Parse([]byte("apiserver_request_total{verb=\"GET\" 3\n")); err == nil {
		t.Fatal("a broken metrics text was parsed")
	}
}
