// Package helm tests the Helm chart in charts/tcs with the real Helm CLI ($TCS_HELM, built by
// hack/helm.sh): lint, the rendered objects against the generated CRDs and RBAC, and an install
// into a real kube-apiserver that the real tcs binary then runs against as the chart's
// ServiceAccount.
package helm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"tcs.dev/tcs/config/crd"
	"tcs.dev/tcs/internal/tooling/chartdoc"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// valueSet is one set of chart values and what the rendered Deployment must then carry.
type valueSet struct {
	name string
	// release and namespace are the release's name and namespace.
	release, namespace string
	// file, when not empty, is a values file of the chart (such as values-ha.yaml) given
	// before values, as an operator gives it to helm with -f.
	file   string
	values map[string]any
	// serviceNamespace is where the service keeps its data (--namespace).
	serviceNamespace string
	// wantArgs must all be among the container's args.
	wantArgs []string
	// wantEnv maps the container's environment variables to the "secret/key" they come from.
	wantEnv map[string]string
	// secrets are the Secrets an operator creates before installing the set.
	secrets []secret
	// install runs the set in TestInstall; the others only have their flags parsed there.
	install bool
	// ha is what the set must render for several replicas; nil means one replica, no
	// PodDisruptionBudget and no anti-affinity.
	ha *haWant
	// sharedStores makes TestInstall run the set against a real S3 server, PostgreSQL and
	// Redis, from Secrets holding their addresses.
	sharedStores bool
}

// secret is a Secret an operator creates before installing a value set.
type secret struct {
	namespace, name string
	data            map[string]string
}

// valueSets are the chart's default values and sets that use every option.
var valueSets = []valueSet{
	{
		name:             "defaults",
		release:          "tcs",
		namespace:        "tcs-install",
		serviceNamespace: "tcs-install",
		wantArgs:         []string{"run", "--namespace=tcs-install", "--store=/var/lib/tcs/objects", "--leader-elect", "--archive-after=1h"},
		wantEnv:          map[string]string{},
		install:          true,
	},
	{
		// Every option, with the S3 store; no S3 server runs here, so it is not installed.
		name:      "options-s3",
		release:   "transcripts",
		namespace: "tcs-apps",
		values: map[string]any{
			"namespace":           "tcs-data",
			"store":               "s3://transcripts?endpoint=http://127.0.0.1:9000&region=us-east-1&use_path_style=true",
			"s3CredentialsSecret": "tcs-s3",
			"uploadSecretName":    "tcs-upload",
			"redisURLSecret":      "tcs-redis",
			"resultsDSNSecret":    "tcs-results",
			"archiveAfter":        "30m",
			"invitationTTL":       "72h",
			"smtp":                map[string]any{"host": "smtp.example.org", "port": 465, "tls": "tls", "from": "tcs <noreply@example.org>", "username": "tcs", "existingSecret": "tcs-smtp"},
			"publicURL":           "https://tcs.example.org",
			"outboundAllowCIDRs":  []any{"10.20.0.0/16", "192.168.7.0/24"},
			"networkPolicy": map[string]any{
				"kubeAPIServer": map[string]any{"cidrs": []any{"172.18.0.2/32"}},
				"extraEgress": []any{map[string]any{
					"to":    []any{map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"app": "postgresql"}}}},
					"ports": []any{map[string]any{"port": 5432, "protocol": "TCP"}},
				}},
			},
			"ingress": map[string]any{"enabled": true, "className": "nginx", "tlsSecret": "tcs-tls"},
			"ai": map[string]any{
				"baseURL":      "http://127.0.0.1:11434/v1",
				"model":        "llama3.1:8b",
				"apiKeySecret": "tcs-ai/token",
				"stream":       true,
			},
			"metrics": map[string]any{
				"secure":         false,
				"serviceMonitor": map[string]any{"enabled": true, "interval": "1m"},
				"prometheusRule": map[string]any{"enabled": true, "labels": map[string]any{"role": "alert-rules"}},
			},
		},
		serviceNamespace: "tcs-data",
		wantArgs: []string{
			"run", "--namespace=tcs-data", "--leader-elect", "--archive-after=30m", "--invitation-ttl=72h",
			"--smtp-host=smtp.example.org", "--smtp-port=465", "--smtp-tls=tls", "--smtp-from=tcs <noreply@example.org>",
			"--smtp-username=tcs", "--smtp-password-file=/etc/tcs/smtp/password",
			"--store=s3://transcripts?endpoint=http://127.0.0.1:9000&region=us-east-1&use_path_style=true",
			"--public-url=https://tcs.example.org",
			"--outbound-allow-cidrs=10.20.0.0/16,192.168.7.0/24",
			"--ai-base-url=http://127.0.0.1:11434/v1",
			"--ai-model=llama3.1:8b",
			"--ai-api-key-secret=tcs-ai/token",
			"--ai-stream",
			"--metrics-secure=false",
		},
		wantEnv: map[string]string{
			"TCS_UPLOAD_SECRET":     "tcs-upload/secret",
			"TCS_REDIS_URL":         "tcs-redis/url",
			"TCS_RESULTS_DSN":       "tcs-results/dsn",
			"AWS_ACCESS_KEY_ID":     "tcs-s3/AWS_ACCESS_KEY_ID",
			"AWS_SECRET_ACCESS_KEY": "tcs-s3/AWS_SECRET_ACCESS_KEY",
		},
	},
	{
		// Every option but S3, installed: the service keeps its data outside the release's
		// namespace, reads its upload secret from a Secret and runs the openai provider (whose
		// endpoint no test request reaches).
		name:      "options",
		release:   "sermons",
		namespace: "tcs-web",
		values: map[string]any{
			"namespace":          "tcs-sermons",
			"uploadSecretName":   "tcs-upload",
			"publicURL":          "https://sermons.example.org",
			"outboundAllowCIDRs": []any{"127.0.0.1/32"},
			"ai": map[string]any{
				"provider":     "openai",
				"baseURL":      "http://127.0.0.1:9/v1",
				"model":        "llama3.1:8b",
				"apiKeySecret": "tcs-ai",
				"stream":       true,
			},
		},
		serviceNamespace: "tcs-sermons",
		wantArgs: []string{
			"run", "--namespace=tcs-sermons", "--store=/var/lib/tcs/objects", "--leader-elect",
			"--public-url=https://sermons.example.org",
			"--outbound-allow-cidrs=127.0.0.1/32",
			"--ai-provider=openai",
			"--ai-base-url=http://127.0.0.1:9/v1",
			"--ai-model=llama3.1:8b",
			"--ai-api-key-secret=tcs-ai",
			"--ai-stream",
		},
		wantEnv: map[string]string{"TCS_UPLOAD_SECRET": "tcs-upload/secret"},
		secrets: []secret{
			{namespace: "tcs-web", name: "tcs-upload", data: map[string]string{"secret": "an upload-signing secret of the chart test"}},
			{namespace: "tcs-sermons", name: "tcs-ai", data: map[string]string{"api-key": "sk-chart-test"}},
		},
		install: true,
	},
	{
		// The metrics server's certificate from a Secret, scraped by the Prometheus Operator;
		// not installed, as no Prometheus Operator CRDs are here.
		name:      "metrics-tls",
		release:   "tcs",
		namespace: "tcs-monitored",
		values: map[string]any{
			"metrics": map[string]any{
				"certSecret": "tcs-metrics-tls",
				"serviceMonitor": map[string]any{
					"enabled":   true,
					"labels":    map[string]any{"release": "prometheus"},
					"tlsConfig": map[string]any{"ca": map[string]any{"secret": map[string]any{"name": "tcs-metrics-tls", "key": "ca.crt"}}, "serverName": "tcs-metrics.tcs-monitored.svc"},
				},
				"prometheusRule": map[string]any{"enabled": true},
			},
			"networkPolicy": map[string]any{"enabled": false},
		},
		serviceNamespace: "tcs-monitored",
		wantArgs:         []string{"run", "--namespace=tcs-monitored", "--leader-elect", "--metrics-cert-path=/etc/tcs/metrics-certs"},
		wantEnv:          map[string]string{},
	},
	{
		// The example of two replicas, installed and run against real shared stores.
		name:             "values-ha.yaml",
		release:          "tcs-ha",
		namespace:        "tcs-ha",
		file:             "values-ha.yaml",
		serviceNamespace: "tcs-ha",
		wantArgs: []string{"run", "--namespace=tcs-ha", "--leader-elect", "--leader-elect-lease-duration=15s",
			"--leader-elect-renew-deadline=10s", "--leader-elect-retry-period=2s",
			"--store=s3://tcs-transcripts?endpoint=https://s3.example.org&region=us-east-1&use_path_style=true"},
		wantEnv: map[string]string{
			"TCS_REDIS_URL":         "tcs-redis/url",
			"TCS_RESULTS_DSN":       "tcs-results/dsn",
			"AWS_ACCESS_KEY_ID":     "tcs-s3/AWS_ACCESS_KEY_ID",
			"AWS_SECRET_ACCESS_KEY": "tcs-s3/AWS_SECRET_ACCESS_KEY",
		},
		ha:           &haWant{replicas: 2, minAvailable: "1", antiAffinity: "hard", topologyKey: "kubernetes.io/hostname"},
		install:      true,
		sharedStores: true,
	},
}

// chartDir returns the chart's directory.
func chartDir() string { return filepath.Join(testenv.Root(), "charts", "tcs") }

// helmPath returns $TCS_HELM; it skips t when TCS_HELM is unset.
func helmPath(t *testing.T) string {
	t.Helper()
	h := os.Getenv("TCS_HELM")
	if h == "" {
		t.Skip("TCS_HELM is unset: the chart tests need the Helm CLI; run `make test`, or set TCS_HELM=\"$(hack/helm.sh)\"")
	}
	if st, err := os.Stat(h); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		t.Fatalf("TCS_HELM=%s is not an executable", h)
	}
	return h
}

// runHelm runs the Helm CLI with args, its home (and so kubectl's discovery cache),
// configuration, cache and data in a temporary directory, and returns its standard output.
func runHelm(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(helmPath(t), args...)
	cmd.Env = append(withoutEnv(os.Environ(), "HOME", "KUBECONFIG", "HELM_"),
		"HOME="+home,
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("helm %s: %w\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes(), nil
}

// withoutEnv returns env without the variables whose names start with one of prefixes.
func withoutEnv(env []string, prefixes ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) })
	})
}

// valuesFile writes the values of vs to a file for helm's -f and returns its path.
func valuesFile(t *testing.T, vs valueSet) string {
	t.Helper()
	values := vs.values
	if values == nil {
		values = map[string]any{}
	}
	data, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// valuesArgs returns helm's -f flags of vs: the chart's values file of the set, if any, then
// its values.
func valuesArgs(t *testing.T, vs valueSet) []string {
	t.Helper()
	var args []string
	if vs.file != "" {
		args = append(args, "-f", filepath.Join(chartDir(), vs.file))
	}
	return append(args, "-f", valuesFile(t, vs))
}

// rendered holds the objects `helm template` renders, by kind.
type rendered struct {
	all                 []client.Object
	crds                []*apiextensionsv1.CustomResourceDefinition
	serviceAccounts     []*corev1.ServiceAccount
	clusterRoles        []*rbacv1.ClusterRole
	clusterRoleBindings []*rbacv1.ClusterRoleBinding
	roles               []*rbacv1.Role
	roleBindings        []*rbacv1.RoleBinding
	deployments         []*appsv1.Deployment
	services            []*corev1.Service
	// metricsReaders and metricsServices are the ClusterRole that lets scrapers in and the
	// Service they scrape; monitoring holds the Prometheus Operator's objects.
	metricsReaders []*rbacv1.ClusterRole
	// metricsAuth and metricsAuthBindings let the service review scrapers (metrics.secure).
	metricsAuth         []*rbacv1.ClusterRole
	metricsAuthBindings []*rbacv1.ClusterRoleBinding
	metricsServices     []*corev1.Service
	monitoring          []*unstructured.Unstructured
	ingresses           []*networkingv1.Ingress
	networkPolicies     []*networkingv1.NetworkPolicy
	disruptionBudgets   []*policyv1.PodDisruptionBudget
}

// decoder decodes manifests strictly: an unknown or duplicate field is an error.
var decoder = func() runtime.Decoder {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	return serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
}()

// decodeManifests decodes every YAML document of a multi-document manifest.
func decodeManifests(data []byte) (*rendered, error) {
	r := &rendered{}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return r, nil
		}
		if err != nil {
			return nil, fmt.Errorf("splitting the manifest: %w", err)
		}
		var probe map[string]any
		if err := yaml.Unmarshal(doc, &probe); err != nil {
			return nil, fmt.Errorf("parsing a document: %w\n%s", err, doc)
		}
		if len(probe) == 0 {
			continue // only comments
		}
		if apiVersion, _ := probe["apiVersion"].(string); strings.HasPrefix(apiVersion, "monitoring.coreos.com/") {
			u := &unstructured.Unstructured{Object: probe}
			r.all = append(r.all, u)
			r.monitoring = append(r.monitoring, u)
			continue
		}
		obj, _, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("decoding a document: %w\n%s", err, doc)
		}
		co, ok := obj.(client.Object)
		if !ok {
			return nil, fmt.Errorf("%T is not a Kubernetes object", obj)
		}
		r.all = append(r.all, co)
		switch o := obj.(type) {
		case *apiextensionsv1.CustomResourceDefinition:
			r.crds = append(r.crds, o)
		case *corev1.ServiceAccount:
			r.serviceAccounts = append(r.serviceAccounts, o)
		case *rbacv1.ClusterRole:
			if strings.HasSuffix(o.Name, "-metrics-auth") {
				r.metricsAuth = append(r.metricsAuth, o)
				continue
			}
			if strings.HasSuffix(o.Name, "-metrics-reader") {
				r.metricsReaders = append(r.metricsReaders, o)
				continue
			}
			r.clusterRoles = append(r.clusterRoles, o)
		case *rbacv1.ClusterRoleBinding:
			if strings.HasSuffix(o.Name, "-metrics-auth") {
				r.metricsAuthBindings = append(r.metricsAuthBindings, o)
				continue
			}
			r.clusterRoleBindings = append(r.clusterRoleBindings, o)
		case *rbacv1.Role:
			r.roles = append(r.roles, o)
		case *rbacv1.RoleBinding:
			r.roleBindings = append(r.roleBindings, o)
		case *appsv1.Deployment:
			r.deployments = append(r.deployments, o)
		case *corev1.Service:
			if strings.HasSuffix(o.Name, "-metrics") {
				r.metricsServices = append(r.metricsServices, o)
				continue
			}
			r.services = append(r.services, o)
		case *networkingv1.Ingress:
			r.ingresses = append(r.ingresses, o)
		case *networkingv1.NetworkPolicy:
			r.networkPolicies = append(r.networkPolicies, o)
		case *policyv1.PodDisruptionBudget:
			r.disruptionBudgets = append(r.disruptionBudgets, o)
		default:
			return nil, fmt.Errorf("the chart renders a %T the tests do not know", obj)
		}
	}
}

// render runs `helm template` of vs with the chart's CRDs and decodes the result.
func render(t *testing.T, vs valueSet) *rendered {
	t.Helper()
	out, err := runHelm(t, append([]string{"template", vs.release, chartDir(), "--namespace", vs.namespace, "--include-crds"}, valuesArgs(t, vs)...)...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := decodeManifests(out)
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	// Least privilege: Roles in the service's namespace, nothing cluster-wide.
	if n := []int{len(r.serviceAccounts), len(r.roles), len(r.roleBindings), len(r.clusterRoles), len(r.clusterRoleBindings), len(r.deployments), len(r.services)}; !slices.Equal(n, []int{1, 2, 2, 0, 0, 1, 1}) {
		t.Fatalf("the chart renders %d ServiceAccounts, %d Roles, %d RoleBindings, %d ClusterRoles, %d ClusterRoleBindings, %d Deployments and %d Services, want 1, 2, 2, 0, 0, 1 and 1", n[0], n[1], n[2], n[3], n[4], n[5], n[6])
	}
	if n := []int{len(r.metricsReaders), len(r.metricsServices)}; !slices.Equal(n, []int{1, 1}) {
		t.Fatalf("the chart renders %d metrics-reader ClusterRoles and %d metrics Services, want one of each", n[0], n[1])
	}
	return r
}

// container returns the Deployment's only container.
func container(t *testing.T, d *appsv1.Deployment) *corev1.Container {
	t.Helper()
	if n := len(d.Spec.Template.Spec.Containers); n != 1 {
		t.Fatalf("the Deployment has %d containers, want 1", n)
	}
	return &d.Spec.Template.Spec.Containers[0]
}

// containerPort returns the number of c's port that p names (by name or number), or 0.
func containerPort(c *corev1.Container, p intstr.IntOrString) int32 {
	for _, cp := range c.Ports {
		if (p.Type == intstr.String && cp.Name == p.StrVal) || (p.Type == intstr.Int && cp.ContainerPort == p.IntVal) {
			return cp.ContainerPort
		}
	}
	return 0
}

// firstDifference describes where the YAML forms of got and want first differ.
func firstDifference(got, want any) string {
	g, err1 := yaml.Marshal(got)
	w, err2 := yaml.Marshal(want)
	if err := errors.Join(err1, err2); err != nil {
		return err.Error()
	}
	gl, wl := strings.Split(string(g), "\n"), strings.Split(string(w), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var a, b string
		if i < len(gl) {
			a = gl[i]
		}
		if i < len(wl) {
			b = wl[i]
		}
		if a != b {
			from := max(0, i-3)
			return fmt.Sprintf("line %d: chart %q, generated %q; the chart's lines before it:\n%s", i+1, a, b, strings.Join(gl[from:i], "\n"))
		}
	}
	return "no line differs"
}

// TestLint runs `helm lint --strict` on the chart with each value set.
func TestLint(t *testing.T) {
	helmPath(t)
	for _, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			out, err := runHelm(t, append([]string{"lint", "--strict", chartDir(), "--namespace", vs.namespace}, valuesArgs(t, vs)...)...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), "1 chart(s) linted, 0 chart(s) failed") {
				t.Fatalf("helm lint did not report the chart as passing:\n%s", out)
			}
		})
	}
}

// TestValuesSchema checks that the chart refuses values its schema does not allow, naming
// the offending value, rather than ignoring a misspelt one.
func TestValuesSchema(t *testing.T) {
	helmPath(t)
	for _, tc := range []struct {
		name   string
		values map[string]any
		want   string // in helm's error
	}{
		{"misspelt AI value", map[string]any{"ai": map[string]any{"modle": "llama3.1"}}, "modle"},
		{"unknown top-level value", map[string]any{"replica": 2}, "replica"},
		{"replicas not a number", map[string]any{"replicas": "two"}, "replicas"},
		{"unknown AI provider", map[string]any{"ai": map[string]any{"provider": "gpt"}}, "provider"},
		{"base URL without a scheme", map[string]any{"ai": map[string]any{"baseURL": "ollama:11434/v1"}}, "baseURL"},
		{"public URL without a scheme", map[string]any{"publicURL": "tcs.example.org"}, "publicURL"},
		{"bad pull policy", map[string]any{"image": map[string]any{"repository": "tcs", "tag": "v1", "pullPolicy": "Sometimes"}}, "pullPolicy"},
		{"CIDRs not a list", map[string]any{"outboundAllowCIDRs": "10.0.0.0/8"}, "outboundAllowCIDRs"},
		{"service port out of range", map[string]any{"service": map[string]any{"port": 70000}}, "port"},
		{"misspelt ServiceMonitor value", map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"enable": true}}}, "enable"},
		{"metrics.secure not a boolean", map[string]any{"metrics": map[string]any{"secure": "yes"}}, "secure"},
		{"scrape interval not a duration", map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"interval": "often"}}}, "interval"},
		{"misspelt ingress value", map[string]any{"ingress": map[string]any{"enable": true}}, "enable"},
		{"ingress host with a scheme", map[string]any{"ingress": map[string]any{"host": "https://tcs.example.org"}}, "host"},
		{"misspelt NetworkPolicy value", map[string]any{"networkPolicy": map[string]any{"enable": false}}, "enable"},
		{"audit retention not a duration", map[string]any{"auditRetention": "400 days"}, "auditRetention"},
		{"lease duration not a duration", map[string]any{"leaderElection": map[string]any{"leaseDuration": "15"}}, "leaseDuration"},
		{"minAvailable neither a count nor a percentage", map[string]any{"podDisruptionBudget": map[string]any{"enabled": true, "minAvailable": "half"}}, "minAvailable"},
		{"unknown anti-affinity", map[string]any{"podAntiAffinity": map[string]any{"type": "strict"}}, "type"},
		{"misspelt PodDisruptionBudget value", map[string]any{"podDisruptionBudget": map[string]any{"enable": true}}, "enable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := valueSet{name: tc.name, release: "tcs", namespace: "tcs", values: tc.values}
			out, err := runHelm(t, "template", vs.release, chartDir(), "--namespace", vs.namespace, "-f", valuesFile(t, vs))
			if err == nil {
				t.Fatalf("helm template accepted %v:\n%.300s", tc.values, out)
			}
			if !strings.Contains(err.Error(), "values don't meet the specifications of the schema") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("helm template refused %v without naming %q: %v", tc.values, tc.want, err)
			}
		})
	}
}

// TestServiceMonitorVerifiesTLS checks that a ServiceMonitor of metrics served over https is
// refused without the CA of the server's certificate, unless insecureSkipVerify opts out.
func TestServiceMonitorVerifiesTLS(t *testing.T) {
	helmPath(t)
	monitor := func(tlsConfig map[string]any) valueSet {
		return valueSet{name: "monitor", release: "tcs", namespace: "tcs", values: map[string]any{
			"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true, "tlsConfig": tlsConfig}}}}
	}
	vs := monitor(map[string]any{})
	if out, err := runHelm(t, "template", vs.release, chartDir(), "--namespace", vs.namespace, "-f", valuesFile(t, vs)); err == nil || !strings.Contains(err.Error(), "insecureSkipVerify") {
		t.Fatalf("a ServiceMonitor without a CA rendered (%v):\n%.300s", err, out)
	}
	r := render(t, monitor(map[string]any{"insecureSkipVerify": true}))
	eps, _, _ := unstructured.NestedSlice(r.monitoring[0].Object, "spec", "endpoints")
	if skip, _, _ := unstructured.NestedBool(eps[0].(map[string]any), "tlsConfig", "insecureSkipVerify"); !skip {
		t.Errorf("insecureSkipVerify: true, the explicit opt-in, was not rendered: %v", eps)
	}
}

// TestTemplate renders the chart with each value set and checks the objects against the
// generated CRDs and RBAC, against each other, and against the values.
// TestImage checks that the chart's default image is the one `make docker-build` builds, and
// that the values table of its README is generated from values.schema.json and values.yaml.
func TestImage(t *testing.T) {
	helmPath(t)
	img, err := testenv.DefaultImage()
	if err != nil {
		t.Fatal(err)
	}
	chart, err := os.ReadFile(filepath.Join(chartDir(), "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal(chart, &meta); err != nil {
		t.Fatal(err)
	}
	if want := "tcs:" + meta.AppVersion; img != want {
		t.Errorf("make docker-build builds %s, want %s (the chart's appVersion)", img, want)
	}
	r := render(t, valueSets[0])
	if got := container(t, r.deployments[0]).Image; got != img {
		t.Errorf("the chart's default image is %s, make docker-build builds %s", got, img)
	}
	// A tag given wins.
	vs := valueSets[0]
	vs.values = map[string]any{"image": map[string]any{"repository": "registry.example.org/tcs", "tag": "v9"}}
	if got := container(t, render(t, vs).deployments[0]).Image; got != "registry.example.org/tcs:v9" {
		t.Errorf("with image values the chart runs %s", got)
	}
}

// TestValuesReadme checks that charts/tcs/README.md documents every value of the schema, with
// its description and its default, and nothing else (`make chart-docs` writes it).
func TestValuesReadme(t *testing.T) {
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(chartDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	values, err := chartdoc.Values(read("values.schema.json"), read("values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	readme := read("README.md")
	want, err := chartdoc.Update(readme, chartdoc.Table(values))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readme, want) {
		t.Errorf("charts/tcs/README.md's values table is not current; run `make chart-docs`")
	}
	if len(values) < 10 {
		t.Errorf("only %d values documented", len(values))
	}
}

func TestTemplate(t *testing.T) {
	helmPath(t)
	generated, err := crd.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	// The Roles `make manifests` generates (the manager's) and config/ holds (leader election).
	configRoles := map[string]*rbacv1.Role{}
	for _, f := range []string{"role.yaml", "leader_election_role.yaml"} {
		data, err := os.ReadFile(filepath.Join(testenv.Root(), "config", "rbac", f))
		if err != nil {
			t.Fatal(err)
		}
		var role rbacv1.Role
		if err := yaml.UnmarshalStrict(data, &role); err != nil {
			t.Fatalf("config/rbac/%s: %v", f, err)
		}
		if role.Kind != "Role" || len(role.Rules) == 0 {
			t.Fatalf("config/rbac/%s is a %s with %d rules, want a namespaced Role with rules", f, role.Kind, len(role.Rules))
		}
		configRoles[f] = &role
	}

	for _, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			r := render(t, vs)

			// The chart ships exactly the CRDs `make manifests` generates.
			chartCRDs := map[string]*apiextensionsv1.CustomResourceDefinition{}
			for _, c := range r.crds {
				chartCRDs[c.Name] = c
			}
			if len(chartCRDs) != len(generated) {
				t.Errorf("the chart ships %d CRDs, config/crd/bases holds %d", len(chartCRDs), len(generated))
			}
			for _, want := range generated {
				got, ok := chartCRDs[want.Name]
				switch {
				case !ok:
					t.Errorf("the chart does not ship CRD %s", want.Name)
				case !equality.Semantic.DeepEqual(got, want):
					t.Errorf("CRD %s differs from config/crd/bases (run `make manifests`): %s", want.Name, firstDifference(got, want))
				}
			}

			// Its Roles grant exactly the rules of config/rbac, in the service's namespace, to the
			// ServiceAccount the pods run as, in the release's namespace.
			d, sa := r.deployments[0], r.serviceAccounts[0]
			if d.Spec.Template.Spec.ServiceAccountName != sa.Name {
				t.Errorf("the pods run as ServiceAccount %q, the chart creates %q", d.Spec.Template.Spec.ServiceAccountName, sa.Name)
			}
			roles := map[string]*rbacv1.Role{}
			for _, role := range r.roles {
				roles[role.Name] = role
			}
			for name, f := range map[string]string{vs.release + "-manager": "role.yaml", vs.release + "-leader-election": "leader_election_role.yaml"} {
				role, ok := roles[name]
				if !ok {
					t.Errorf("the chart renders no Role %s", name)
					continue
				}
				if !reflect.DeepEqual(role.Rules, configRoles[f].Rules) {
					t.Errorf("Role %s's rules differ from config/rbac/%s (run `make manifests`): %s", name, f, firstDifference(role.Rules, configRoles[f].Rules))
				}
			}
			wantSubject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: vs.namespace}
			var bound []string
			for _, b := range r.roleBindings {
				if _, ok := roles[b.RoleRef.Name]; !ok || b.RoleRef.Kind != "Role" || b.RoleRef.APIGroup != rbacv1.GroupName {
					t.Errorf("RoleBinding %s refers to %+v, not a Role of the chart", b.Name, b.RoleRef)
				}
				if !slices.Equal(b.Subjects, []rbacv1.Subject{wantSubject}) {
					t.Errorf("RoleBinding %s binds %+v, want %+v", b.Name, b.Subjects, wantSubject)
				}
				bound = append(bound, b.RoleRef.Name)
			}
			slices.Sort(bound)
			if want := []string{vs.release + "-leader-election", vs.release + "-manager"}; !slices.Equal(bound, want) {
				t.Errorf("the RoleBindings bind %v, want %v", bound, want)
			}

			// Namespaced objects name the release's namespace, so that `helm template | kubectl
			// apply` puts them where the binding's subject points, except the Roles and their
			// bindings, which name the service's; cluster-scoped ones name none.
			for _, o := range r.all {
				kind := reflect.TypeOf(o).Elem().Name()
				want := vs.namespace
				switch kind {
				case "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding":
					want = ""
				case "Role", "RoleBinding":
					want = vs.serviceNamespace
				}
				if o.GetNamespace() != want {
					t.Errorf("%s %s has namespace %q, want %q", kind, o.GetName(), o.GetNamespace(), want)
				}
				if kind != "CustomResourceDefinition" && !strings.HasPrefix(o.GetName(), vs.release) {
					t.Errorf("%s %s is not named after the release %s: two releases would collide", kind, o.GetName(), vs.release)
				}
			}

			// The Deployment carries the values as flags and Secret references.
			c := container(t, d)
			for _, a := range vs.wantArgs {
				if !slices.Contains(c.Args, a) {
					t.Errorf("the container's args %q lack %q", c.Args, a)
				}
			}
			gotEnv := map[string]string{}
			for _, e := range c.Env {
				if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
					t.Errorf("env %s is not taken from a Secret", e.Name)
					continue
				}
				gotEnv[e.Name] = e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
			}
			if !reflect.DeepEqual(gotEnv, vs.wantEnv) {
				t.Errorf("the container's env is %v, want %v", gotEnv, vs.wantEnv)
			}

			// Selectors match the pods, and the Service and the probes reach declared ports.
			labels := d.Spec.Template.Labels
			for k, v := range d.Spec.Selector.MatchLabels {
				if labels[k] != v {
					t.Errorf("the Deployment's selector %s=%s does not match its pods' labels %v", k, v, labels)
				}
			}
			svc := r.services[0]
			for k, v := range svc.Spec.Selector {
				if labels[k] != v {
					t.Errorf("the Service's selector %s=%s does not match the pods' labels %v", k, v, labels)
				}
			}
			for _, p := range svc.Spec.Ports {
				if containerPort(c, p.TargetPort) == 0 {
					t.Errorf("the Service's port %s targets %s, which the container does not declare", p.Name, p.TargetPort.String())
				}
			}
			// An Ingress, when enabled, routes the host of the public URL to the Service.
			wantIngress := 0
			if ing, _ := vs.values["ingress"].(map[string]any); ing["enabled"] == true {
				wantIngress = 1
			}
			if len(r.ingresses) != wantIngress {
				t.Errorf("the chart renders %d Ingresses, want %d", len(r.ingresses), wantIngress)
			}
			for _, ing := range r.ingresses {
				public, _ := vs.values["publicURL"].(string)
				host := strings.TrimPrefix(strings.TrimPrefix(public, "https://"), "http://")
				if len(ing.Spec.Rules) != 1 || ing.Spec.Rules[0].Host != host || ing.Spec.Rules[0].HTTP == nil || len(ing.Spec.Rules[0].HTTP.Paths) != 1 {
					t.Fatalf("Ingress %s has rules %+v, want one for host %q", ing.Name, ing.Spec.Rules, host)
				}
				backend := ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service
				if backend == nil || backend.Name != svc.Name || !slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == backend.Port.Name }) {
					t.Errorf("Ingress %s routes to %+v, not to a port of Service %s", ing.Name, backend, svc.Name)
				}
				if len(ing.Spec.TLS) != 1 || ing.Spec.TLS[0].SecretName != "tcs-tls" || !slices.Equal(ing.Spec.TLS[0].Hosts, []string{host}) {
					t.Errorf("Ingress %s has TLS %+v", ing.Name, ing.Spec.TLS)
				}
			}
			for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
				switch {
				case p == nil || p.HTTPGet == nil:
					t.Errorf("the container has no HTTP %s probe", name)
				case containerPort(c, p.HTTPGet.Port) == 0:
					t.Errorf("the %s probe's port %s is not one the container declares", name, p.HTTPGet.Port.String())
				}
			}
			checkMetrics(t, vs, r)
			checkHA(t, vs, r)
			checkNetworkPolicy(t, vs, r, false)
			checkResources(t, c)
		})
	}
}

// checkResources checks that the container has requests and limits, so that it is neither
// starved on a busy node nor able to take a node's memory.
func checkResources(t *testing.T, c *corev1.Container) {
	t.Helper()
	r := c.Resources
	if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() {
		t.Errorf("the container's resources %+v lack a CPU or memory request or a memory limit", r)
	}
}

// privateRanges are the ranges the NetworkPolicy must keep out of its egress to the internet.
var privateRanges = []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10", "127.0.0.0/8"}

// checkNetworkPolicy checks the chart's NetworkPolicy for vs: it selects the pods, lets in the
// API and the metrics ports only, and lets out DNS, the kube-apiserver (looked up when
// installed, else its ports) and the internet without the private ranges, plus the
// outboundAllowCIDRs and extraEgress of the values.
func checkNetworkPolicy(t *testing.T, vs valueSet, r *rendered, installed bool) {
	t.Helper()
	np, _ := vs.values["networkPolicy"].(map[string]any)
	if np["enabled"] == false {
		if len(r.networkPolicies) != 0 {
			t.Errorf("networkPolicy.enabled is false, the chart renders %d NetworkPolicies", len(r.networkPolicies))
		}
		return
	}
	if len(r.networkPolicies) != 1 {
		t.Fatalf("the chart renders %d NetworkPolicies, want 1 by default", len(r.networkPolicies))
	}
	p := r.networkPolicies[0]
	d := r.deployments[0]
	c := container(t, d)
	if !labels.SelectorFromSet(p.Spec.PodSelector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) || len(p.Spec.PodSelector.MatchLabels) == 0 {
		t.Errorf("the NetworkPolicy selects %v, not the pods %v", p.Spec.PodSelector.MatchLabels, d.Spec.Template.Labels)
	}
	if !slices.Equal(p.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}) {
		t.Errorf("the NetworkPolicy's types are %v, want Ingress and Egress", p.Spec.PolicyTypes)
	}
	var in []int32
	for _, rule := range p.Spec.Ingress {
		for _, port := range rule.Ports {
			in = append(in, containerPort(c, *port.Port))
		}
	}
	if slices.Sort(in); !slices.Equal(in, []int32{8080, 8081}) {
		t.Errorf("the NetworkPolicy lets in ports %v, want the API's and the metrics' [8080 8081]", in)
	}

	var dns, internet, apiServer, allowed bool
	for _, rule := range p.Spec.Egress {
		var ports []int32
		for _, port := range rule.Ports {
			ports = append(ports, port.Port.IntVal)
		}
		switch {
		case slices.Equal(ports, []int32{53, 53}):
			dns = len(rule.To) > 0
		case len(ports) > 0 && !slices.Contains(ports, 53) && rule.Ports[0].Port.IntVal != 0 && (slices.Contains(ports, 443) || slices.Contains(ports, 6443)) && len(ports) <= 3:
			apiServer = true
			// Installed, the kube-apiserver's addresses were looked up: only those.
			if installed && len(rule.To) == 0 {
				t.Errorf("installed, the kube-apiserver rule lets ports %v out to any address", ports)
			}
			for _, peer := range rule.To {
				if peer.IPBlock == nil || !strings.HasSuffix(peer.IPBlock.CIDR, "/32") && !strings.HasSuffix(peer.IPBlock.CIDR, "/128") {
					t.Errorf("the kube-apiserver rule lets out to %+v, want single addresses", peer)
				}
			}
		case len(ports) == 0:
			for _, peer := range rule.To {
				if peer.IPBlock == nil {
					continue
				}
				switch peer.IPBlock.CIDR {
				case "0.0.0.0/0":
					internet = true
					for _, private := range privateRanges {
						if !slices.Contains(peer.IPBlock.Except, private) {
							t.Errorf("the egress to the internet does not leave out %s: %v", private, peer.IPBlock.Except)
						}
					}
				case "::/0":
					for _, private := range []string{"fc00::/7", "fe80::/10", "::1/128"} {
						if !slices.Contains(peer.IPBlock.Except, private) {
							t.Errorf("the egress to the IPv6 internet does not leave out %s: %v", private, peer.IPBlock.Except)
						}
					}
				default:
					cidrs, _ := vs.values["outboundAllowCIDRs"].([]any)
					if !slices.Contains(cidrs, any(peer.IPBlock.CIDR)) {
						t.Errorf("the NetworkPolicy lets out to %s, which is no outboundAllowCIDR", peer.IPBlock.CIDR)
					}
					allowed = true
				}
			}
		}
	}
	if !dns || !internet || !apiServer {
		t.Errorf("the NetworkPolicy's egress lacks DNS (%v), the internet (%v) or the kube-apiserver (%v): %+v", dns, internet, apiServer, p.Spec.Egress)
	}
	if cidrs, _ := vs.values["outboundAllowCIDRs"].([]any); len(cidrs) > 0 != allowed {
		t.Errorf("outboundAllowCIDRs %v, egress to them %v", cidrs, allowed)
	}
}
