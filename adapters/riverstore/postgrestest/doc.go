// Package postgrestest runs the battery against the River stores on Postgres, in a
// container (testcontainers-go, adapters/postgres/pgcontainer) or on the server named by
// STORECHECK_POSTGRES_URL. It is a package of its own because Ginkgo runs its specs once
// per process, and adapters/riverstore's tests run the battery on SQLite.
package postgrestest
