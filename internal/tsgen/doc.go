// Package tsgen writes TypeScript declarations for the Go types that reach
// the UI as JSON, so the UI's types are derived from Go's rather than
// copied by hand. It reads the types by reflection, with encoding/json's
// rules (field names and omission from the struct tags), and reads a
// string kind's constants from its package's source, so a kind becomes a
// union of its values; an events record's keys must be exactly the
// constants of a generic event type (Event[T]), so no event reaches the UI
// without its payload's type.
//
// It imports nothing else from Vroom: the root package's tstypes_test.go
// names the types, which keeps this package free of the direction rules
// and lets the test compare the committed file with a fresh generation.
package tsgen
