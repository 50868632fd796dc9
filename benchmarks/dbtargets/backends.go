package dbtargets

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/testcontainers/testcontainers-go"

	"github.com/storecheck/storecheck/benchmarks"
)

// needDocker returns an error wrapping benchmarks.ErrUnavailable when a container would be needed
// (no server named by the caller or by envVar) but no Docker engine answers, outside CI.
// In CI (CI=true) a missing engine is a failure like any other, found by the bring-up.
func needDocker(ctx context.Context, given, envVar string) (err error) {
	if given != "" || strings.TrimSpace(os.Getenv(envVar)) != "" {
		return nil
	}
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		return nil
	}
	// testcontainers panics rather than erring on some broken setups.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: no Docker engine answers (%v); set %s to use a running server", benchmarks.ErrUnavailable, r, envVar)
		}
	}()
	p, err := testcontainers.NewDockerProvider()
	if err == nil {
		err = p.Health(ctx) // Health closes p
	}
	if err != nil {
		return fmt.Errorf("%w: no Docker engine answers (%v); set %s to use a running server", benchmarks.ErrUnavailable, err, envVar)
	}
	return nil
}
