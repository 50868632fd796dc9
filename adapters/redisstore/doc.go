// Package redisstore is a task store on Redis (go-redis v9) for both eras of docs/spec.md, on
// one server or on a Redis Cluster: Legacy implements legacy.Store plus the optional
// Canceler, Cleaner and ConditionalUpdater; Modern implements modern.Store.
//
//	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ContextTimeoutEnabled: true})
//	s, err := redisstore.New(c, redisstore.WithPrefix("myapp-tasks"), redisstore.WithBuckets(16))
//	tasks := legacy.New(s.Legacy()) // or modern.New(modern.Config{Store: s.Modern()})
//
// # Keys
//
// Every key of a store starts with "{prefix:b}", b being the task's bucket: FNV-1a of
// the id modulo the bucket count (WithBuckets, default 16). The braces make "prefix:b" the
// key's hash tag, so a bucket's keys share one slot whatever the id contains (an id's own
// braces come after the tag and do not count).
//
//	{P:b}:l:<id>        hash  legacy task: "."+key → JSON text of the value, plus the
//	                          promoted fields #s (status), #o (owner), #c (created_at)
//	{P:b}:l#all         set   legacy ids of the bucket
//	{P:b}:l#s:<status>  set   legacy ids by status (working when absent or not a string)
//	{P:b}:l#o:<owner>   set   legacy ids by owner;  {P:b}:l#u  set  unowned ids
//	{P:b}:l#done        zset  terminal legacy ids with an integer created_at, by created_at
//	{P:b}:m:<id>        hash  modern task: v version, c created_at, o owner, e expires_at,
//	                          b the rest as JSON text
//	{P:b}:m#exp         zset  modern ids with a ttl, by created_at + ttl
//	{P:conf}            string the bucket count, checked by each instance's first call
//
// A prefix (WithPrefix) is 1..128 bytes of [A-Za-z0-9_./-]; no prefix's keys match
// another's pattern "{P:*", so DeletePrefix and the harness's cleanup (SCAN on every
// master, one UNLINK per key) touch nothing else.
//
// # Atomicity, and no cjson
//
// Every read-modify-write is one Lua script, loaded once per node and run by SHA
// (EVALSHA; a node that lost its script cache gets it again). A script touches the keys
// of one bucket only, so it is atomic on a server and on a cluster: the task and its
// index entries change together or not at all. Reads are one HGETALL.
//
// Lua's cjson decodes numbers as doubles, so no script ever decodes a task's JSON
// (S-VAL-1): values travel as opaque strings encoded by Go's encoding/json from
// jsonvalue's canonical form (json.Number keeps every digit). A legacy task is a hash
// with one field per top-level key, so the shallow merge of Update (L-UPDATE-1) is an
// HSET of the changed fields inside the script: concurrent updates of disjoint keys all
// survive (L-CONC-1) and an Update racing a Delete finds no task and writes nothing. What
// scripts compare (status, owner, version, created_at, expiry) is kept beside the JSON
// as plain strings computed in Go; integers are compared as decimal strings (exact to
// ±(2^63−1)); sorted-set scores are doubles, so they only pick candidates and the exact
// comparison decides. JSON text cannot carry a string that is not valid UTF-8, so such a
// value is refused with reference.ErrInvalid rather than altered; a legacy task's
// top-level keys are hash fields and are kept byte for byte.
//
// # Indexes on a cluster
//
// List, Cleanup and Sweep need structures that span tasks. They are sharded with the
// tasks: each bucket has its own status, owner, terminal and expiry indexes in its own
// slot, written by the same script as the task. An index entry therefore never
// disagrees with its task, under any concurrency, on one node or on a cluster: there is
// no cross-slot write, no repair pass and no window in which an entry is stale. List,
// Cleanup and Sweep run one script per bucket, all buckets in one pipeline (go-redis
// sends each node its buckets' scripts at once, nodes in parallel), and merge the
// answers. Each bucket's answer is an atomic snapshot of that bucket; buckets are read at
// slightly different moments, as rows are by a database without a global snapshot. A
// task lives in exactly one bucket, so List returns it at most once (L-LIST-1).
//
// The bucket count is the trade-off. One bucket is one slot: the whole prefix lives on
// one master, and List, Cleanup and Sweep are one script each. More buckets spread a
// prefix over the cluster's masters (12 buckets reach all three masters of the test
// cluster), at one script per bucket for those three calls; single-task calls never pay
// for buckets. Every instance of a prefix must use the same count; the first call of an
// instance compares its count with the one recorded under the prefix ({P:conf}) and
// refuses a mismatch with reference.ErrInvalid.
//
// # Cost per call
//
// Round trips (RT) and server commands as INFO commandstats counts them (the EVALSHA and
// the commands its script runs), measured by TestCostDoesNotGrowWithTasks with 4 buckets
// on one node, identical with 10 and with 1000 other tasks in the prefix. B is the bucket
// count, M the masters holding buckets (1 on one server), r the rows returned, k the
// tasks removed:
//
//	legacy Create                 1 RT, 8 (EXISTS, HSET, HMGET, 4 index writes)
//	legacy Get                    1 RT, 1 (HGETALL)
//	legacy Update of data keys    1 RT, 4 (EXISTS, HSET, HGETALL)
//	legacy Update of status/owner 1 RT, 8–13 (plus HMGET before and after, HDEL, ≤ 6 index writes)
//	legacy UpdateIf, Cancel       1 RT, 9 (UpdateIf adds an HGET of the status)
//	legacy Delete                 1 RT, 8 (2 when the id is missing)
//	legacy List                   M RTs in parallel (one pipeline): B scripts, each 1–2
//	                              SINTER/SMEMBERS plus one HGETALL per row: B + B·(1..2) + r
//	                              (9 for the measured one-row list); the work is the candidates
//	                              (the smaller of the status and owner sets; all ids only for an
//	                              unfiltered list) plus r. A limit L is applied per bucket and
//	                              again to the union, so up to B·L rows are read.
//	legacy Cleanup                M RTs: 2B commands when nothing is due, plus 7 per removed task
//	                              and another script per bucket per 500 candidates: O(B + k·log N)
//	modern Create                 1 RT, 3–7 (owner, ttl and its index, backstop TTL when present)
//	modern Get                    1 RT, 1 (HGETALL)
//	modern Swap                   1 RT, 3–6 (3 when the expiry stays and there is no backstop)
//	modern Delete                 1 RT, 3
//	modern Sweep                  M RTs: 2B commands when nothing is due, plus 3 per removed task
//	first call of an instance     +1 RT, 1 (SET {P:conf} NX GET)
//	a node without the scripts    +1 RT per script once (EVAL after NOSCRIPT, or SCRIPT LOAD)
//
// So single-task calls cost the same at any number of tasks N; List grows with what it
// matches, not with N (except an unfiltered list, which returns everything anyway);
// Cleanup and Sweep grow with B and with what they remove. None scans the keyspace.
//
// # Time
//
// Expiry, Sweep and Cleanup decisions use the store's reference.Clock (WithClock),
// passed to the scripts as an argument; no script reads the server's TIME, so tests can
// move time. WithExpiryBackstop adds a native TTL of margin past the logical expiry as a
// memory backstop for deployments that never sweep; it never decides visibility.
//
// # Clients and durability
//
// Give clients ContextTimeoutEnabled so that a context's deadline bounds a call waiting
// on the server (S-CTX-1); every call also refuses an already finished context before
// sending anything, and stops waiting when its context is cancelled while the server
// holds it back (a paused server, a long script): go-redis watches only deadlines, so
// the store waits for the answer in a goroutine of its own and leaves it behind on
// cancellation (the command, one command or one script, is then applied whole or not
// at all). Every write is applied at most once per call, on one server or a cluster,
// whatever the client's MaxRetries and MaxRedirects: go-redis resends a command whose
// reply is late (ReadTimeout), alone or in a cluster pipeline, and a script's second run
// would answer for the first one's changes (a Create "task already exists", a Swap a
// conflict, a Cleanup 0), so every script is sent at most once. A write whose answer
// never came fails with ErrUnknownOutcome (with reference.ErrInternal, or the context's
// error): it was applied whole or not at all, and a Get tells which. Read from masters
// only (no ReadOnly/RouteByLatency): a replica lags, and S-SHARE-1 needs the next read
// on any instance to see an acknowledged write. An acknowledged write is applied in the
// server's memory; what survives a crash is the server's persistence setting (the test
// bring-up runs AOF, fsync every second).
package redisstore
