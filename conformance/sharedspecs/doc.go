// Package sharedspecs holds the specs of the rules both eras share (docs/spec.md
// section 0, S-* rules): a rule written once, as a function per era where the stores'
// calls differ (LegacyBlocked, ModernBlocked) and one function listed under both eras
// where they do not (GenerateID, Transitions).
package sharedspecs
