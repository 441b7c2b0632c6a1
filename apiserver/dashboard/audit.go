package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/ids"
	"tcs.dev/tcs/internal/orgs"
)

// auditComponent is the source of the audit trail's Events.
const auditComponent = "tcs-dashboard"

// auditf records who did what as an Event on the organization orgID, so that the audit page
// and `kubectl describe organization` show it. A failure to record is logged, not shown: the
// action itself is done.
func (d *Dashboard) auditf(ctx context.Context, orgID, who, reason, format string, args ...any) {
	org, err := d.o.Accounts.Organization(ctx, orgID)
	if err != nil {
		d.o.Log.Error(err, "recording an audit event", "reason", reason)
		return
	}
	now := metav1.NewTime(d.o.Clock.Now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:        fmt.Sprintf("%s.%s", orgs.ObjectName(orgID), ids.Random(16)),
			Namespace:   d.o.Namespace,
			Annotations: map[string]string{"tcs.dev/actor": who},
		},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: tcsv1.GroupVersion.String(), Kind: "Organization",
			Namespace: org.Namespace, Name: org.Name, UID: org.UID,
		},
		Reason:              reason,
		Message:             fmt.Sprintf(format, args...),
		Type:                corev1.EventTypeNormal,
		Source:              corev1.EventSource{Component: auditComponent},
		ReportingController: "tcs.dev/dashboard",
		FirstTimestamp:      now,
		LastTimestamp:       now,
		Count:               1,
	}
	if err := d.o.Client.Create(context.WithoutCancel(ctx), ev); err != nil {
		d.o.Log.Error(err, "recording an audit event", "reason", reason)
	}
}

// auditEntry is one line of the audit trail.
type auditEntry struct {
	Time    time.Time
	Actor   string
	Reason  string
	Message string
}

func (d *Dashboard) audit(w http.ResponseWriter, r *http.Request, v *view) {
	var list corev1.EventList
	if err := d.o.Reader.List(r.Context(), &list, client.InNamespace(d.o.Namespace),
		client.MatchingFields{"involvedObject.name": orgs.ObjectName(v.Org.OrganizationID), "source": auditComponent}); err != nil {
		d.serverError(w, r, fmt.Errorf("listing the audit trail: %w", err))
		return
	}
	entries := make([]auditEntry, 0, len(list.Items))
	for _, e := range list.Items {
		if e.InvolvedObject.Kind != "Organization" {
			continue
		}
		entries = append(entries, auditEntry{Time: e.FirstTimestamp.Time, Actor: e.Annotations["tcs.dev/actor"], Reason: e.Reason, Message: e.Message})
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Time.After(entries[j].Time) })
	v.Title, v.Data = "Audit trail", entries
	d.render(w, r, http.StatusOK, "audit", v)
}
