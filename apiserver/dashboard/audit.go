package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/results"
)

// AuditTrail keeps the organizations' audit trail: the results store.
type AuditTrail interface {
	PutAudit(ctx context.Context, e *results.AuditEntry) error
	ListAudit(ctx context.Context, opts results.AuditListOptions) (*results.AuditPage, error)
}

// auditComponent is the source of the audit trail's Events.
const auditComponent = "tcs-dashboard"

// auditRetryFor bounds how long recording an entry is retried while the store is unavailable
// (a PostgreSQL failover, a locked SQLite file), within the request that did the action.
const auditRetryFor = 15 * time.Second

// auditPageSize is the number of entries on one page of the audit trail.
const auditPageSize = 50

// auditf records who did what in the audit trail of the organization orgID: in the results
// store, where it stays for the audit retention, and as an Event on the Organization, a
// notification that `kubectl describe organization` shows until kube-apiserver's event TTL.
//
// It is called once the action is done, so it cannot refuse it: a store that is unavailable is
// retried for up to auditRetryFor, and an entry that still could not be recorded is written
// whole to the service's log, at error level. An action whose entry must exist before its
// effect (revealing a secret) uses auditBefore instead.
func (d *Dashboard) auditf(ctx context.Context, orgID, who string, reason audit.Action, format string, args ...any) {
	e := d.auditEntry(orgID, who, reason, "", format, args...)
	if err := d.recordAudit(ctx, e); err != nil {
		d.o.Log.Error(err, "the audit entry could not be recorded in the results store", "id", e.ID,
			"organization", e.Organization, "time", e.Time, "actor", e.Actor, "action", e.Action, "message", e.Message)
	}
	d.auditEvent(ctx, e)
}

// auditBefore records an entry of the audit trail before the action it tells of is done, so
// that the action is never done without its entry, even if the process is killed right after:
// it returns an error, and the caller must not do the action, when the store is unavailable
// for longer than auditRetryFor. An entry may then stand for an action that was not completed
// (the process died between the two), never the other way round.
func (d *Dashboard) auditBefore(ctx context.Context, orgID, who string, reason audit.Action, target, format string, args ...any) error {
	e := d.auditEntry(orgID, who, reason, target, format, args...)
	if err := d.recordAudit(ctx, e); err != nil {
		return fmt.Errorf("recording %s in the audit trail before doing it: %w", reason, err)
	}
	d.auditEvent(ctx, e)
	return nil
}

func (d *Dashboard) auditEntry(orgID, who string, reason audit.Action, target, format string, args ...any) *results.AuditEntry {
	now := d.o.Clock.Now()
	return &results.AuditEntry{
		ID: ids.NewSortable("aud", now), Organization: orgID, Time: now,
		Actor: who, Action: string(reason), Target: target, Message: fmt.Sprintf(format, args...),
	}
}

// recordAudit writes e to the store, retrying with backoff for up to auditRetryFor: the entry's
// id makes a repeated write harmless. The request's cancellation does not stop it, so that a
// client going away does not lose an entry of what it did.
func (d *Dashboard) recordAudit(ctx context.Context, e *results.AuditEntry) error {
	if d.o.Audit == nil {
		return fmt.Errorf("no results store to keep the audit trail in")
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.auditRetryFor)
	defer cancel()
	wait := 50 * time.Millisecond
	for {
		err := d.o.Audit.PutAudit(ctx, e)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// auditEvent records e as an Event on its Organization. A failure is logged, not shown: the
// entry is in the store.
func (d *Dashboard) auditEvent(ctx context.Context, e *results.AuditEntry) {
	org, err := d.o.Accounts.Organization(ctx, e.Organization)
	if err != nil {
		d.o.Log.Error(err, "recording an audit event", "reason", e.Action)
		return
	}
	at := metav1.NewTime(e.Time)
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:        fmt.Sprintf("%s.%s", orgs.ObjectName(e.Organization), ids.Random(16)),
			Namespace:   d.o.Namespace,
			Annotations: map[string]string{"tcs.dev/actor": e.Actor, "tcs.dev/audit-id": e.ID},
		},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: tcsv1.GroupVersion.String(), Kind: "Organization",
			Namespace: org.Namespace, Name: org.Name, UID: org.UID,
		},
		Reason:              e.Action,
		Message:             e.Message,
		Type:                corev1.EventTypeNormal,
		Source:              corev1.EventSource{Component: auditComponent},
		ReportingController: "tcs.dev/dashboard",
		FirstTimestamp:      at,
		LastTimestamp:       at,
		Count:               1,
	}
	if err := d.o.Client.Create(context.WithoutCancel(ctx), ev); err != nil {
		d.o.Log.Error(err, "recording an audit event", "reason", e.Action)
	}
}

// auditData is the audit page's.
type auditData struct {
	Entries []auditRow
	// Older is the query of the next page of older entries; empty when there is none.
	Older string
}

// auditRow is an entry of the audit page with what staff read for it.
type auditRow struct {
	*results.AuditEntry
	// Says is the entry in a sentence staff read (auditSays).
	Says string
}

// audit shows a page of the organization's audit trail from the results store, newest first;
// ?after=<cursor> goes to older entries.
func (d *Dashboard) audit(w http.ResponseWriter, r *http.Request, v *view) {
	v.Title = "Audit trail"
	if d.o.Audit == nil {
		d.serverError(w, r, fmt.Errorf("listing the audit trail: no results store"))
		return
	}
	opts := results.AuditListOptions{Organization: v.Org.OrganizationID, Limit: auditPageSize}
	if after := r.URL.Query().Get("after"); after != "" {
		c, ok := parseAuditCursor(after)
		if !ok {
			d.notFound(w, r, v)
			return
		}
		opts.After = &c
	}
	page, err := d.o.Audit.ListAudit(r.Context(), opts)
	if err != nil {
		d.serverError(w, r, fmt.Errorf("listing the audit trail: %w", err))
		return
	}
	data := &auditData{}
	for _, e := range page.Entries {
		data.Entries = append(data.Entries, auditRow{AuditEntry: e, Says: auditSays(e)})
	}
	if page.HasMore && len(page.Entries) > 0 {
		data.Older = "?after=" + formatAuditCursor(page.Entries[len(page.Entries)-1].Cursor())
	}
	v.Data = data
	d.render(w, r, http.StatusOK, "audit", v)
}

// formatAuditCursor writes c as "<unix microseconds>.<id>".
func formatAuditCursor(c results.AuditCursor) string {
	return strconv.FormatInt(c.Time.UnixMicro(), 10) + "." + c.ID
}

func parseAuditCursor(s string) (results.AuditCursor, bool) {
	us, id, ok := strings.Cut(s, ".")
	n, err := strconv.ParseInt(us, 10, 64)
	if !ok || err != nil || !ids.Valid("aud", id) {
		return results.AuditCursor{}, false
	}
	return results.AuditCursor{Time: time.UnixMicro(n).UTC(), ID: id}, true
}
