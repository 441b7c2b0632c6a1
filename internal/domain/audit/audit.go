// Package audit names the actions an organization's audit trail records.
//
// Every action is a constant of type Action here, and the dashboard has the one table of the
// words staff read for each (apiserver/dashboard/auditwords.go); a test there fails for a
// constant without words.
package audit

// Action says what was done, in one CamelCase word; it is the audit entry's action and the
// reason of its Event on the Organization.
type Action string

// The actions of the audit trail. The message of an entry puts the names people know the
// things by (a key's label, an address, a title, a role) in double quotes, in the order the
// staff words of its action use them.
const (
	TranscriptAdded   Action = "TranscriptAdded"
	TranscriptDeleted Action = "TranscriptDeleted"

	APIKeyCreated  Action = "APIKeyCreated"
	APIKeyRevealed Action = "APIKeyRevealed"
	APIKeyRevoked  Action = "APIKeyRevoked"

	WebhookEndpointCreated  Action = "WebhookEndpointCreated"
	WebhookEndpointEdited   Action = "WebhookEndpointEdited"
	WebhookEndpointPaused   Action = "WebhookEndpointPaused"
	WebhookEndpointResumed  Action = "WebhookEndpointResumed"
	WebhookEndpointDeleted  Action = "WebhookEndpointDeleted"
	WebhookSecretRevealed   Action = "WebhookSecretRevealed"
	WebhookSecretRotated    Action = "WebhookSecretRotated"
	WebhookTestSent         Action = "WebhookTestSent"
	WebhookDeliveryReplayed Action = "WebhookDeliveryReplayed"

	MemberInvited      Action = "MemberInvited"
	InvitationAccepted Action = "InvitationAccepted"
	InvitationDeclined Action = "InvitationDeclined"
	InvitationRevoked  Action = "InvitationRevoked"
	MemberRoleChanged  Action = "MemberRoleChanged"
	MemberRemoved      Action = "MemberRemoved"

	PasswordResetRequested Action = "PasswordResetRequested"
	PasswordResetCompleted Action = "PasswordResetCompleted"

	SettingsChanged Action = "SettingsChanged"

	// GlossaryEntryChanged is a change of an entry in the dashboard, GlossaryEntryUpdated
	// one through the API.
	GlossaryEntryAdded   Action = "GlossaryEntryAdded"
	GlossaryEntryChanged Action = "GlossaryEntryChanged"
	GlossaryEntryUpdated Action = "GlossaryEntryUpdated"
	GlossaryEntryDeleted Action = "GlossaryEntryDeleted"
	GlossaryImported     Action = "GlossaryImported"
	GlossaryReplaced     Action = "GlossaryReplaced"
)
