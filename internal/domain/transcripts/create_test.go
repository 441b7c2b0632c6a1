package transcripts

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// files is an object store of upload files by key, holding their sizes.
type files map[string]int64

func (f files) Size(_ context.Context, key string) (int64, error) {
	size, ok := f[key]
	if !ok {
		return 0, blob.ErrNotFound
	}
	return size, nil
}

const orgA, orgB = "org_a", "org_b"

// newService returns a service over a fresh namespace of the control plane and its files.
func newService(t *testing.T) (*Service, files) {
	t.Helper()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	f := files{}
	return &Service{Namespace: env.Namespace(t, "transcripts"), APIReader: c, Client: c, Files: f}, f
}

// newID returns a fresh transcript id.
func newID() string { return ids.NewSortable("tr", time.Now()) }

// made creates a transcript of org from src through Make and fails t on error.
func made(t *testing.T, s *Service, org string, src tcsv1.TranscriptSource, opts tcsv1.TranscriptOptions) *tcsv1.Transcript {
	t.Helper()
	tr, err := s.Make(context.Background(), org, Draft{ID: newID(), Source: src, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestMakeCreatesATranscriptOfEachSourceKindOfTheOrganization(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	existing := made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, tcsv1.TranscriptOptions{})
	theirs := made(t, s, orgB, tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, tcsv1.TranscriptOptions{})
	for _, tc := range []struct {
		name string
		org  string
		d    Draft
		// check says what is wrong with the transcript made or the error, or "".
		check func(tr *tcsv1.Transcript, err error) string
	}{
		{"a paste", orgA, Draft{ID: newID(), Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste, Format: "txt", Title: "t"}}, madeOf(tcsv1.SourcePaste)},
		{"a youtube source", orgA, Draft{ID: newID(), Source: tcsv1.TranscriptSource{Type: tcsv1.SourceYouTube, URL: "https://youtu.be/dQw4w9WgXcQ"}}, madeOf(tcsv1.SourceYouTube)},
		{"a url source", orgA, Draft{ID: newID(), Source: tcsv1.TranscriptSource{Type: tcsv1.SourceURL, URL: "https://example.org/a.txt"}}, madeOf(tcsv1.SourceURL)},
		{"an upload grant", orgA, Draft{ID: newID(), Source: tcsv1.TranscriptSource{Type: tcsv1.SourceUpload, Filename: "a.txt"}}, madeOf(tcsv1.SourceUpload)},
		{"an unknown source kind", orgA, Draft{ID: newID(), Source: tcsv1.TranscriptSource{Type: "ftp"}}, failed(nil)},
		{"a resumed request's transcript, made before", orgA, Draft{ID: existing.Spec.ID, Resumed: true, Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}},
			func(tr *tcsv1.Transcript, err error) string {
				if err != nil || tr.UID != existing.UID {
					return "not the transcript made before"
				}
				return ""
			}},
		{"an id taken, by a request not resumed", orgA, Draft{ID: existing.Spec.ID, Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}},
			func(_ *tcsv1.Transcript, err error) string {
				if !apierrors.IsAlreadyExists(err) {
					return "not AlreadyExists"
				}
				return ""
			}},
		{"a resumed request's id taken by another organization", orgA, Draft{ID: theirs.Spec.ID, Resumed: true, Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}}, failed(ErrForeign)},
		{"an empty organization", "", Draft{ID: newID(), Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}}, failedOrg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := s.Make(ctx, tc.org, tc.d)
			if msg := tc.check(tr, err); msg != "" {
				t.Fatalf("Make = %+v, %v: %s", tr, err, msg)
			}
		})
	}
}

// madeOf checks a transcript made of source kind st for orgA: created, without a status.
func madeOf(st tcsv1.SourceType) func(*tcsv1.Transcript, error) string {
	return func(tr *tcsv1.Transcript, err error) string {
		switch {
		case err != nil:
			return "an error"
		case tr.UID == "":
			return "not created"
		case tr.Spec.Organization != orgA || tr.Labels[tcsv1.LabelOrganization] != orgA:
			return "not of the organization"
		case tr.Spec.Source.Type != st || tr.Labels[tcsv1.LabelSourceType] != string(st):
			return "not of its source kind"
		case tr.Spec.Source.InputRef != pipeline.KeysFor(orgA, tr.Spec.ID).Input:
			return "its input is not stored under its organization"
		case tr.Status.Phase != "":
			return "it has a status"
		}
		return ""
	}
}

// failed checks an error that is want (any error for nil).
func failed(want error) func(*tcsv1.Transcript, error) string {
	return func(_ *tcsv1.Transcript, err error) string {
		if err == nil || want != nil && !errors.Is(err, want) {
			return "not the error wanted"
		}
		return ""
	}
}

// failedOrg checks an *OrgError.
func failedOrg(_ *tcsv1.Transcript, err error) string {
	var oe *OrgError
	if !errors.As(err, &oe) {
		return "not an *OrgError"
	}
	return ""
}

func TestQueueQueuesTheFetchOfARemoteSourceOnce(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	taken := made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourceURL, URL: "https://example.org/a.txt"}, tcsv1.TranscriptOptions{})
	if err := s.Queue(ctx, orgA, taken, "first", now); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		org     string
		tr      *tcsv1.Transcript
		wantJob string // the type of the first job, "" for an error
		want    error
	}{
		{"a youtube source", orgA, made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourceYouTube, URL: "https://youtu.be/dQw4w9WgXcQ"}, tcsv1.TranscriptOptions{}), tcsv1.JobYouTubeFetch, nil},
		{"a url source with an AI pass", orgA, made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourceURL, URL: "https://example.org/a.txt"},
			tcsv1.TranscriptOptions{AIPass: tcsv1.AIPassOptions{Enabled: true}}), tcsv1.JobURLFetch, nil},
		{"a transcript queued already", orgA, taken, tcsv1.JobURLFetch, nil},
		{"a paste", orgA, made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, tcsv1.TranscriptOptions{}), "", nil},
		{"another organization's", orgA, made(t, s, orgB, tcsv1.TranscriptSource{Type: tcsv1.SourceURL, URL: "https://example.org/a.txt"}, tcsv1.TranscriptOptions{}), "", ErrForeign},
		{"an empty organization", "", made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourceURL, URL: "https://example.org/a.txt"}, tcsv1.TranscriptOptions{}), "", &OrgError{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Queue(ctx, tc.org, tc.tr, "record", now)
			if tc.wantJob == "" {
				checkError(t, err, tc.want)
				if tc.tr.Status.Phase != "" {
					t.Fatalf("refused, yet written: %+v", tc.tr.Status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			st := tc.tr.Status
			aiPass := tcsv1.AIPassIdle
			if tc.tr.Spec.Options.AIPass.Enabled {
				aiPass = tcsv1.AIPassQueued
			}
			if st.Phase != tcsv1.PhasePending || st.AIPassStatus != aiPass || len(st.Jobs) == 0 || st.Jobs[0].Type != tc.wantJob {
				t.Fatalf("status %+v, want pending with a %s job", st, tc.wantJob)
			}
			if tc.tr == taken {
				if len(st.Jobs) != 1 || st.Jobs[0].IdempotencyRecord != "first" {
					t.Fatalf("a second Queue changed the jobs: %+v", st.Jobs)
				}
				return
			}
			if st.Jobs[0].IdempotencyRecord != "record" {
				t.Fatalf("the job is not the request's: %+v", st.Jobs[0])
			}
			if got := tc.tr.EmittedEventTypes(); len(got) != 1 || got[0] != tcsv1.EventTranscriptCreated {
				t.Fatalf("events %v, want one transcript.created", got)
			}
			if tc.tr.Spec.Options.AIPass.Enabled && (len(st.Jobs) != 2 || st.Jobs[1].Type != tcsv1.JobAIPass) {
				t.Fatalf("the AI pass asked for is not queued: %+v", st.Jobs)
			}
		})
	}
}

// checkError fails t unless err is want: an error wrapping it, or for an *OrgError, one.
func checkError(t *testing.T, err, want error) {
	t.Helper()
	var oe *OrgError
	switch {
	case err == nil:
		t.Fatal("no error")
	case errors.As(want, &oe):
		if !errors.As(err, &oe) {
			t.Fatalf("%v, want an *OrgError", err)
		}
	case want != nil && !errors.Is(err, want):
		t.Fatalf("%v, want %v", err, want)
	}
}

func TestCompleteCompletesAPasteOnce(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	res := &pipeline.Result{Format: formats.TXT, Content: []byte("Revelation 21"), Title: "Revelation 21"}
	done := made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, tcsv1.TranscriptOptions{})
	if _, err := s.Complete(ctx, orgA, done, res, now); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		org           string
		tr            *tcsv1.Transcript
		wantCompleted bool
		want          error // nil: no error
		refused       bool
	}{
		{"a paste", orgA, made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, tcsv1.TranscriptOptions{}), true, nil, false},
		{"a paste completed already", orgA, done, false, nil, false},
		{"a url source", orgA, made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourceURL, URL: "https://example.org/a.txt"}, tcsv1.TranscriptOptions{}), false, nil, true},
		{"another organization's", orgA, made(t, s, orgB, tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, tcsv1.TranscriptOptions{}), false, ErrForeign, true},
		{"an empty organization", "", made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, tcsv1.TranscriptOptions{}), false, &OrgError{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			completed, err := s.Complete(ctx, tc.org, tc.tr, res, now)
			if tc.refused {
				checkError(t, err, tc.want)
				if completed || tc.tr.Status.Phase != "" {
					t.Fatalf("refused, yet written: %t %+v", completed, tc.tr.Status)
				}
				return
			}
			if err != nil || completed != tc.wantCompleted {
				t.Fatalf("Complete = %t, %v; want %t", completed, err, tc.wantCompleted)
			}
			keys := pipeline.KeysFor(orgA, tc.tr.Spec.ID)
			if st := tc.tr.Status; st.Phase != tcsv1.PhaseCompleted || st.AIPassStatus != tcsv1.AIPassIdle || st.ContentRef != keys.Content || st.Title != "Revelation 21" {
				t.Fatalf("status %+v", st)
			}
		})
	}
}

func TestConfirmUploadQueuesTheIngestOfAnArrivedFileOfTheOrganization(t *testing.T) {
	s, f := newService(t)
	ctx := context.Background()
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	later := metav1.NewTime(now.Add(time.Hour))
	earlier := metav1.NewTime(now.Add(-time.Hour))
	grant := func(org string, expires metav1.Time, opts tcsv1.TranscriptOptions, size int64) string {
		tr := made(t, s, org, tcsv1.TranscriptSource{Type: tcsv1.SourceUpload, Filename: "a.txt", UploadExpiresAt: &expires}, opts)
		if size >= 0 {
			f[tr.Spec.Source.InputRef] = size
		}
		return tr.Spec.ID
	}
	confirmedBefore := grant(orgA, later, tcsv1.TranscriptOptions{}, 10)
	if _, err := s.ConfirmUpload(ctx, orgA, confirmedBefore, Confirmation{Record: "first", Now: now}); err != nil {
		t.Fatal(err)
	}
	english := tcsv1.TranscriptOptions{Language: "en"}
	paste := made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, tcsv1.TranscriptOptions{}).Spec.ID
	for _, tc := range []struct {
		name string
		org  string
		id   string
		c    Confirmation
		// want is the error wanted, as a value of its type; nil for a confirmation.
		want error
		// param is the parameter a *ParamError, *ConflictError or *UnprocessableError names.
		param string
		// options are the options of the confirmed transcript.
		options tcsv1.TranscriptOptions
	}{
		{"a grant whose file arrived", orgA, grant(orgA, later, tcsv1.TranscriptOptions{}, 10), Confirmation{Record: "r", Now: now}, nil, "", tcsv1.TranscriptOptions{}},
		{"options given at confirmation join the grant's", orgA, grant(orgA, later, english, 10),
			Confirmation{Record: "r", Now: now, Options: tcsv1.TranscriptOptions{Language: "en", NormalizeReferences: true},
				Given: []string{"options.language", "options.normalize_references"}}, nil, "", tcsv1.TranscriptOptions{Language: "en", NormalizeReferences: true}},
		{"a retry of the request that confirmed it", orgA, confirmedBefore, Confirmation{Record: "first", Now: now}, nil, "", tcsv1.TranscriptOptions{}},
		{"a grant confirmed by another request", orgA, confirmedBefore, Confirmation{Record: "other", Now: now}, &ConflictError{}, "transcript_id", tcsv1.TranscriptOptions{}},
		{"a grant whose file has not arrived", orgA, grant(orgA, later, tcsv1.TranscriptOptions{}, -1), Confirmation{Now: now}, &ConflictError{}, "transcript_id", tcsv1.TranscriptOptions{}},
		{"a file above the limit", orgA, grant(orgA, later, tcsv1.TranscriptOptions{}, limits.MaxRemoteFile+1), Confirmation{Now: now}, &UnprocessableError{}, "transcript_id", tcsv1.TranscriptOptions{}},
		{"an expired grant", orgA, grant(orgA, earlier, tcsv1.TranscriptOptions{}, 10), Confirmation{Now: now}, &ParamError{}, "transcript_id", tcsv1.TranscriptOptions{}},
		{"options that contradict the grant's", orgA, grant(orgA, later, english, 10),
			Confirmation{Now: now, Options: tcsv1.TranscriptOptions{Language: "pt"}, Given: []string{"options.language"}}, &ParamError{}, "options.language", tcsv1.TranscriptOptions{}},
		{"a transcript that is not an upload", orgA, paste, Confirmation{Now: now}, &ParamError{}, "transcript_id", tcsv1.TranscriptOptions{}},
		{"an id that does not exist", orgA, newID(), Confirmation{Now: now}, ErrNotFound, "", tcsv1.TranscriptOptions{}},
		{"another organization's grant", orgA, grant(orgB, later, tcsv1.TranscriptOptions{}, 10), Confirmation{Now: now}, ErrForeign, "", tcsv1.TranscriptOptions{}},
		{"an empty organization", "", grant(orgA, later, tcsv1.TranscriptOptions{}, 10), Confirmation{Now: now}, &OrgError{}, "", tcsv1.TranscriptOptions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := s.ConfirmUpload(ctx, tc.org, tc.id, tc.c)
			var (
				pe *ParamError
				ce *ConflictError
				ue *UnprocessableError
				oe *OrgError
			)
			switch any(tc.want).(type) { // the kind of error wanted
			case nil:
				if err != nil {
					t.Fatal(err)
				}
				st := tr.Status
				if st.Phase != tcsv1.PhasePending || len(st.Jobs) != 1 || st.Jobs[0].Type != tcsv1.JobUploadIngest || st.Jobs[0].IdempotencyRecord != tc.c.Record {
					t.Fatalf("status %+v, want pending with the request's upload_ingest job", st)
				}
				if !tr.Spec.Options.Equal(tc.options) {
					t.Fatalf("options %+v, want %+v", tr.Spec.Options, tc.options)
				}
			case *ParamError:
				if !errors.As(err, &pe) || pe.Param != tc.param {
					t.Fatalf("%v, want a *ParamError of %s", err, tc.param)
				}
			case *ConflictError:
				if !errors.As(err, &ce) || ce.Param != tc.param {
					t.Fatalf("%v, want a *ConflictError of %s", err, tc.param)
				}
			case *UnprocessableError:
				if !errors.As(err, &ue) || ue.Param != tc.param {
					t.Fatalf("%v, want an *UnprocessableError of %s", err, tc.param)
				}
			case *OrgError:
				if !errors.As(err, &oe) {
					t.Fatalf("%v, want an *OrgError", err)
				}
			default:
				if !errors.Is(err, tc.want) {
					t.Fatalf("%v, want %v", err, tc.want)
				}
			}
			if tc.want != nil && tc.org == orgA && tc.id != confirmedBefore && tc.id != paste {
				if left, _ := s.Find(ctx, orgA, tc.id); left != nil && left.Status.Phase != "" {
					t.Fatalf("refused, yet confirmed: %+v", left.Status)
				}
			}
		})
	}
}

func TestMergeOptionsKeepsWhatTheGrantSet(t *testing.T) {
	for _, tc := range []struct {
		name         string
		grant, given tcsv1.TranscriptOptions
		members      []string
		want         tcsv1.TranscriptOptions
		param        string
	}{
		{"nothing given", tcsv1.TranscriptOptions{Language: "en"}, tcsv1.TranscriptOptions{Language: "pt"}, nil, tcsv1.TranscriptOptions{Language: "en"}, ""},
		{"unset in the grant", tcsv1.TranscriptOptions{}, tcsv1.TranscriptOptions{Language: "pt", AIPass: tcsv1.AIPassOptions{Enabled: true}},
			[]string{"options.language", "options.ai_pass.enabled"}, tcsv1.TranscriptOptions{Language: "pt", AIPass: tcsv1.AIPassOptions{Enabled: true}}, ""},
		{"the same as the grant", tcsv1.TranscriptOptions{NormalizeReferences: true}, tcsv1.TranscriptOptions{NormalizeReferences: true},
			[]string{"options.normalize_references"}, tcsv1.TranscriptOptions{NormalizeReferences: true}, ""},
		{"set otherwise in the grant", tcsv1.TranscriptOptions{AIPass: tcsv1.AIPassOptions{Apply: true}}, tcsv1.TranscriptOptions{},
			[]string{"options.ai_pass.apply"}, tcsv1.TranscriptOptions{}, "options.ai_pass.apply"},
		{"categories unset in the grant", tcsv1.TranscriptOptions{}, tcsv1.TranscriptOptions{Categories: []string{"bible"}},
			[]string{"options.categories"}, tcsv1.TranscriptOptions{Categories: []string{"bible"}}, ""},
		{"the grant's categories", tcsv1.TranscriptOptions{Categories: []string{"bible", "place"}}, tcsv1.TranscriptOptions{Categories: []string{"bible", "place"}},
			[]string{"options.categories"}, tcsv1.TranscriptOptions{Categories: []string{"bible", "place"}}, ""},
		{"other categories than the grant's", tcsv1.TranscriptOptions{Categories: []string{"bible"}}, tcsv1.TranscriptOptions{Categories: []string{"place"}},
			[]string{"options.categories"}, tcsv1.TranscriptOptions{}, "options.categories"},
		{"a threshold joins the grant's other one", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.9"}},
			tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{Suggest: "0.5"}}, []string{"options.thresholds.suggest"},
			tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.9", Suggest: "0.5"}}, ""},
		{"a threshold other than the grant's", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.9"}},
			tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.8"}}, []string{"options.thresholds.auto_apply"}, tcsv1.TranscriptOptions{}, "options.thresholds.auto_apply"},
		{"thresholds joined out of order", tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{AutoApply: "0.6"}},
			tcsv1.TranscriptOptions{Thresholds: &tcsv1.Thresholds{Suggest: "0.7"}}, []string{"options.thresholds.suggest"}, tcsv1.TranscriptOptions{}, "options.thresholds.suggest"},
		{"metadata join", tcsv1.TranscriptOptions{Metadata: map[string]string{"campus": "north"}},
			tcsv1.TranscriptOptions{Metadata: map[string]string{"campus": "north", "series": "hope"}}, []string{"options.metadata.campus", "options.metadata.series"},
			tcsv1.TranscriptOptions{Metadata: map[string]string{"campus": "north", "series": "hope"}}, ""},
		{"a metadata value other than the grant's", tcsv1.TranscriptOptions{Metadata: map[string]string{"campus": "north"}},
			tcsv1.TranscriptOptions{Metadata: map[string]string{"campus": "south"}}, []string{"options.metadata.campus"}, tcsv1.TranscriptOptions{}, "options.metadata.campus"},
		{"metadata joined beyond 20 keys", tcsv1.TranscriptOptions{Metadata: keys("g", 15)}, tcsv1.TranscriptOptions{Metadata: keys("c", 6)},
			given("options.metadata.", keys("c", 6)), tcsv1.TranscriptOptions{}, "options.metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := *tc.grant.DeepCopy()
			got, err := MergeOptions(tc.grant, tc.given, tc.members)
			var pe *ParamError
			switch {
			case tc.param != "":
				if !errors.As(err, &pe) || pe.Param != tc.param {
					t.Fatalf("%v, want a *ParamError of %s", err, tc.param)
				}
			case err != nil || !got.Equal(tc.want):
				t.Fatalf("MergeOptions = %+v, %v; want %+v", got, err, tc.want)
			}
			if !tc.grant.Equal(before) {
				t.Fatalf("MergeOptions changed the grant's options: %+v, were %+v", tc.grant, before)
			}
		})
	}
}

// keys returns n metadata pairs prefix0=v … .
func keys(prefix string, n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[fmt.Sprintf("%s%d", prefix, i)] = "v"
	}
	return m
}

// given names the members of m under prefix, as the API's givenOptions does.
func given(prefix string, m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, prefix+k)
	}
	return out
}

// countingClient is a client of the control plane that counts the requests it sends, by verb
// ("get", "list", "create", "update", "patch", "status patch", ...).
func countingClient(t *testing.T) (client.Client, map[string]int) {
	t.Helper()
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	var mu sync.Mutex
	count := func(verb string) {
		mu.Lock()
		n[verb]++
		mu.Unlock()
	}
	return interceptor.NewClient(c, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			count("get")
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			count("list")
			return c.List(ctx, list, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			count("create")
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			count("update")
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			count("patch")
			return c.Patch(ctx, obj, patch, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			count(sub + " patch")
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			count(sub + " update")
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}), n
}

func TestMakeAndCompleteStoreAPasteInOneCreateAndOneStatusUpdate(t *testing.T) {
	ctx := context.Background()
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	res := &pipeline.Result{Format: formats.TXT, Content: []byte("Revelation 21"), Title: "Revelation 21"}
	for _, tc := range []struct {
		name string
		// between runs between Make and Complete, with a client of its own.
		between func(t *testing.T, c client.Client, tr *tcsv1.Transcript)
		want    map[string]int
		// wantCompleted is whether Complete completes it.
		wantCompleted bool
	}{
		{"nothing else writes it", nil, map[string]int{"create": 1, "status update": 1}, true},
		{"the reconciler completed it first", func(t *testing.T, c client.Client, tr *tcsv1.Transcript) {
			other := tr.DeepCopy()
			res.Complete(other, pipeline.KeysFor(orgA, tr.Spec.ID), now.Time)
			if err := c.Status().Update(ctx, other); err != nil {
				t.Fatal(err)
			}
		}, map[string]int{"create": 1, "status update": 1, "get": 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newService(t)
			other := s.Client
			c, n := countingClient(t)
			s.Client, s.APIReader = c, c
			tr, err := s.Make(ctx, orgA, Draft{ID: newID(), Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.between != nil {
				tc.between(t, other, tr)
			}
			completed, err := s.Complete(ctx, orgA, tr, res, now)
			if err != nil || completed != tc.wantCompleted {
				t.Fatalf("Complete = %t, %v; want %t", completed, err, tc.wantCompleted)
			}
			if tr.Status.Phase != tcsv1.PhaseCompleted {
				t.Fatalf("phase %q, want completed", tr.Status.Phase)
			}
			if !maps.Equal(n, tc.want) {
				t.Fatalf("requests %v, want %v", n, tc.want)
			}
		})
	}
}

// TestARequestDoesNotAnswerForAPasteBeingDiscarded covers the race of a request with the
// reconciler that found it dead: a paste deleted (its finalizer still on it) after the request
// made it takes no status, and a retry of the request waits until it is gone and makes it anew.
func TestARequestDoesNotAnswerForAPasteBeingDiscarded(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	res := &pipeline.Result{Format: formats.TXT, Content: []byte("Revelation 21"), Title: "Revelation 21"}
	// discard deletes tr as the reconciler does (conditional on the version read), and removes
	// its finalizer after a while, as the removal of its stored objects does.
	discard := func(t *testing.T, tr *tcsv1.Transcript, after time.Duration) {
		t.Helper()
		uid, version := tr.UID, tr.ResourceVersion
		if err := s.Client.Delete(ctx, tr.DeepCopy(), client.Preconditions{UID: &uid, ResourceVersion: &version}); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(after)
			leaving := &tcsv1.Transcript{}
			if err := s.APIReader.Get(ctx, client.ObjectKeyFromObject(tr), leaving); err == nil {
				leaving.Finalizers = nil
				_ = s.Client.Update(ctx, leaving)
			}
		}()
	}
	for _, tc := range []struct {
		name  string
		write func(tr *tcsv1.Transcript) error
	}{
		{"completed by its request", func(tr *tcsv1.Transcript) error {
			_, err := s.Complete(ctx, orgA, tr, res, now)
			return err
		}},
		{"written by UpdateStatus", func(tr *tcsv1.Transcript) error {
			return s.UpdateStatus(ctx, orgA, tr, func(tr *tcsv1.Transcript) bool {
				tr.Status.Phase = tcsv1.PhasePending
				return true
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, tcsv1.TranscriptOptions{})
			discard(t, tr, time.Second)
			if err := tc.write(tr); !apierrors.IsNotFound(err) {
				t.Fatalf("write on a paste being discarded: %v, want NotFound", err)
			}
			got := &tcsv1.Transcript{}
			err := s.APIReader.Get(ctx, client.ObjectKeyFromObject(tr), got)
			if err == nil && got.Status.Phase != "" {
				t.Fatalf("the paste being discarded was written: %+v", got.Status)
			}
		})
	}
	t.Run("a retry waits until it is gone and makes it anew", func(t *testing.T) {
		tr := made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, tcsv1.TranscriptOptions{})
		discard(t, tr, 500*time.Millisecond)
		found, err := s.Find(ctx, orgA, tr.Spec.ID)
		if err != nil || found != nil {
			t.Fatalf("Find of a paste being discarded = %v, %v; want nil once it is gone", found, err)
		}
		tr2 := made(t, s, orgA, tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, tcsv1.TranscriptOptions{})
		discard(t, tr2, 500*time.Millisecond)
		again, err := s.Make(ctx, orgA, Draft{ID: tr2.Spec.ID, Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}, Resumed: true})
		if err != nil {
			t.Fatal(err)
		}
		if again.UID == tr2.UID || !again.DeletionTimestamp.IsZero() {
			t.Fatalf("the resumed run got the discarded paste back (uid %s, deleting %v)", again.UID, again.DeletionTimestamp)
		}
		if completed, err := s.Complete(ctx, orgA, again, res, now); err != nil || !completed {
			t.Fatalf("Complete of the paste made anew = %t, %v", completed, err)
		}
	})
}
