//go:build tools

// Package deps pins the modules the project is built with, so that go mod tidy keeps them
// while packages that use them are written.
package deps

import (
	_ "github.com/anishathalye/porcupine"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/onsi/ginkgo/v2"
	_ "github.com/onsi/gomega"
	_ "github.com/redis/go-redis/v9"
	_ "github.com/testcontainers/testcontainers-go"
	_ "github.com/testcontainers/testcontainers-go/modules/postgres"
	_ "github.com/testcontainers/testcontainers-go/modules/redis"
	_ "pgregory.net/rapid"
)
