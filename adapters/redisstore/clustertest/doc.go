// Package clustertest runs the conformance battery against the Redis store on a Redis
// Cluster of three masters brought up by rediscontainer.StartCluster (or the cluster
// named by STORECHECK_REDIS_CLUSTER_URL). It is a package of its own because Ginkgo runs
// one battery per test binary: the single-node battery lives in package redisstore's
// tests.
package clustertest
