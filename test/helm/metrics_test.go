package helm

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/platform/metrics"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// metricsValues returns the metrics values of vs with the chart's defaults.
func metricsValues(vs valueSet) (secure, serviceMonitor, prometheusRule bool) {
	m, _ := vs.values["metrics"].(map[string]any)
	secure = true
	if v, ok := m["secure"].(bool); ok {
		secure = v
	}
	enabled := func(key string) bool {
		sub, _ := m[key].(map[string]any)
		on, _ := sub["enabled"].(bool)
		return on
	}
	return secure, enabled("serviceMonitor"), enabled("prometheusRule")
}

// checkMetrics checks the metrics objects the chart renders for vs: the Service reaches the
// container's metrics port, the reader role grants /metrics, and the ServiceMonitor and the
// PrometheusRule, when enabled, scrape that Service the way the server serves and alert on
// metrics tcs records.
func checkMetrics(t *testing.T, vs valueSet, r *rendered) {
	t.Helper()
	d := r.deployments[0]
	c := container(t, d)
	svc := r.metricsServices[0]
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) || len(svc.Spec.Selector) == 0 {
		t.Errorf("the metrics Service's selector %v does not match the pods' labels", svc.Spec.Selector)
	}
	if len(svc.Spec.Ports) != 1 || containerPort(c, svc.Spec.Ports[0].TargetPort) != 8081 {
		t.Errorf("the metrics Service's ports %+v do not reach the container's metrics port 8081 (--metrics-bind-address)", svc.Spec.Ports)
	}
	wantRules := []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}
	if got := r.metricsReaders[0].Rules; !slices.EqualFunc(got, wantRules, func(a, b rbacv1.PolicyRule) bool {
		return slices.Equal(a.NonResourceURLs, b.NonResourceURLs) && slices.Equal(a.Verbs, b.Verbs) && len(a.APIGroups)+len(a.Resources) == 0
	}) {
		t.Errorf("the metrics-reader ClusterRole grants %+v, want get on /metrics only", got)
	}

	secure, wantMonitor, wantRule := metricsValues(vs)
	// With metrics.secure, and only then, the service may review tokens and access: cluster-wide,
	// bound to its ServiceAccount alone.
	if n := []int{len(r.metricsAuth), len(r.metricsAuthBindings)}; !slices.Equal(n, map[bool][]int{true: {1, 1}, false: {0, 0}}[secure]) {
		t.Fatalf("the chart renders %d metrics-auth ClusterRoles and %d bindings with metrics.secure %v", n[0], n[1], secure)
	}
	if secure {
		auth, b := r.metricsAuth[0], r.metricsAuthBindings[0]
		want := []rbacv1.PolicyRule{
			{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
			{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
		}
		if !reflect.DeepEqual(auth.Rules, want) {
			t.Errorf("the metrics-auth ClusterRole grants %+v, want %+v", auth.Rules, want)
		}
		subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: r.serviceAccounts[0].Name, Namespace: vs.namespace}
		if b.RoleRef.Name != auth.Name || !slices.Equal(b.Subjects, []rbacv1.Subject{subject}) {
			t.Errorf("the metrics-auth binding gives %s to %+v, want %s to %+v", b.RoleRef.Name, b.Subjects, auth.Name, subject)
		}
	}
	var monitors, rules []*unstructured.Unstructured
	for _, u := range r.monitoring {
		switch u.GetKind() {
		case "ServiceMonitor":
			monitors = append(monitors, u)
		case "PrometheusRule":
			rules = append(rules, u)
		default:
			t.Errorf("the chart renders a %s the tests do not know", u.GetKind())
		}
	}
	if (len(monitors) == 1) != wantMonitor || len(monitors) > 1 {
		t.Errorf("the chart renders %d ServiceMonitors with serviceMonitor.enabled %v", len(monitors), wantMonitor)
	}
	if (len(rules) == 1) != wantRule || len(rules) > 1 {
		t.Errorf("the chart renders %d PrometheusRules with prometheusRule.enabled %v", len(rules), wantRule)
	}
	for _, sm := range monitors {
		match, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
		sel := labels.SelectorFromSet(match)
		if !sel.Matches(labels.Set(svc.Labels)) || sel.Matches(labels.Set(r.services[0].Labels)) {
			t.Errorf("the ServiceMonitor selects %v: it must select the metrics Service %v and not the API's %v", match, svc.Labels, r.services[0].Labels)
		}
		eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		if len(eps) != 1 {
			t.Fatalf("the ServiceMonitor has %d endpoints", len(eps))
		}
		ep := eps[0].(map[string]any)
		wantScheme := map[bool]string{true: "https", false: "http"}[secure]
		if ep["port"] != svc.Spec.Ports[0].Name || ep["path"] != "/metrics" || ep["scheme"] != wantScheme {
			t.Errorf("the ServiceMonitor scrapes %v, want port %s, /metrics over %s", ep, svc.Spec.Ports[0].Name, wantScheme)
		}
		if _, hasToken := ep["bearerTokenFile"]; hasToken != secure {
			t.Errorf("the ServiceMonitor sends a token: %v, with metrics.secure %v", hasToken, secure)
		}
		// Over https, the ServiceMonitor verifies the server: a CA and a server name, never
		// insecureSkipVerify unless the values opt in.
		if secure {
			tls, _, _ := unstructured.NestedMap(ep, "tlsConfig")
			if tls["insecureSkipVerify"] == true || tls["ca"] == nil || tls["serverName"] == nil {
				t.Errorf("the ServiceMonitor's tlsConfig %v does not verify the metrics server", tls)
			}
		}
	}
	for _, pr := range rules {
		checkAlertRules(t, pr)
	}
}

// checkAlertRules checks that every alert of the PrometheusRule is documented and queries
// only metrics tcs records, with their labels.
func checkAlertRules(t *testing.T, pr *unstructured.Unstructured) {
	t.Helper()
	fams, err := metrics.Families()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string][]string{}
	for _, f := range fams {
		known[f.Name] = f.Labels
		if f.Type == "histogram" {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				known[f.Name+suffix] = append(slices.Clone(f.Labels), "le")
			}
		}
	}
	doc, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	selector := regexp.MustCompile(`(tcs_[a-z_]+)(\{[^}]*\})?`)
	matcher := regexp.MustCompile(`([a-z_]+)\s*(=~|!~|!=|=)`)
	groups, _, _ := unstructured.NestedSlice(pr.Object, "spec", "groups")
	n := 0
	for _, g := range groups {
		rules, _, _ := unstructured.NestedSlice(g.(map[string]any), "rules")
		for _, rule := range rules {
			rule := rule.(map[string]any)
			alert, _ := rule["alert"].(string)
			expr, _ := rule["expr"].(string)
			n++
			if !strings.HasPrefix(alert, "TCS") || !strings.Contains(string(doc), "| `"+alert+"` |") {
				t.Errorf("alert %q is not a documented TCS alert of docs/operations.md", alert)
			}
			uses := selector.FindAllStringSubmatch(expr, -1)
			if len(uses) == 0 {
				t.Errorf("alert %s queries no tcs metric: %s", alert, expr)
			}
			for _, u := range uses {
				have, ok := known[u[1]]
				if !ok {
					t.Errorf("alert %s queries %s, which tcs does not record", alert, u[1])
					continue
				}
				for _, m := range matcher.FindAllStringSubmatch(u[2], -1) {
					if !slices.Contains(have, m[1]) {
						t.Errorf("alert %s selects %s by label %s, which it does not have (%v)", alert, u[1], m[1], have)
					}
				}
			}
		}
	}
	if n < 5 {
		t.Errorf("the PrometheusRule has %d alerts", n)
	}
}

// scrapeMetrics scrapes the metrics of the running service as Prometheus would: with
// metrics.secure, over HTTPS and only with the token of a ServiceAccount bound to the chart's
// metrics-reader ClusterRole.
func scrapeMetrics(t *testing.T, c *cluster, vs valueSet, p *podRun) {
	t.Helper()
	ctx := t.Context()
	url := p.url("--metrics-bind-address", "/metrics")
	secure, _, _ := metricsValues(vs)
	var token string
	if secure {
		url = "https://" + strings.TrimPrefix(url, "http://")
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus", Namespace: vs.namespace}}
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: vs.release + "-prometheus"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: vs.release + "-metrics-reader"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: sa.Namespace}},
		}
		for _, obj := range []client.Object{sa, binding} {
			if err := c.admin.Create(ctx, obj); err != nil {
				t.Fatal(err)
			}
		}
		tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}
		if err := c.admin.SubResource("token").Create(ctx, sa, tr); err != nil {
			t.Fatal(err)
		}
		token = tr.Status.Token
	}
	// The manager starts the metrics server alongside the controllers, and the secure one only
	// once it has made its certificate and its reviewer: on a busy machine, after the API
	// serves. Prometheus retries; the test waits for the port.
	addr := strings.TrimPrefix(p.url("--metrics-bind-address", ""), "http://")
	testenv.Eventually(t, 30*time.Second, func() (bool, string) {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false, fmt.Sprintf("the metrics server does not listen: %v", err)
		}
		conn.Close()
		return true, ""
	})
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		// The chart's default: a self-signed certificate.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	scrape := func(bearer string) (int, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		res, err := hc.Do(req)
		if err != nil {
			t.Fatalf("scraping the metrics: %v", err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	if secure {
		if code, body := scrape(""); code != http.StatusUnauthorized {
			t.Errorf("scraping without a token: %d %.200s, want 401", code, body)
		}
	}
	code, body := scrape(token)
	if code != http.StatusOK {
		t.Fatalf("scraping as the metrics reader: %d %.200s", code, body)
	}
	// The service answered requests in useService.
	for _, want := range []string{`tcs_api_requests_total{code="201",method="POST",route="/api/v1/transcripts"}`, "tcs_transcripts_created_total"} {
		if !strings.Contains(body, want) {
			t.Errorf("the metrics lack %s", want)
		}
	}
}
