package results

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/tooling/testenv/postgres"
)

// pg is the PostgreSQL server of the package's tests.
var pg *postgres.Server

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, err := postgres.Start(ctx)
	cancel()
	if err != nil {
		// Fail, never skip: the PostgreSQL driver is half of what this package is.
		fmt.Fprintln(os.Stderr, "results tests: starting PostgreSQL:", err)
		os.Exit(1)
	}
	pg = srv
	code := m.Run()
	if err := srv.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "results tests: stopping PostgreSQL:", err)
	}
	os.Exit(code)
}

// driverCase makes a fresh empty database of one driver and returns its DSN.
type driverCase struct {
	name  Driver
	newDB func(t testing.TB) string
}

// drivers are the engines every test runs against.
var drivers = []driverCase{
	{SQLite, func(t testing.TB) string { return "sqlite://" + filepath.Join(t.TempDir(), "state", "results.db") }},
	{Postgres, func(t testing.TB) string {
		dsn, err := pg.NewDatabase(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return dsn
	}},
}

// forEachDriver runs f as a subtest per driver with a fresh store.
func forEachDriver(t *testing.T, f func(t *testing.T, s *Store, dsn string)) {
	for _, d := range drivers {
		t.Run(string(d.name), func(t *testing.T) {
			dsn := d.newDB(t)
			s := openStore(t, dsn)
			if s.Driver() != d.name {
				t.Fatalf("Open(%q) chose driver %s, want %s", dsn, s.Driver(), d.name)
			}
			f(t, s, dsn)
		})
	}
}

func openStore(t testing.TB, dsn string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open(%q): %v", dsn, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// base is the creation time of the test transcripts.
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// transcript returns a finished transcript with every part of the status the API shows.
func transcript(n int, org string, created time.Time, phase tcsv1.Phase, source tcsv1.SourceType) *tcsv1.Transcript {
	id := fmt.Sprintf("tr_%08d", n)
	at := metav1.NewTime(created.Add(3 * time.Second))
	t := &tcsv1.Transcript{
		ObjectMeta: metav1.ObjectMeta{
			Name: tcsv1.TranscriptName(id), Namespace: "tcs", UID: types.UID("uid-" + strconv.Itoa(n)), ResourceVersion: strconv.Itoa(1000 + n),
			CreationTimestamp: metav1.NewTime(created),
			Labels:            map[string]string{tcsv1.LabelOrganization: org},
			ManagedFields:     []metav1.ManagedFieldsEntry{{Manager: "tcs", Operation: metav1.ManagedFieldsOperationUpdate}},
		},
		Spec: tcsv1.TranscriptSpec{
			ID: id, Organization: org,
			Source:  tcsv1.TranscriptSource{Type: source, Title: "Sermon " + strconv.Itoa(n), InputRef: "input/" + org + "/" + id},
			Options: tcsv1.TranscriptOptions{AIPass: tcsv1.AIPassOptions{Enabled: true, Apply: n%2 == 0}, Language: "en"},
		},
		Status: tcsv1.TranscriptStatus{
			Phase: phase, AIPassStatus: tcsv1.AIPassCompleted, Title: "Sermon " + strconv.Itoa(n), Format: "txt",
			Jobs: []tcsv1.Job{
				{ID: "job_c" + strconv.Itoa(n), Type: tcsv1.JobCorrection, State: tcsv1.JobSucceeded, Progress: 100, CreatedAt: metav1.NewTime(created), StartedAt: &at, FinishedAt: &at},
				{ID: "job_a" + strconv.Itoa(n), Type: tcsv1.JobAIPass, State: tcsv1.JobSucceeded, Progress: 100, CreatedAt: at},
			},
			ChangesSummary: &tcsv1.ChangesSummary{Total: n % 7, AutoApplied: n % 5, NeedsReview: 1, AIFlagged: 1, ByCategory: map[string]int{"bible": n % 7}},
			ContentRef:     "content/" + org + "/" + id,
			ChangesRef:     "changes/" + org + "/" + id,
			AIPass: &tcsv1.AIPassResult{JobID: "job_a" + strconv.Itoa(n), Provider: "rules", Model: "rules-v1", Confirmed: 2, Rejected: 1,
				Usage: &tcsv1.TokenUsage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, Requests: 1}, StartedAt: &at, FinishedAt: &at},
			EmittedEvents:      []tcsv1.EmittedEvent{{Type: tcsv1.EventTranscriptCompleted, Time: at, State: &tcsv1.EventState{Phase: phase, Jobs: 1}}},
			ObservedGeneration: 1,
			Conditions:         []metav1.Condition{{Type: tcsv1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Completed", LastTransitionTime: at, ObservedGeneration: 1}},
		},
	}
	if phase == tcsv1.PhaseFailed {
		t.Status.Error = &tcsv1.TranscriptError{Type: "unprocessable", Message: "no text"}
	} else {
		t.Status.CompletedAt = &at
	}
	return t
}
