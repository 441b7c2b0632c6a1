package dashboard

import (
	"slices"
	"strconv"
	"strings"

	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/platform/results"
)

// auditSentence is what staff read for an action of the audit trail. In both sentences {who}
// stands for who did it; in Named, {1}, {2} … stand for the names the entry's message quotes,
// in order (a key's label, an address, a title, a role).
type auditSentence struct {
	// Named says it with the names of what it was done to.
	Named string
	// Plain says it without names, for an entry whose message quotes fewer than Named uses
	// (one recorded before the names were) or an empty one.
	Plain string
}

// auditWords is the one table of the actions the audit trail records and the sentences staff
// read for them; TestEveryAuditActionHasWords fails for an action of package audit that is
// not in it.
func auditWords() map[audit.Action]auditSentence {
	return map[audit.Action]auditSentence{
		audit.TranscriptAdded:   {"{who} added the transcript “{1}”", "{who} added a transcript"},
		audit.TranscriptDeleted: {"{who} deleted the transcript “{1}”", "{who} deleted a transcript"},

		audit.APIKeyCreated:  {"{who} created the API key “{1}”", "{who} created an API key"},
		audit.APIKeyRevealed: {"{who} showed the API key “{1}” on screen", "{who} showed an API key on screen"},
		audit.APIKeyRevoked:  {"{who} revoked the API key “{1}”", "{who} revoked an API key"},

		audit.WebhookEndpointCreated:  {"{who} added the webhook endpoint {1}", "{who} added a webhook endpoint"},
		audit.WebhookEndpointEdited:   {"{who} changed the webhook endpoint {1}", "{who} changed a webhook endpoint"},
		audit.WebhookEndpointPaused:   {"{who} paused the webhook endpoint {1}", "{who} paused a webhook endpoint"},
		audit.WebhookEndpointResumed:  {"{who} resumed the webhook endpoint {1}", "{who} resumed a webhook endpoint"},
		audit.WebhookEndpointDeleted:  {"{who} deleted the webhook endpoint {1}", "{who} deleted a webhook endpoint"},
		audit.WebhookSecretRevealed:   {"{who} showed the signing secret of the webhook endpoint {1} on screen", "{who} showed the signing secret of a webhook endpoint on screen"},
		audit.WebhookSecretRotated:    {"{who} replaced the signing secret of the webhook endpoint {1}", "{who} replaced the signing secret of a webhook endpoint"},
		audit.WebhookTestSent:         {"{who} sent a test event to the webhook endpoint {1}", "{who} sent a test event to a webhook endpoint"},
		audit.WebhookDeliveryReplayed: {"{who} sent a webhook delivery again", "{who} sent a webhook delivery again"},

		audit.MemberInvited:      {"{who} invited {1} as {2}", "{who} invited someone"},
		audit.InvitationAccepted: {"{who} accepted the invitation and joined as {1}", "{who} accepted the invitation and joined"},
		audit.InvitationDeclined: {"{who} declined the invitation to join as {1}", "{who} declined the invitation"},
		audit.InvitationRevoked:  {"{who} withdrew the invitation of {1}", "{who} withdrew an invitation"},
		audit.MemberRoleChanged:  {"{who} made {1} {2}", "{who} changed the role of a member"},
		audit.MemberRemoved:      {"{who} removed {1} from the organization", "{who} removed a member from the organization"},

		audit.PasswordResetRequested: {"A link to set a new password was sent to {who}", "A link to set a new password was sent to {who}"},
		audit.PasswordResetCompleted: {"{who} set a new password and was signed out everywhere", "{who} set a new password and was signed out everywhere"},

		audit.SettingsChanged: {"{who} changed the organization’s settings", "{who} changed the organization’s settings"},

		audit.GlossaryEntryAdded:   {"{who} added “{1}” to the glossary", "{who} added a word to the glossary"},
		audit.GlossaryEntryChanged: {"{who} changed “{1}” in the glossary", "{who} changed a word in the glossary"},
		audit.GlossaryEntryUpdated: {"{who} changed “{1}” in the glossary", "{who} changed a word in the glossary"},
		audit.GlossaryEntryDeleted: {"{who} removed “{1}” from the glossary", "{who} removed a word from the glossary"},
		audit.GlossaryImported:     {"{who} imported words into the glossary from a file", "{who} imported words into the glossary from a file"},
		audit.GlossaryReplaced:     {"{who} replaced the whole glossary", "{who} replaced the whole glossary"},
	}
}

// auditSays returns the sentence staff read for entry e: its action's words with who did it
// and the names its message quotes. An action the table does not know is said in general
// words, never by its name, which the page's technical details show.
func auditSays(e *results.AuditEntry) string {
	s, ok := auditWords()[audit.Action(e.Action)]
	if !ok {
		s = auditSentence{Plain: "{who} did something the dashboard has no words for"}
	}
	out := s.Plain
	names := quoted(e.Message)
	if n := placeholders(s.Named); s.Named != "" && n <= len(names) && !slices.Contains(names[:n], "") {
		out = s.Named
		for i := n; i >= 1; i-- {
			out = strings.ReplaceAll(out, "{"+strconv.Itoa(i)+"}", names[i-1])
		}
	}
	who := auditWho(e.Actor)
	if strings.HasPrefix(out, "{who}") && !strings.Contains(who, "@") {
		// General words start the sentence with a capital; an address stays as it is written.
		who = strings.ToUpper(who[:1]) + who[1:]
	}
	return strings.ReplaceAll(out, "{who}", who) + "."
}

// auditWho returns who did an action, in words: the member's address, or for an API key (the
// API's writes) the program using it.
func auditWho(actor string) string {
	switch {
	case actor == "":
		return "someone"
	case strings.HasPrefix(actor, "key_"):
		return "a program using an API key"
	}
	return actor
}

// placeholders returns the highest {n} of sentence, 0 when it has none.
func placeholders(sentence string) int {
	n := 0
	for i := 1; strings.Contains(sentence, "{"+strconv.Itoa(i)+"}"); i++ {
		n = i
	}
	return n
}

// quoted returns the Go-quoted strings of message (as %q writes them), in order.
func quoted(message string) []string {
	var out []string
	for i := 0; i < len(message); i++ {
		if message[i] != '"' {
			continue
		}
		q, err := strconv.QuotedPrefix(message[i:])
		if err != nil {
			continue
		}
		if s, err := strconv.Unquote(q); err == nil {
			out = append(out, s)
		}
		i += len(q) - 1
	}
	return out
}
