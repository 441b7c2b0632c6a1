package helm

import (
	"context"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/tooling/testenv"
	"tcs.dev/tcs/internal/tooling/testenv/postgres"
)

// haWant is what a value set for several replicas must render.
type haWant struct {
	replicas int32
	// minAvailable is the PodDisruptionBudget's; empty means none.
	minAvailable string
	// antiAffinity is "hard" (required), "soft" (preferred) or "" (none), over topologyKey.
	antiAffinity, topologyKey string
}

// checkHA checks the replicas, the PodDisruptionBudget and the pod anti-affinity that vs
// renders: for the pods of the release, so that a budget or a spread never counts another's.
func checkHA(t *testing.T, vs valueSet, r *rendered) {
	t.Helper()
	want := vs.ha
	if want == nil {
		want = &haWant{replicas: 1}
	}
	d := r.deployments[0]
	pods := labels.Set(d.Spec.Template.Labels)
	if d.Spec.Replicas == nil || *d.Spec.Replicas != want.replicas {
		t.Errorf("the Deployment has replicas %v, want %d", d.Spec.Replicas, want.replicas)
	}

	switch {
	case want.minAvailable == "" && len(r.disruptionBudgets) != 0:
		t.Errorf("the chart renders %d PodDisruptionBudgets, want none", len(r.disruptionBudgets))
	case want.minAvailable != "" && len(r.disruptionBudgets) != 1:
		t.Errorf("the chart renders %d PodDisruptionBudgets, want 1", len(r.disruptionBudgets))
	case want.minAvailable != "":
		pdb := r.disruptionBudgets[0]
		if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.String() != want.minAvailable || pdb.Spec.MaxUnavailable != nil {
			t.Errorf("the PodDisruptionBudget keeps minAvailable %v (maxUnavailable %v), want minAvailable %s", pdb.Spec.MinAvailable, pdb.Spec.MaxUnavailable, want.minAvailable)
		}
		if !selects(pdb.Spec.Selector.MatchLabels, pods) {
			t.Errorf("the PodDisruptionBudget selects %v, not the pods %v", pdb.Spec.Selector.MatchLabels, pods)
		}
	}

	var anti *corev1.PodAntiAffinity
	if a := d.Spec.Template.Spec.Affinity; a != nil {
		if a.PodAffinity != nil || a.NodeAffinity != nil {
			t.Errorf("the pods have an affinity besides the anti-affinity: %+v", a)
		}
		anti = a.PodAntiAffinity
	}
	var terms []corev1.PodAffinityTerm
	got := ""
	if anti != nil {
		terms = anti.RequiredDuringSchedulingIgnoredDuringExecution
		got = "hard"
		for _, w := range anti.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
			got = "soft"
		}
		if len(anti.RequiredDuringSchedulingIgnoredDuringExecution) > 0 && len(anti.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
			got = "hard and soft"
		}
	}
	if got != want.antiAffinity || len(terms) > 1 {
		t.Fatalf("the pods' anti-affinity is %q with %d terms, want %q with one", got, len(terms), want.antiAffinity)
	}
	for _, term := range terms {
		if term.TopologyKey != want.topologyKey || term.LabelSelector == nil || !selects(term.LabelSelector.MatchLabels, pods) ||
			len(term.LabelSelector.MatchExpressions) > 0 || len(term.Namespaces) > 0 || term.NamespaceSelector != nil {
			t.Errorf("the anti-affinity term %+v does not spread the pods %v over %s", term, pods, want.topologyKey)
		}
	}
}

// selects reports whether a non-empty selector matches the pods' labels.
func selects(selector map[string]string, pods labels.Set) bool {
	return len(selector) > 0 && labels.SelectorFromSet(selector).Matches(pods)
}

// withSharedStores starts a real S3 server, PostgreSQL and Redis for vs and returns vs with
// its store on the S3 server, and the Secrets its values name holding their addresses and
// credentials, as an operator creates them before installing.
func withSharedStores(t *testing.T, vs valueSet) valueSet {
	t.Helper()
	s3srv := testenv.StartS3(t, "tcs-transcripts")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	pg, err := postgres.Start(ctx)
	if err != nil {
		t.Fatalf("starting PostgreSQL: %v", err)
	}
	t.Cleanup(func() {
		if err := pg.Stop(); err != nil {
			t.Errorf("stopping PostgreSQL: %v", err)
		}
	})
	dsn, err := pg.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	redisAddr := testenv.StartRedis(t)

	vs.values = maps.Clone(vs.values)
	if vs.values == nil {
		vs.values = map[string]any{}
	}
	// The file's bucket, at the test's server.
	vs.values["store"] = s3srv.StoreURL()
	vs.secrets = append(vs.secrets,
		secret{namespace: vs.namespace, name: "tcs-s3", data: map[string]string{"AWS_ACCESS_KEY_ID": s3srv.AccessKey, "AWS_SECRET_ACCESS_KEY": s3srv.SecretKey}},
		secret{namespace: vs.namespace, name: "tcs-results", data: map[string]string{"dsn": dsn}},
		secret{namespace: vs.namespace, name: "tcs-redis", data: map[string]string{"url": "redis://" + redisAddr + "/0"}},
	)
	return vs
}

// runStandbys runs the further replicas of d, as its pods would run, once the first (leader)
// serves transcript id: each gets ready, serves the transcript the first made (the stores are
// shared), and stands by, the first replica holding the leader-election Lease.
func runStandbys(t *testing.T, c *cluster, bin string, d *appsv1.Deployment, leader *process, apiKey, id string) []*process {
	t.Helper()
	replicas := int32(1)
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	var standbys []*process
	for i := int32(1); i < replicas; i++ {
		p := emulatePod(t, c, bin, d)
		proc := startProcess(t, bin, p.args, p.env)
		standbys = append(standbys, proc)
		proc.waitFor(t, p.probes["readiness"], 30*time.Second)
		code, body, err := getWithKey(p.url("--listen", "/api/v1/transcripts/"+id), apiKey)
		if err != nil || code != http.StatusOK || !strings.Contains(body, `"status":"completed"`) {
			t.Errorf("replica %d: GET of the transcript the first replica made: %d %s %v", i+1, code, body, err)
		}
	}
	if len(standbys) == 0 {
		return nil
	}
	acquired := func(p *process) bool { return strings.Contains(p.log.String(), `"msg":"Successfully acquired lease"`) }
	if !acquired(leader) {
		t.Errorf("the first replica did not acquire the leader-election lease")
	}
	for i, s := range standbys {
		if acquired(s) {
			t.Errorf("replica %d acquired the leader-election lease the first one holds", i+2)
		}
		if strings.Contains(s.log.String(), "Starting workers") {
			t.Errorf("replica %d, a standby, runs controllers", i+2)
		}
	}
	lease := &coordinationv1.Lease{}
	if err := c.admin.Get(t.Context(), client.ObjectKey{Namespace: d.Namespace, Name: "tcs-manager.tcs.dev"}, lease); err != nil {
		t.Errorf("the leader-election lease: %v", err)
	} else if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("nobody holds the leader-election lease")
	}
	return standbys
}
