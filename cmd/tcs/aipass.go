package main

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/controllers"
	"tcs.dev/tcs/internal/text/aipass"
)

// aiOptions configure the AI validation pass.
type aiOptions struct {
	provider       string
	baseURL        string
	model          string
	apiKeySecret   string
	output         string
	stream         bool
	concurrency    int
	requestTimeout time.Duration
	maxRetries     int
	timeout        time.Duration
	workers        int
}

func (o *aiOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.provider, "ai-provider", os.Getenv("TCS_AI_PROVIDER"), "AI pass provider: rules (offline context checks, not a language model) or openai (any OpenAI-compatible endpoint); default openai when --ai-base-url is set, else rules (env TCS_AI_PROVIDER)")
	f.StringVar(&o.baseURL, "ai-base-url", os.Getenv("TCS_AI_BASE_URL"), "base URL of the OpenAI-compatible Chat Completions endpoint, e.g. https://api.openai.com/v1 or http://ollama:11434/v1 (env TCS_AI_BASE_URL)")
	f.StringVar(&o.model, "ai-model", os.Getenv("TCS_AI_MODEL"), "model the openai provider asks (env TCS_AI_MODEL)")
	f.StringVar(&o.apiKeySecret, "ai-api-key-secret", os.Getenv("TCS_AI_API_KEY_SECRET"), "Secret in --namespace holding the provider's API key, as name or name/key (key default api-key); read at every pass, so a rotated key is used at once. Without it the key is taken from env TCS_AI_API_KEY, if set (env TCS_AI_API_KEY_SECRET)")
	f.StringVar(&o.output, "ai-structured-output", envOr("TCS_AI_STRUCTURED_OUTPUT", string(aipass.OutputAuto)), "how the model is asked for JSON: auto (JSON schema, falling back for servers without it), json_schema, json_object or text")
	f.BoolVar(&o.stream, "ai-stream", os.Getenv("TCS_AI_STREAM") == "true", "ask the openai provider for streamed answers (env TCS_AI_STREAM=true)")
	f.IntVar(&o.concurrency, "ai-concurrency", aipass.DefaultConcurrency, "most provider requests in flight per pass")
	f.DurationVar(&o.requestTimeout, "ai-request-timeout", aipass.DefaultRequestTimeout, "time limit of one provider request")
	f.IntVar(&o.maxRetries, "ai-max-retries", aipass.DefaultMaxRetries, "retries of a provider request after a 429, a 5xx or a connection error, with backoff; negative for none")
	f.DurationVar(&o.timeout, "ai-timeout", controllers.DefaultAIPassTimeout, "time limit of one AI pass")
	f.IntVar(&o.workers, "ai-workers", controllers.DefaultAIPassWorkers, "AI passes run at once")
}

// newProvider returns the AI pass provider o configures; reader reads the API-key Secret of
// namespace; roots, when not nil, are the CAs HTTPS to the provider trusts.
func (o *aiOptions) newProvider(reader client.Reader, namespace string, roots *x509.CertPool) (aipass.Provider, error) {
	name := strings.TrimSpace(o.provider)
	if name == "" {
		name = "rules"
		if o.baseURL != "" {
			name = "openai"
		}
	}
	switch name {
	case "rules":
		return aipass.NewRules(), nil
	case "openai":
	default:
		return nil, fmt.Errorf("--ai-provider: %q is neither rules nor openai", o.provider)
	}
	p, err := aipass.NewOpenAI(aipass.OpenAIConfig{
		BaseURL:        o.baseURL,
		Model:          o.model,
		APIKey:         o.apiKey(reader, namespace),
		RootCAs:        roots,
		Concurrency:    o.concurrency,
		RequestTimeout: o.requestTimeout,
		MaxRetries:     o.maxRetries,
		Stream:         o.stream,
		Output:         aipass.OutputMode(o.output),
	})
	if err != nil {
		return nil, fmt.Errorf("configuring the AI pass: %w", err)
	}
	return p, nil
}

// apiKey returns the function that reads the provider's API key: from the Secret named by
// --ai-api-key-secret, else from TCS_AI_API_KEY.
func (o *aiOptions) apiKey(reader client.Reader, namespace string) func(ctx context.Context) (string, error) {
	ref := strings.TrimSpace(o.apiKeySecret)
	if ref == "" {
		key := os.Getenv("TCS_AI_API_KEY")
		return func(context.Context) (string, error) { return key, nil }
	}
	name, key, ok := strings.Cut(ref, "/")
	if !ok {
		key = "api-key"
	}
	return func(ctx context.Context) (string, error) {
		s := &corev1.Secret{}
		if err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, s); err != nil {
			return "", fmt.Errorf("reading the AI provider's API key from Secret %s/%s: %w", namespace, name, err)
		}
		v, ok := s.Data[key]
		if !ok || len(strings.TrimSpace(string(v))) == 0 {
			return "", errors.New("Secret " + namespace + "/" + name + " has no key " + key + " with the AI provider's API key")
		}
		return strings.TrimSpace(string(v)), nil
	}
}
