package main

import (
	"context"
	"fmt"
	"strings"

	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/results"
)

// openStores opens the object store of --store and the results store of --results-dsn.
// Upload URLs of a filesystem store point at publicURL; a process without the API (publicURL
// empty) serves no uploads and signs none.
func openStores(ctx context.Context, o serveOptions, publicURL string) (*blob.Store, *results.Store, error) {
	secret := []byte(o.uploadSecret)
	if len(secret) == 0 {
		secret = []byte(ids.Random(40))
	}
	opts := blob.Options{SigningSecret: secret}
	if publicURL != "" {
		opts.UploadBaseURL = strings.TrimSuffix(publicURL, "/") + "/uploads/"
	}
	store, err := blob.Open(ctx, o.storeURL, opts)
	if err != nil {
		return nil, nil, err
	}
	// One results store per process, shared by the API and the archiver; it is opened even
	// with archiving off, so that transcripts archived before stay readable.
	resultsStore, err := results.Open(ctx, o.resultsDSN)
	if err != nil {
		store.Close()
		return nil, nil, fmt.Errorf("--results-dsn: %w", err)
	}
	return store, resultsStore, nil
}
