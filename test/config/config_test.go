// Package config tests the kustomize manifests under config/ the way the chart is tested:
// rendered with `kubectl kustomize`, checked, and applied server-side to a real kube-apiserver.
package config

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"tcs.dev/tcs/internal/platform/controlplane"
	"tcs.dev/tcs/internal/tooling/testenv"
)

const (
	namespace      = "tcs-system"
	serviceAccount = "system:serviceaccount:tcs-system:tcs-controller-manager"
)

// kubectl returns the kubectl of the local control plane; it fails t when it is missing.
func kubectl(t *testing.T) string {
	t.Helper()
	assets, err := controlplane.FindAssets(testenv.Root())
	if err != nil {
		t.Fatalf("the local control plane is missing (run `make test`, or set KUBEBUILDER_ASSETS=\"$(hack/envtest.sh)\"): %v", err)
	}
	return filepath.Join(assets, "kubectl")
}

// run runs kubectl with args and returns its standard output.
func run(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(kubectl(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECONFIG=/dev/null")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}

// objects is a rendered set of manifests.
type objects []*unstructured.Unstructured

func decode(t *testing.T, data []byte) objects {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out objects
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatal(err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

func (objs objects) ofKind(kind string) objects {
	var out objects
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// one returns the object of kind and name, converted into out.
func (objs objects) one(t *testing.T, kind, name string, out any) bool {
	t.Helper()
	for _, o := range objs.ofKind(kind) {
		if o.GetName() == name {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, out); err != nil {
				t.Fatal(err)
			}
			return true
		}
	}
	return false
}

func convert[T any](t *testing.T, objs objects) []*T {
	t.Helper()
	var out []*T
	for _, o := range objs {
		v := new(T)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// render returns `kubectl kustomize dir`.
func render(t *testing.T, dir string) ([]byte, objects) {
	t.Helper()
	data := run(t, nil, "kustomize", dir)
	return data, decode(t, data)
}

// withOptional copies config/ and enables the optional parts config/default lists commented
// out, as a user would by uncommenting them.
func withOptional(t *testing.T, parts ...string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "config")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(testenv.Root(), "config"))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dst, "default", "kustomization.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		line := "#- ../" + p + "\n"
		if !bytes.Contains(data, []byte(line)) {
			t.Fatalf("config/default/kustomization.yaml has no commented %q to enable", strings.TrimSpace(line))
		}
		data = bytes.Replace(data, []byte(line), []byte("- ../"+p+"\n"), 1)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "default")
}

// checkDefault checks what config/default renders: one namespace and prefix for all, a
// Deployment whose ServiceAccount, Roles and Services fit together, and namespaced RBAC only.
func checkDefault(t *testing.T, objs objects) (*appsv1.Deployment, *corev1.Container) {
	t.Helper()
	for _, o := range objs {
		kind, name := o.GetKind(), o.GetName()
		switch kind {
		case "CustomResourceDefinition":
			continue
		case "Namespace":
			if name != namespace {
				t.Errorf("Namespace %s, want %s", name, namespace)
			}
			continue
		case "ClusterRole", "ClusterRoleBinding":
		default:
			if o.GetNamespace() != namespace {
				t.Errorf("%s %s is in namespace %q, want %s", kind, name, o.GetNamespace(), namespace)
			}
		}
		if !strings.HasPrefix(name, "tcs-") {
			t.Errorf("%s %s lacks the name prefix tcs-", kind, name)
		}
	}
	var crds []string
	for _, o := range objs.ofKind("CustomResourceDefinition") {
		crds = append(crds, o.GetName())
	}
	bases, err := filepath.Glob(filepath.Join(testenv.Root(), "config", "crd", "bases", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) != len(bases) || len(crds) != 5 {
		t.Errorf("CRDs %v, want the %d of config/crd/bases", crds, len(bases))
	}

	deps := convert[appsv1.Deployment](t, objs.ofKind("Deployment"))
	if len(deps) != 1 {
		t.Fatalf("%d Deployments, want 1", len(deps))
	}
	d := deps[0]
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("Deployment %s has %d containers, want 1", d.Name, len(d.Spec.Template.Spec.Containers))
	}
	c := &d.Spec.Template.Spec.Containers[0]
	if !labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("Deployment %s's selector does not match its pods", d.Name)
	}
	var sa corev1.ServiceAccount
	if !objs.one(t, "ServiceAccount", d.Spec.Template.Spec.ServiceAccountName, &sa) {
		t.Errorf("the pods run as ServiceAccount %q, which is not rendered", d.Spec.Template.Spec.ServiceAccountName)
	}
	// The image is the one `make docker-build` builds.
	if img, err := testenv.DefaultImage(); err != nil || c.Image != img {
		t.Errorf("the manager runs image %s, make docker-build builds %s (%v)", c.Image, img, err)
	}
	// The service's namespace is the one it runs in.
	if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
		return e.Name == "TCS_NAMESPACE" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace"
	}) {
		t.Errorf("the container does not take TCS_NAMESPACE from its pod's namespace: %+v", c.Env)
	}

	// Every Service selects the pods and targets one of their ports.
	ports := map[string]bool{}
	for _, p := range c.Ports {
		ports[p.Name] = true
	}
	svcs := convert[corev1.Service](t, objs.ofKind("Service"))
	var svcNames []string
	for _, s := range svcs {
		svcNames = append(svcNames, s.Name)
		if !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Errorf("Service %s does not select the manager's pods", s.Name)
		}
		for _, p := range s.Spec.Ports {
			if !ports[p.TargetPort.String()] {
				t.Errorf("Service %s targets port %s, not a container port of %v", s.Name, p.TargetPort.String(), ports)
			}
		}
	}
	slices.Sort(svcNames)
	if want := []string{"tcs-api", "tcs-controller-manager-metrics-service"}; !slices.Equal(svcNames, want) {
		t.Errorf("Services %v, want %v", svcNames, want)
	}

	// RBAC: bindings in the namespace, each to a rendered Role and the pods' ServiceAccount; the
	// one cluster-wide binding lets the metrics endpoint review scrapers' tokens and access.
	crbs := convert[rbacv1.ClusterRoleBinding](t, objs.ofKind("ClusterRoleBinding"))
	if len(crbs) != 1 || crbs[0].Name != "tcs-metrics-auth-rolebinding" {
		t.Fatalf("ClusterRoleBindings %v, want only tcs-metrics-auth-rolebinding", crbs)
	}
	var auth rbacv1.ClusterRole
	if crbs[0].RoleRef.Kind != "ClusterRole" || !objs.one(t, "ClusterRole", crbs[0].RoleRef.Name, &auth) {
		t.Errorf("ClusterRoleBinding %s refers to %+v, not a rendered ClusterRole", crbs[0].Name, crbs[0].RoleRef)
	}
	if want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa.Name, Namespace: namespace}}; !slices.Equal(crbs[0].Subjects, want) {
		t.Errorf("ClusterRoleBinding %s binds %+v, want %+v", crbs[0].Name, crbs[0].Subjects, want)
	}
	for _, r := range auth.Rules {
		if !slices.Equal(r.Verbs, []string{"create"}) || !slices.Contains([]string{"tokenreviews", "subjectaccessreviews"}, strings.Join(r.Resources, ",")) {
			t.Errorf("the metrics-auth ClusterRole grants %+v, more than reviewing tokens and access", r)
		}
	}
	var bound []string
	for _, b := range convert[rbacv1.RoleBinding](t, objs.ofKind("RoleBinding")) {
		var role rbacv1.Role
		if b.RoleRef.Kind != "Role" || !objs.one(t, "Role", b.RoleRef.Name, &role) {
			t.Errorf("RoleBinding %s refers to %+v, not a rendered Role", b.Name, b.RoleRef)
		}
		if want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa.Name, Namespace: namespace}}; !slices.Equal(b.Subjects, want) {
			t.Errorf("RoleBinding %s binds %+v, want %+v", b.Name, b.Subjects, want)
		}
		bound = append(bound, b.RoleRef.Name)
	}
	slices.Sort(bound)
	if want := []string{"tcs-leader-election-role", "tcs-manager-role"}; !slices.Equal(bound, want) {
		t.Errorf("bound Roles %v, want %v", bound, want)
	}
	// The manager Role is the one controller-gen generates.
	var generated, rendered rbacv1.Role
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, &generated); err != nil {
		t.Fatalf("config/rbac/role.yaml: %v", err)
	}
	objs.one(t, "Role", "tcs-manager-role", &rendered)
	if generated.Kind != "Role" || !slices.EqualFunc(generated.Rules, rendered.Rules, func(a, b rbacv1.PolicyRule) bool {
		return slices.Equal(a.APIGroups, b.APIGroups) && slices.Equal(a.Resources, b.Resources) && slices.Equal(a.Verbs, b.Verbs)
	}) {
		t.Errorf("the rendered manager Role differs from the generated %s %s", generated.Kind, generated.Name)
	}
	return d, c
}

// TestDefault renders config/default, checks it, applies it and the samples server-side to
// a real kube-apiserver, and checks that its ServiceAccount may do exactly what the service
// needs: its own namespace, nothing elsewhere.
func TestDefault(t *testing.T) {
	data, objs := render(t, filepath.Join(testenv.Root(), "config", "default"))
	checkDefault(t, objs)

	assets, err := controlplane.FindAssets(testenv.Root())
	if err != nil {
		t.Fatal(err)
	}
	cp, err := controlplane.Start(controlplane.Options{AssetsDir: assets, AttachOutput: os.Getenv("TCS_TEST_ATTACH") != ""})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	})
	kubeconfig := filepath.Join(t.TempDir(), "admin.kubeconfig")
	if err := os.WriteFile(kubeconfig, cp.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	apply := func(data []byte, extra ...string) string {
		args := append([]string{"--kubeconfig", kubeconfig, "apply", "--server-side", "--field-manager=tcs-config-test", "-f", "-"}, extra...)
		return string(run(t, data, args...))
	}
	out := apply(data)
	for _, o := range objs {
		if !regexp.MustCompile(`(?m)` + regexp.QuoteMeta(strings.ToLower(o.GetKind())) + `[a-z0-9.]*/` + regexp.QuoteMeta(o.GetName()) + ` serverside-applied$`).MatchString(out) {
			t.Errorf("%s %s was not applied:\n%s", o.GetKind(), o.GetName(), out)
		}
	}
	run(t, nil, "--kubeconfig", kubeconfig, "wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")

	t.Run("samples", func(t *testing.T) {
		data, objs := render(t, filepath.Join(testenv.Root(), "config", "samples"))
		out := apply(data, "--namespace", namespace)
		if n := strings.Count(out, "serverside-applied"); n != len(objs) {
			t.Errorf("%d of %d samples applied:\n%s", n, len(objs), out)
		}
		// Applied as written: the API server kept every field (no unknown field was pruned).
		for _, o := range objs {
			got := run(t, nil, "--kubeconfig", kubeconfig, "get", "-n", namespace, strings.ToLower(o.GetKind()), o.GetName(), "-o", "json")
			live := decode(t, got)[0]
			want, _, _ := unstructured.NestedMap(o.Object, "spec")
			have, _, _ := unstructured.NestedMap(live.Object, "spec")
			if d := diffSpec(want, have); d != "" {
				t.Errorf("%s %s: the live spec lost %s", o.GetKind(), o.GetName(), d)
			}
		}
	})

	t.Run("least privilege", func(t *testing.T) {
		cs, err := kubernetes.NewForConfig(cp.Config)
		if err != nil {
			t.Fatal(err)
		}
		// Namespaces other than the service's exist, so that a denial is about RBAC.
		for _, ns := range []string{"other"} {
			if _, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		checkAccess(t, cs, serviceAccount, namespace)
	})

	t.Run("optional parts", func(t *testing.T) {
		_, objs := render(t, withOptional(t, "prometheus", "network-policy"))
		_, c := checkDefault(t, objs)
		var d appsv1.Deployment
		objs.one(t, "Deployment", "tcs-controller-manager", &d)
		var metrics corev1.Service
		if !objs.one(t, "Service", "tcs-controller-manager-metrics-service", &metrics) {
			t.Fatal("no metrics Service")
		}
		// The ServiceMonitor scrapes the metrics Service's port.
		monitors := objs.ofKind("ServiceMonitor")
		if len(monitors) != 1 || monitors[0].GetNamespace() != namespace || monitors[0].GetName() != "tcs-controller-manager-metrics-monitor" {
			t.Fatalf("ServiceMonitors %v, want tcs-controller-manager-metrics-monitor in %s", monitors, namespace)
		}
		sel, _, _ := unstructured.NestedStringMap(monitors[0].Object, "spec", "selector", "matchLabels")
		if !labels.SelectorFromSet(sel).Matches(labels.Set(metrics.Labels)) {
			t.Errorf("the ServiceMonitor selects %v, the metrics Service is labelled %v", sel, metrics.Labels)
		}
		endpoints, _, _ := unstructured.NestedSlice(monitors[0].Object, "spec", "endpoints")
		if len(endpoints) != 1 || endpoints[0].(map[string]any)["port"] != metrics.Spec.Ports[0].Name {
			t.Errorf("the ServiceMonitor's endpoints %v do not scrape port %s", endpoints, metrics.Spec.Ports[0].Name)
		}
		// It verifies the metrics server's certificate, for the Service's own name.
		if len(endpoints) == 1 {
			tls, _, _ := unstructured.NestedMap(endpoints[0].(map[string]any), "tlsConfig")
			want := metrics.Name + "." + namespace + ".svc"
			if skip, _ := tls["insecureSkipVerify"].(bool); skip || tls["ca"] == nil || tls["serverName"] != want {
				t.Errorf("the ServiceMonitor's tlsConfig %v: want a ca, serverName %s and no insecureSkipVerify", tls, want)
			}
		}
		// Together, the NetworkPolicies open the API and the metrics port of the manager's pods
		// and nothing else.
		open := map[int32]bool{}
		for _, np := range convert[networkingv1.NetworkPolicy](t, objs.ofKind("NetworkPolicy")) {
			if !labels.SelectorFromSet(np.Spec.PodSelector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
				t.Errorf("NetworkPolicy %s does not select the manager's pods", np.Name)
			}
			for _, rule := range np.Spec.Ingress {
				for _, p := range rule.Ports {
					open[p.Port.IntVal] = true
				}
			}
		}
		want := map[int32]bool{}
		for _, p := range c.Ports {
			if p.Name == "http" || p.Name == "metrics" {
				want[p.ContainerPort] = true
			}
		}
		if len(want) != 2 || !maps.Equal(open, want) {
			t.Errorf("NetworkPolicies open ports %v, want the API's and the metrics' %v", open, want)
		}
		// Their egress leaves the private ranges out of the internet, as the chart's does.
		var internet bool
		for _, np := range convert[networkingv1.NetworkPolicy](t, objs.ofKind("NetworkPolicy")) {
			for _, rule := range np.Spec.Egress {
				for _, peer := range rule.To {
					if peer.IPBlock != nil && peer.IPBlock.CIDR == "0.0.0.0/0" {
						internet = slices.Contains(peer.IPBlock.Except, "10.0.0.0/8") && slices.Contains(peer.IPBlock.Except, "169.254.0.0/16") &&
							slices.Contains(peer.IPBlock.Except, "172.16.0.0/12") && slices.Contains(peer.IPBlock.Except, "192.168.0.0/16")
					}
				}
			}
		}
		if !internet {
			t.Error("no NetworkPolicy lets out to the internet without the private ranges")
		}
		// The NetworkPolicies apply (the ServiceMonitor needs the prometheus-operator's CRD).
		var policies bytes.Buffer
		for _, o := range objs.ofKind("NetworkPolicy") {
			b, err := yaml.Marshal(o.Object)
			if err != nil {
				t.Fatal(err)
			}
			policies.WriteString("---\n")
			policies.Write(b)
		}
		if out := apply(policies.Bytes()); strings.Count(out, "serverside-applied") != 3 {
			t.Errorf("the NetworkPolicies did not apply:\n%s", out)
		}
	})
}

// diffSpec names the first member of want that have lacks or holds differently.
func diffSpec(want, have map[string]any) string {
	for k, w := range want {
		h, ok := have[k]
		if !ok {
			return k
		}
		if wm, ok := w.(map[string]any); ok {
			hm, _ := h.(map[string]any)
			if d := diffSpec(wm, hm); d != "" {
				return k + "." + d
			}
		}
	}
	return ""
}

// access is one question to the authorizer about the service's ServiceAccount.
type access struct {
	verb, group, resource, subresource, namespace string
	allowed                                       bool
}

// checkAccess asks the API server what user may do: everything the service does in its
// namespace, nothing of it in another namespace or cluster-wide.
func checkAccess(t *testing.T, cs kubernetes.Interface, user, ns string) {
	t.Helper()
	var cases []access
	readWrite := []string{"get", "list", "watch", "create", "update"}
	for _, r := range []struct {
		group, resource string
		verbs           []string
	}{
		{"", "secrets", readWrite}, {"tcs.dev", "transcripts", readWrite}, {"tcs.dev", "organizations", readWrite},
		// The API and dashboard write the glossaries, the reconcilers read them from the cache.
		{"tcs.dev", "glossaries", append(readWrite, "delete")},
		// Deliveries are created and then only patched.
		{"tcs.dev", "webhookdeliveries", []string{"get", "list", "watch", "create", "patch"}},
		{"coordination.k8s.io", "leases", readWrite},
	} {
		for _, verb := range r.verbs {
			cases = append(cases,
				access{verb, r.group, r.resource, "", ns, true},
				access{verb, r.group, r.resource, "", "other", false},
				access{verb, r.group, r.resource, "", "", false}) // all namespaces
		}
	}
	// Status is written with merge patches (internal/platform/kube/statuspatch): no update of a status,
	// nor of a whole delivery; a transcript's first status, which the API writes whole
	// (statuspatch.Replace), is the one update, and only in the service's namespace.
	for _, r := range []string{"transcripts", "organizations", "webhookendpoints", "webhookdeliveries"} {
		cases = append(cases,
			access{"patch", "tcs.dev", r, "status", ns, true},
			access{"patch", "tcs.dev", r, "status", "other", false},
			access{"update", "tcs.dev", r, "status", ns, r == "transcripts"},
			access{"update", "tcs.dev", r, "status", "other", false})
	}
	cases = append(cases, access{"update", "tcs.dev", "webhookdeliveries", "", ns, false})
	cases = append(cases,
		access{"list", "tcs.dev", "webhookendpoints", "", ns, true},
		// The dashboard manages the endpoints of its organizations, in the service's namespace only.
		access{"create", "tcs.dev", "webhookendpoints", "", ns, true},
		access{"create", "tcs.dev", "webhookendpoints", "", "other", false},
		access{"delete", "", "secrets", "", ns, true},
		access{"delete", "", "secrets", "", "kube-system", false},
		access{"create", "", "events", "", ns, true},
		access{"create", "", "events", "", "other", false},
		access{"list", "", "pods", "", ns, false},
		access{"list", "", "namespaces", "", "", false},
		// The metrics endpoint reviews scrapers' tokens and access, and may do nothing else
		// cluster-wide.
		access{"create", "authentication.k8s.io", "tokenreviews", "", "", true},
		access{"create", "authorization.k8s.io", "subjectaccessreviews", "", "", true},
		access{"list", "authentication.k8s.io", "tokenreviews", "", "", false},
		access{"create", "events.k8s.io", "events", "", ns, true},
		access{"create", "events.k8s.io", "events", "", "other", false},
		access{"list", "apiextensions.k8s.io", "customresourcedefinitions", "", "", false},
	)
	for _, a := range cases {
		review, err := cs.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{
				User:   user,
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
				ResourceAttributes: &authorizationv1.ResourceAttributes{
					Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Namespace: a.namespace,
				},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if review.Status.Allowed != a.allowed {
			where := "in all namespaces"
			if a.namespace != "" {
				where = "in " + a.namespace
			}
			t.Errorf("%s may %s %s.%s/%s %s: %v, want %v", user, a.verb, a.resource, a.group, a.subresource, where, review.Status.Allowed, a.allowed)
		}
	}
}

// TestSamples checks that config/samples has one sample of every kind, that PROJECT lists
// exactly those kinds, and that it marks a controller for exactly the kinds a reconciler is
// built for.
func TestSamples(t *testing.T) {
	_, objs := render(t, filepath.Join(testenv.Root(), "config", "samples"))
	var sampled []string
	for _, o := range objs {
		if o.GetNamespace() != "" {
			t.Errorf("sample %s %s names namespace %s; samples are applied with -n", o.GetKind(), o.GetName(), o.GetNamespace())
		}
		sampled = append(sampled, o.GetKind())
	}
	slices.Sort(sampled)

	var crdKinds []string
	bases, err := filepath.Glob(filepath.Join(testenv.Root(), "config", "crd", "bases", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bases {
		data, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Names struct{ Kind string } `json:"names"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatal(err)
		}
		crdKinds = append(crdKinds, crd.Spec.Names.Kind)
	}
	slices.Sort(crdKinds)
	if !slices.Equal(sampled, crdKinds) {
		t.Errorf("samples of %v, the CRDs are %v", sampled, crdKinds)
	}

	data, err := os.ReadFile(filepath.Join(testenv.Root(), "PROJECT"))
	if err != nil {
		t.Fatal(err)
	}
	var project struct {
		Layout    []string `json:"layout"`
		Resources []struct {
			Kind       string `json:"kind"`
			Controller bool   `json:"controller"`
			Version    string `json:"version"`
			API        *struct {
				Namespaced bool `json:"namespaced"`
			} `json:"api"`
		} `json:"resources"`
	}
	if err := yaml.Unmarshal(data, &project); err != nil {
		t.Fatal(err)
	}
	// The kinds a reconciler is built For, read from the controllers' source.
	reconciled := map[string]bool{}
	files, err := filepath.Glob(filepath.Join(testenv.Root(), "controllers", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	forKind := regexp.MustCompile(`\bFor\(&tcsv1\.([A-Za-z]+)\{\}`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range forKind.FindAllSubmatch(src, -1) {
			reconciled[string(m[1])] = true
		}
	}
	var listed []string
	for _, r := range project.Resources {
		listed = append(listed, r.Kind)
		if r.API == nil || !r.API.Namespaced || r.Version != "v1alpha1" {
			t.Errorf("PROJECT lists %s without a namespaced v1alpha1 API", r.Kind)
		}
		if r.Controller != reconciled[r.Kind] {
			t.Errorf("PROJECT says controller: %v for %s; a reconciler is built for it: %v", r.Controller, r.Kind, reconciled[r.Kind])
		}
	}
	slices.Sort(listed)
	if !slices.Equal(listed, crdKinds) {
		t.Errorf("PROJECT lists %v, the CRDs are %v", listed, crdKinds)
	}
	if !slices.Equal(project.Layout, []string{"go.kubebuilder.io/v4"}) {
		t.Errorf("PROJECT layout %v", project.Layout)
	}
}
