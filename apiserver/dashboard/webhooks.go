package dashboard

import (
	"context"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/endpoints"
)

// recentDeliveries is how many of an endpoint's newest deliveries its success rate counts.
const recentDeliveries = 100

// deliveryRate is how an endpoint's recent deliveries went.
type deliveryRate struct {
	// Delivered and Failed count the deliveries that ended so, of the Counted newest.
	Delivered, Failed, Counted int
}

// Percent is the share of the ended deliveries that were delivered, rounded down; -1 when
// none has ended.
func (r deliveryRate) Percent() int {
	if r.Delivered+r.Failed == 0 {
		return -1
	}
	return r.Delivered * 100 / (r.Delivered + r.Failed)
}

// Ended counts the deliveries that ended delivered or failed.
func (r deliveryRate) Ended() int { return r.Delivered + r.Failed }

// rateOf counts the delivered and failed deliveries of dels.
func rateOf(dels []tcsv1.WebhookDelivery) deliveryRate {
	r := deliveryRate{Counted: len(dels)}
	for i := range dels {
		switch dels[i].Status.State {
		case tcsv1.DeliverySucceeded:
			r.Delivered++
		case tcsv1.DeliveryFailed:
			r.Failed++
		}
	}
	return r
}

// rates returns the success rate of each endpoint of eps of org over its recentDeliveries
// newest deliveries, by the endpoint's object name.
func (d *Dashboard) rates(ctx context.Context, org string, eps []tcsv1.WebhookEndpoint) (map[string]deliveryRate, error) {
	out := make(map[string]deliveryRate, len(eps))
	for i := range eps {
		dels, err := d.o.Endpoints.Deliveries(ctx, endpoints.DeliveryFilter{Organization: org, Endpoint: eps[i].Name, Limit: recentDeliveries})
		if err != nil {
			return nil, err
		}
		out[eps[i].Name] = rateOf(dels)
	}
	return out, nil
}
