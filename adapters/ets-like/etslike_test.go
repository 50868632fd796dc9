package etslike_test

import (
	"testing"

	etslike "github.com/storecheck/storecheck/adapters/ets-like"
	"github.com/storecheck/storecheck/conformance"
)

// TestBattery runs the conformance battery, both eras, against the table.
func TestBattery(t *testing.T) { conformance.Run(t, etslike.Harness()) }
