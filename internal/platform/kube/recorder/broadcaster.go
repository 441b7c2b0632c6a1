package recorder

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
)

// Default rates of the Events a process records, as kubelet's --event-qps and --event-burst
// bound its own: Events tell a person with kubectl what happened, and a burst of transcripts
// must not spend the API server's writes on them while the transcripts' own writes wait.
const (
	DefaultQPS   = 10
	DefaultBurst = 25
)

// Broadcaster sends the Events of its recorders to the API server, at most qps a second after
// a burst of burst; the Events waiting beyond client-go's queue of 1,000 are dropped, as
// Events are a notification, never a record (status, metrics and the results store are).
type Broadcaster struct {
	b      events.EventBroadcaster
	scheme *runtime.Scheme
}

// StartBroadcaster starts a Broadcaster writing through cfg, with the objects of scheme,
// until ctx ends or Shutdown.
func StartBroadcaster(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, qps float32, burst int) (*Broadcaster, error) {
	if qps <= 0 || burst <= 0 {
		return nil, fmt.Errorf("recording Events: the rate %v a second and the burst %d must be positive", qps, burst)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst, cfg.RateLimiter = qps, burst, nil
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("a client of the Events API: %w", err)
	}
	b := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
	if err := b.StartRecordingToSinkWithContext(ctx); err != nil {
		return nil, fmt.Errorf("starting to record Events: %w", err)
	}
	return &Broadcaster{b: b, scheme: scheme}, nil
}

// Recorder returns the recorder of the Events tcs records under name (API, Transcript, ...).
func (b *Broadcaster) Recorder(name string) events.EventRecorder {
	return b.b.NewRecorder(b.scheme, name)
}

// Shutdown stops sending Events.
func (b *Broadcaster) Shutdown() {
	b.b.Shutdown()
}
