-- storecheck Postgres adapter schema. Applied by Migrate into the first schema of the
-- connection's search_path; every statement is idempotent.

-- Legacy era: the task is a JSON object that the store keeps verbatim in body (JSON text,
-- not jsonb: see doc.go). The keys the store filters on are promoted into columns, kept
-- in step with body on every write.
CREATE TABLE IF NOT EXISTS storecheck_legacy_tasks (
    task_id    text   PRIMARY KEY,
    -- the "owner" string's bytes; NULL when the task is unowned (owner absent or null)
    owner      bytea,
    -- the "status" string's bytes, or 'working' when status is absent or not a string
    status     bytea  NOT NULL,
    -- "created_at" when it is an integer (milliseconds), else NULL (no age: never cleaned)
    created_at bigint,
    -- the whole task, JSON text exactly as encoded by the store
    body       text   NOT NULL
);
CREATE INDEX IF NOT EXISTS storecheck_legacy_tasks_owner ON storecheck_legacy_tasks (owner);
CREATE INDEX IF NOT EXISTS storecheck_legacy_tasks_status_created ON storecheck_legacy_tasks (status, created_at);

-- Modern era: the fields the store understands are columns; the rest of the record is
-- JSON text in body.
CREATE TABLE IF NOT EXISTS storecheck_modern_tasks (
    task_id    text   PRIMARY KEY,
    owner      bytea,           -- NULL = no owner
    created_at bigint NOT NULL, -- milliseconds since the Unix epoch
    ttl        bigint,          -- milliseconds; NULL = never expires
    expires_at bigint,          -- created_at + ttl (saturated); NULL = never expires
    version    bigint NOT NULL, -- 1 after create, +1 on every swap
    body       text   NOT NULL  -- status, status_message, last_updated_at, poll_interval,
                                -- result, error, input_* and issued_keys as JSON text
);
CREATE INDEX IF NOT EXISTS storecheck_modern_tasks_expires ON storecheck_modern_tasks (expires_at)
    WHERE expires_at IS NOT NULL;
