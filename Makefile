# tcs — the Transcript Cleaning Service.
#
#   make run    start the service on its embedded default (local control plane, filesystem store)
#   make test   everything: generated code check, vet, lint, unit, envtest and e2e tests

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

ROOT := $(abspath .)
LOCALBIN := $(ROOT)/bin
export PATH := $(LOCALBIN):$(PATH)

CONTROLLER_GEN_VERSION ?= v0.23.0
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_GEN_VERSION)
GOLANGCI_LINT_VERSION ?= v2.15.0
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
TCS ?= $(LOCALBIN)/tcs

# The version is the chart's appVersion; the image make docker-build builds is the one the
# chart and config/manager default to.
VERSION ?= $(shell sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$$/\1/p' charts/tcs/Chart.yaml)
IMG ?= tcs:$(VERSION)
CONTAINER_TOOL ?= docker

# Package sets: the e2e tests start the real binary and run last.
GO_TEST_FLAGS ?= -count=1
E2E_TIMEOUT ?= 15m
UNIT_TIMEOUT ?= 20m

.PHONY: all
all: build

##@ Development

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the CRDs and the namespaced RBAC into config/ and the chart.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./api/..." paths="./controllers/..." paths="./apiserver/..." \
		output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	cp config/crd/bases/*.yaml charts/tcs/crds/
	sed -n '/^rules:/,$$p' config/rbac/role.yaml | tail -n +2 > charts/tcs/files/role-rules.yaml
	sed -n '/^rules:/,$$p' config/rbac/leader_election_role.yaml | tail -n +2 > charts/tcs/files/leader-election-rules.yaml

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate the DeepCopy methods.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: verify-generated
verify-generated: manifests generate ## Fail when committed generated files are not current.
	@go run ./hack/chartdoc -check
	@if [ -n "$$(git status --porcelain -- api config charts/tcs/crds charts/tcs/files)" ]; then \
		echo "generated files are not current; run 'make manifests generate' and commit:"; \
		git status --porcelain -- api config charts/tcs/crds charts/tcs/files; git diff --stat -- api config charts/tcs/crds charts/tcs/files; exit 1; \
	fi

.PHONY: chart-docs
chart-docs: ## Write the chart's values table into charts/tcs/README.md from its schema and values.
	go run ./hack/chartdoc

.PHONY: fmt
fmt: ## gofmt the tree.
	gofmt -w $$(git ls-files '*.go')

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint with .golangci.yml.
	$(GOLANGCI_LINT) run ./...

.PHONY: lint-fix
lint-fix: $(GOLANGCI_LINT) ## Run golangci-lint and apply its fixes.
	$(GOLANGCI_LINT) run --fix ./...

.PHONY: vet
vet: ## go vet and a gofmt check.
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$out" ]; then echo "not gofmt'ed:"; echo "$$out"; exit 1; fi
	go vet ./...

##@ Build

.PHONY: build
build: ## Build the tcs binary into bin/.
	go build -o $(TCS) ./cmd/tcs

.PHONY: docker-build
docker-build: ## Build the container image IMG (default tcs:<chart appVersion>, the chart's default).
	$(CONTAINER_TOOL) build -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push the container image IMG.
	$(CONTAINER_TOOL) push $(IMG)

.PHONY: envtest
envtest: ## Build (once) and link the local control plane: etcd, kube-apiserver, kubectl.
	@hack/envtest.sh >/dev/null

.PHONY: s3server
s3server: ## Build (once) versitygw, the S3-compatible server of the blob tests, into bin/.
	@hack/s3server.sh >/dev/null

.PHONY: mailpit
mailpit: ## Build (once) mailpit, the SMTP server of the email tests, into bin/.
	@hack/mailpit.sh >/dev/null

.PHONY: redis
redis: ## Install redis-server (Debian) for the rate-limit and apiserver tests when missing.
	@hack/redis.sh >/dev/null

.PHONY: dicts
dicts: ## Install (Debian) the SCOWL word lists the correction engine's derived lists are checked against, when missing.
	@hack/dicts.sh

.PHONY: postgres
postgres: ## Install PostgreSQL (Debian) for the results-store tests when missing.
	@hack/postgres.sh >/dev/null

.PHONY: helm
helm: ## Build (once) the Helm CLI of the chart tests into bin/.
	@hack/helm.sh >/dev/null

.PHONY: chromium
chromium: ## Install (Debian) the Chromium of the dashboard's browser tests when missing.
	@hack/chromium.sh >/dev/null

.PHONY: axe
axe: ## Download (once) axe-core, the accessibility checker of the browser tests, from the npm registry into bin/.
	@hack/axe.sh >/dev/null

# The browser tests that take the screenshots of docs/dashboard/, at desktop (1280) and phone
# (390) width.
SCREENSHOT_TESTS := TestDashboardInBrowser|TestStaffAddFinishAndFindInBrowser|TestGlossaryInBrowser|TestStaffReviewInBrowser|TestStaffReviewWithTheAICheckInBrowser

.PHONY: screenshots
screenshots: build envtest chromium axe ## Retake the dashboard screenshots of docs/dashboard/ with the browser tests.
	KUBEBUILDER_ASSETS="$$(hack/envtest.sh)" TCS_BIN="$(TCS)" TCS_CHROMIUM="$$(hack/chromium.sh)" TCS_AXE="$$(hack/axe.sh)" TCS_UPDATE_SCREENSHOTS=1 \
		go test $(GO_TEST_FLAGS) -run '^($(SCREENSHOT_TESTS))$$' ./test/e2e/

.PHONY: run
run: build envtest ## Run the service on its embedded default (state in .tcs-dev/).
	$(TCS) dev

##@ Test

.PHONY: test
test: verify-generated vet lint envtest s3server mailpit redis postgres helm chromium axe dicts build fuzz ## Run every test.
	KUBEBUILDER_ASSETS="$$(hack/envtest.sh)" TCS_S3SERVER="$$(hack/s3server.sh)" TCS_MAILPIT="$$(hack/mailpit.sh)" TCS_REDIS_SERVER="$$(hack/redis.sh)" TCS_POSTGRES_BIN="$$(hack/postgres.sh)" TCS_HELM="$$(hack/helm.sh)" TCS_CHROMIUM="$$(hack/chromium.sh)" TCS_AXE="$$(hack/axe.sh)" TCS_BIN="$(TCS)" \
		go test $(GO_TEST_FLAGS) -timeout $(UNIT_TIMEOUT) ./...

# Every input parser has a fuzz target; `make fuzz` runs each for FUZZTIME (about a minute and
# a half in all), `make fuzz FUZZTIME=10m` for longer. New crashers are written to the
# package's testdata/fuzz/, where plain `go test` keeps replaying them.
FUZZTIME ?= 3s
FUZZ_TARGETS := \
	./internal/text/formats:FuzzTXT ./internal/text/formats:FuzzSRT ./internal/text/formats:FuzzVTT \
	./internal/text/formats:FuzzMarkdown ./internal/text/formats:FuzzHTML ./internal/text/formats:FuzzJSON \
	./internal/text/formats:FuzzDOCX ./internal/text/formats:FuzzSniff \
	./internal/text/correction:FuzzCorrect ./internal/text/correction:FuzzCorrectWithGlossary ./internal/text/pipeline:FuzzDecide \
	./internal/platform/sources:FuzzParseYouTubeURL ./internal/platform/sources:FuzzCheckURL \
	./internal/platform/sources:FuzzExtractPlayerResponse ./internal/platform/sources:FuzzTrackURL \
	./internal/domain/ids:FuzzValid ./api/v1alpha1:FuzzTranscriptIDsOfJob \
	./pkg/webhook:FuzzVerify ./pkg/webhook:FuzzVerifyTimestamped \
	./apiserver:FuzzReadCreate ./apiserver:FuzzListQuery ./apiserver:FuzzStringParam \
	./apiserver/dashboard:FuzzClientAddress

.PHONY: fuzz
# A run that ends on "context deadline exceeded" without a failing input is the fuzzer's
# coordinator missing its own deadline (a worker busy on one input as FUZZTIME ran out), not a
# finding: that target runs once more. A finding always writes testdata/fuzz/ and fails.
fuzz: ## Run each fuzz target for FUZZTIME (3s).
	@log=/tmp/tcs-fuzz.$$$$.log; trap 'rm -f $$log' EXIT; \
	for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; echo "fuzz $$pkg $$name"; \
		for try in 1 2; do \
			if go test -run '^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $$pkg >$$log 2>&1; then break; fi; \
			if [ $$try = 1 ] && grep -q 'context deadline exceeded' $$log && ! grep -q 'Failing input written' $$log; then \
				echo "fuzz $$pkg $$name: the fuzzer missed its deadline, without a finding; once more"; continue; \
			fi; \
			cat $$log; exit 1; \
		done; \
	done

.PHONY: bench
bench: ## Run the benchmarks.
	go run ./hack/bench

$(CONTROLLER_GEN):
	mkdir -p $(LOCALBIN)
	GOBIN=$(LOCALBIN) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	mv $(LOCALBIN)/controller-gen $(CONTROLLER_GEN)

# golangci-lint is built from the Go module proxy, once per version (its docs prefer release
# binaries, which our machines cannot download).
$(GOLANGCI_LINT):
	mkdir -p $(LOCALBIN)
	GOBIN=$(LOCALBIN) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(LOCALBIN)/golangci-lint $(GOLANGCI_LINT)

.PHONY: help
help:
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
