package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
)

// IfMatch makes a write of the glossary happen only if the glossary is still at version (a
// [Glossary.Version] or [GlossaryEntry.Version]); otherwise the API answers 409 conflict
// (an [*Error] with Param "If-Match"): read the glossary again and reapply the change.
func IfMatch(version string) CallOption { return func(o *callOptions) { o.ifMatch = version } }

// etagVersion returns the version of an answer's ETag.
func etagVersion(h http.Header) string {
	v := strings.TrimPrefix(h.Get("ETag"), "W/")
	return strings.TrimSuffix(strings.TrimPrefix(v, `"`), `"`)
}

// GetGlossary returns one page of the organization's glossary, in its order (Page.Limit from
// 1 to 1,000; zero means the API's 100; EndingBefore is not supported).
func (c *Client) GetGlossary(ctx context.Context, p Page) (*Glossary, error) {
	var g Glossary
	if _, err := c.call(ctx, http.MethodGet, "/api/v1/glossary", p.query(), nil, &g, nil); err != nil {
		return nil, err
	}
	return &g, nil
}

// GlossaryEntries iterates over the entries of the organization's glossary in its order,
// fetching pages of pageSize (zero means the API's 100) as it goes. An error ends the
// iteration with (nil, err).
func (c *Client) GlossaryEntries(ctx context.Context, pageSize int) iter.Seq2[*GlossaryEntry, error] {
	return pages(func(after string) (*List[GlossaryEntry], error) {
		g, err := c.GetGlossary(ctx, Page{Limit: pageSize, StartingAfter: after})
		if err != nil {
			return nil, err
		}
		return &List[GlossaryEntry]{Object: "list", Data: g.Data, HasMore: g.HasMore, URL: g.URL}, nil
	}, func(e *GlossaryEntry) string { return e.ID })
}

// GetGlossaryEntry returns an entry of the glossary.
func (c *Client) GetGlossaryEntry(ctx context.Context, id string) (*GlossaryEntry, error) {
	return c.glossaryEntry(ctx, http.MethodGet, "/api/v1/glossary/entries/"+url.PathEscape(id), nil, nil)
}

// CreateGlossaryEntry adds an entry to the glossary; it applies to the next pass at once.
// [IfMatch] and [IdempotencyKey] apply.
func (c *Client) CreateGlossaryEntry(ctx context.Context, req GlossaryEntryRequest, opts ...CallOption) (*GlossaryEntry, error) {
	return c.glossaryEntry(ctx, http.MethodPost, "/api/v1/glossary/entries", req, opts)
}

// UpdateGlossaryEntry changes the members of an entry that req sets. [IfMatch] and
// [IdempotencyKey] apply.
func (c *Client) UpdateGlossaryEntry(ctx context.Context, id string, req GlossaryEntryUpdate, opts ...CallOption) (*GlossaryEntry, error) {
	return c.glossaryEntry(ctx, http.MethodPost, "/api/v1/glossary/entries/"+url.PathEscape(id), req, opts)
}

func (c *Client) glossaryEntry(ctx context.Context, method, path string, in any, opts []CallOption) (*GlossaryEntry, error) {
	var e GlossaryEntry
	h, err := c.call(ctx, method, path, nil, in, &e, opts)
	if err != nil {
		return nil, err
	}
	e.Version = etagVersion(h)
	return &e, nil
}

// DeleteGlossaryEntry removes an entry from the glossary. [IfMatch] applies.
func (c *Client) DeleteGlossaryEntry(ctx context.Context, id string, opts ...CallOption) (*DeletedGlossaryEntry, error) {
	var d DeletedGlossaryEntry
	h, err := c.call(ctx, http.MethodDelete, "/api/v1/glossary/entries/"+url.PathEscape(id), nil, nil, &d, opts)
	if err != nil {
		return nil, err
	}
	d.Version = etagVersion(h)
	return &d, nil
}

// ReplaceGlossary makes entries the whole glossary, in their order, all or nothing (none
// empties it); an entry whose term the glossary has keeps its id. The answer holds every
// entry. [IfMatch] applies.
func (c *Client) ReplaceGlossary(ctx context.Context, entries []GlossaryEntryRequest, opts ...CallOption) (*Glossary, error) {
	if entries == nil {
		entries = []GlossaryEntryRequest{}
	}
	var g Glossary
	if _, err := c.call(ctx, http.MethodPut, "/api/v1/glossary", nil, ReplaceGlossaryRequest{Entries: entries}, &g, opts); err != nil {
		return nil, err
	}
	return &g, nil
}

// ExportGlossary returns the glossary in the CSV format (see docs/glossary.md), which
// [Client.ImportGlossary] reads back to the same glossary.
func (c *Client) ExportGlossary(ctx context.Context) ([]byte, error) {
	_, _, body, err := c.send(ctx, request{method: http.MethodGet, url: "/api/v1/glossary/export", header: http.Header{}, auth: true})
	if err != nil {
		return nil, err
	}
	return body, nil
}

// ImportGlossary replaces the glossary with the entries of a CSV file (at most 1 MiB), all
// or nothing. A refused file is an [*Error] with Param "csv" whose Message names the line
// and column. [IfMatch] and [IdempotencyKey] apply.
func (c *Client) ImportGlossary(ctx context.Context, csv []byte, opts ...CallOption) (*Glossary, error) {
	var co callOptions
	for _, o := range opts {
		o(&co)
	}
	h := http.Header{}
	h.Set("Content-Type", "text/csv; charset=utf-8")
	key := co.idempotencyKey
	if key == "" {
		key = newIdempotencyKey()
	}
	h.Set("Idempotency-Key", key)
	if co.ifMatch != "" {
		h.Set("If-Match", `"`+co.ifMatch+`"`)
	}
	if csv == nil {
		csv = []byte{}
	}
	_, _, body, err := c.send(ctx, request{method: http.MethodPost, url: "/api/v1/glossary/import", body: csv, header: h, auth: true})
	if err != nil {
		return nil, err
	}
	var g Glossary
	if err := json.Unmarshal(body, &g); err != nil {
		return nil, fmt.Errorf("tcs: decoding the answer of POST /api/v1/glossary/import: %w", err)
	}
	return &g, nil
}
