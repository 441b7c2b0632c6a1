package main

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/cachecompact"
)

// cacheOptions are the options of the informer cache of the service in namespace ns: only
// API-key Secrets (selected by apiKeys) are cached, as the service never reads other Secrets
// this way; no object keeps its managedFields, which no reconciler reads and which made up a
// good part of a cached Transcript; and cached Transcripts share the strings and labels they
// repeat (cachecompact).
func cacheOptions(ns string, apiKeys labels.Selector) cache.Options {
	return cache.Options{
		DefaultNamespaces: map[string]cache.Config{ns: {}},
		ByObject:          map[client.Object]cache.ByObject{&corev1.Secret{}: {Label: apiKeys}},
		DefaultTransform:  cachecompact.New().Transform,
	}
}
