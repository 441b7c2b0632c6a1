// Package limits holds the limits and constants of the API spec in one place.
package limits

import "time"

// Sizes.
const (
	// MaxPasteContent is the cap on a paste's content: 2 MB (2,000,000 bytes of UTF-8).
	MaxPasteContent = 2_000_000
	// MaxRemoteFile is the cap on a url source's file: 5 MB.
	MaxRemoteFile = 5_000_000
	// MaxRedirects is the most redirect hops a url source follows.
	MaxRedirects = 3
	// MaxTitle is the longest title accepted, in bytes.
	MaxTitle = 1000
)

// The synchronous wait (`wait=true`).
const (
	WaitTimeoutDefault = 60 // seconds
	WaitTimeoutMin     = 5
	WaitTimeoutMax     = 60
)

// Rate classes, per organization.
const (
	CreatePerMinute = 60
	ReadPerMinute   = 600
	SyncConcurrent  = 10
	// WebhookSendsPerMinute bounds the test events and delivery replays the dashboard sends
	// for one organization: each is an outbound request to the endpoint.
	WebhookSendsPerMinute = 10
)

// IdempotencyRetention is how long an Idempotency-Key's response is replayed.
const IdempotencyRetention = 24 * time.Hour

// The cost of reading one document (package formats). The extracted text of a document is
// bounded by the cap of its source (MaxPasteContent or MaxRemoteFile); these bound the rest.
const (
	// MaxDocxXML is the most bytes a DOCX file's word/document.xml may inflate to: the cap
	// of the file itself, so that a small archive cannot unpack into more than a large one.
	MaxDocxXML = MaxRemoteFile
	// MaxZipEntries is the most entries a DOCX archive may hold.
	MaxZipEntries = 1000
	// MaxTextRuns is the most text runs (caption lines, text nodes, JSON strings, DOCX runs)
	// a document may split into.
	MaxTextRuns = 250_000
	// MaxEscapes is the most character references and escape sequences decoded in the text
	// of one document.
	MaxEscapes = 500_000
	// MaxMarkupTokens is the most tokens (HTML tags and text nodes, DOCX tags) a document
	// may hold.
	MaxMarkupTokens = 2_000_000
	// MaxMarkdownTokens is the most lines and inline delimiters (* _ ` [ ] < !) a markdown
	// document may hold: its parse tree costs far more per token than the other formats.
	MaxMarkdownTokens = 100_000
	// MaxMarkdownLinkCost bounds, summed over the paragraphs of a markdown document, the
	// number of link openings ("](" and "]:") times the bytes of the paragraph: the parser
	// scans the rest of the paragraph for each, in time that product measures.
	MaxMarkdownLinkCost = 1_000_000_000
	// MaxNesting is the deepest nesting of JSON values and of markdown containers (block
	// quotes, lists) on one line.
	MaxNesting = 100
)

// Live progress streams of the dashboard (server-sent events).
const (
	// MaxLiveStreamsPerSession is the most streams one dashboard session may hold open.
	MaxLiveStreamsPerSession = 4
	// MaxLiveStreamsPerOrganization is the most streams open for one organization.
	MaxLiveStreamsPerOrganization = 100
	// MaxLiveStreams is the most streams one process holds open.
	MaxLiveStreams = 1000
	// LiveWriteTimeout is how long one event may take to write before its stream ends.
	LiveWriteTimeout = 10 * time.Second
	// LiveMembershipRecheck is how often an open stream checks that its member still belongs
	// to its organization (it also checks on every change of the organization).
	LiveMembershipRecheck = 30 * time.Second
)

// Request fields that end up in the Transcript resource and in every cache of it.
const (
	// MaxURL is the longest url of a youtube or url source, in bytes.
	MaxURL = 2048
	// MaxFilename is the longest filename of an upload grant, in bytes.
	MaxFilename = 255
)
