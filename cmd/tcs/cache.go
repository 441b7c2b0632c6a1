package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/kube/cachecompact"
	"tcs.dev/tcs/internal/platform/kube/workingset"
)

// cacheOptions are the options of the informer cache of the service in namespace ns: only
// API-key Secrets (selected by apiKeys) are cached, as the service never reads other Secrets
// this way; only the Transcripts of the working set are cached; no object keeps its managedFields, which no reconciler reads and which made up a
// good part of a cached Transcript; and cached Transcripts share the strings and labels they
// repeat (cachecompact).
func cacheOptions(ns string, apiKeys, workingSet labels.Selector) cache.Options {
	return cache.Options{
		DefaultNamespaces: map[string]cache.Config{ns: {}},
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Secret{}:    {Label: apiKeys},
			&tcsv1.Transcript{}: {Label: workingSet},
		},
		DefaultTransform: cachecompact.New().Transform,
	}
}

// selectors returns the label selectors of the cache: API-key Secrets, and the Transcripts of
// the working set (not marked archived: the API lists those from their records).
func selectors() (apiKeys, workingSet labels.Selector, err error) {
	if apiKeys, err = labels.Parse(tcsv1.LabelAPIKeyID); err != nil {
		return nil, nil, fmt.Errorf("parsing the API-key selector: %w", err)
	}
	if workingSet, err = workingset.Selector(); err != nil {
		return nil, nil, err
	}
	return apiKeys, workingSet, nil
}
